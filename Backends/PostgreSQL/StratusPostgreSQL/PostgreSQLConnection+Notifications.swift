import StratusBackend
import StratusCLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `LISTEN` and the notifications that arrive on a connection kept for listening
/// (``PostgreSQLListener``).
extension PostgreSQLConnection {
    /// Starts listening on `channel`, a name of letters, digits and `_` only.
    func listen(_ channel: String) throws {
        try run([PostgreSQLStatement("LISTEN \(channel)")])
    }

    /// The payloads of the notifications that arrived, waiting up to `milliseconds` for the
    /// first; empty when none came.
    ///
    /// - Throws: ``BackendError`` (`unavailable`) when the connection broke.
    func notifications(waitingUpTo milliseconds: Int32) throws -> [String] {
        guard let handle, !isBroken else {
            throw BackendError(.unavailable, "PostgreSQL: the listening connection was lost")
        }
        var payloads = Self.pending(handle)
        guard payloads.isEmpty else { return payloads }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw lost(handle) }
        if poll(&descriptor, 1, milliseconds) < 0, errno != EINTR { throw lost(handle) }
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { throw lost(handle) }
        payloads = Self.pending(handle)
        return payloads
    }

    /// The notifications libpq has already read, freed as they are taken.
    private static func pending(_ handle: OpaquePointer) -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }
}
