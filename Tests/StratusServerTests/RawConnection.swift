import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP connection to a loopback port, held open by a test (to fill a connection limit
/// or leave a request half sent).
final class RawConnection {
    private let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            systemClose(descriptor)
            throw Failure(description: "connect: \(errno)")
        }
    }

    /// Sends `text`, all of it unless the connection fails: a blocking `write` returns early
    /// when a signal interrupts it (a child process of another test ending, under the whole
    /// suite), having written only part.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Ends the sending side (`shutdown(SHUT_WR)`): the server reads the end of the stream.
    func endSending() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// What the server sends next (one read, up to 4 KiB, waiting at most 10 s).
    func receive() -> String {
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }

    /// Waits up to `timeout` for the server to close the connection, reading and dropping
    /// what it sends; `true` when it closed it, `false` when the time ran out first.
    func waitForClose(timeout: TimeInterval) -> Bool {
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// Everything the server sends until it closes the connection or `timeout` passes between
    /// two reads, and whether it closed it.
    func receiveUntilClose(timeout: TimeInterval) -> (bytes: [UInt8], closed: Bool) {
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return (received, true) }
            if count < 0 { return (received, errno == ECONNRESET) }
            received += buffer[0..<count]
        }
    }

    deinit {
        systemClose(descriptor)
    }
}

/// `close(2)`, which the class's own `close` names would hide.
private func systemClose(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}
