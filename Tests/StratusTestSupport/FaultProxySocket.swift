import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback TCP socket of a ``FaultProxy``, with bounded waits: every read gives up when the
/// proxy stops or after `FaultProxySocket.longestWait`, so a proxy never hangs a test.
struct FaultProxySocket: Sendable {
    /// A socket call that failed, saying which and the `errno`.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The longest a single read waits for bytes.
    static let longestWait: Double = 180

    let descriptor: Int32

    /// A listening socket on 127.0.0.1 and the port the system gave it.
    static func listen() throws -> (FaultProxySocket, Int) {
        let socket = try make()
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound, Glibc.listen(socket, 64) == 0 else {
            let failure = Failure(description: "cannot listen on 127.0.0.1: errno \(errno)")
            Glibc.close(socket)
            throw failure
        }
        return (FaultProxySocket(descriptor: socket), Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A connection to 127.0.0.1:`port`.
    static func connect(port: Int) throws -> FaultProxySocket {
        let socket = try make()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.connect(socket, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let failure = Failure(description: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
            Glibc.close(socket)
            throw failure
        }
        return FaultProxySocket(descriptor: socket)
    }

    private static func make() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "cannot make a socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// Whether bytes (or a close) are ready within `seconds`.
    func isReadable(within seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) > 0
    }

    /// The next accepted connection, or `nil` when none came within `seconds`.
    func accept(within seconds: Double) -> FaultProxySocket? {
        guard isReadable(within: seconds) else { return nil }
        let socket = Glibc.accept(descriptor, nil, nil)
        guard socket >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return FaultProxySocket(descriptor: socket)
    }

    /// Up to 64 KiB of bytes, waiting while `stopped()` is false; empty at the end of the stream,
    /// on an error, when stopped, or after ``longestWait``.
    func read(stopped: () -> Bool) -> [UInt8] {
        let deadline = Date().addingTimeInterval(Self.longestWait)
        while !isReadable(within: 0.1) {
            if stopped() || Date() > deadline { return [] }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    /// Writes every byte of `bytes`; returns whether it could.
    @discardableResult
    func write(_ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        var sent = 0
        while sent < array.count {
            let count = array[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Makes the socket's close a reset rather than an orderly close: a dropped connection as a
    /// network loses it. The owner still closes it, once.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Closes the socket in order.
    func close() {
        Glibc.close(descriptor)
    }

}
