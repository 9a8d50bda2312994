import Foundation

/// A blocking HTTP/1.1 client on one keep-alive TCP connection to 127.0.0.1: the peer
/// benchmark's client shape (Python's `http.client` on one connection), without a client
/// library's own cost in the figures. Reads `Content-Length` and chunked bodies.
final class LoopbackHTTPClient {
    private let socket: Int32
    private let host: String
    /// Bytes received; those not yet returned are `consumed..<filled`.
    private var buffer = [UInt8](repeating: 0, count: 4 * readSize)
    private var consumed = 0
    private var filled = 0
    /// The space a read asks the socket to fill, at least.
    private static let readSize = 65_536

    /// A response: status and body bytes.
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw BenchmarkFailure("connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.socket = socket
        host = "127.0.0.1:\(port)"
    }

    deinit { close(socket) }

    /// Sends one request and reads its response.
    func send(_ method: String, _ target: String, body: [UInt8] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        if !body.isEmpty || method == "POST" {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        try write(Array((head + "\r\n").utf8) + body)
        return try readResponse()
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchmarkFailure("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Reads more bytes after those held (moving the unread ones to the front first when the
    /// space after them is short, growing the buffer only for a longer run of unread bytes);
    /// throws when the server closed the connection. No byte is zeroed or copied twice per read.
    private func fill() throws {
        if consumed == filled {
            consumed = 0
            filled = 0
        } else if buffer.count - filled < Self.readSize && consumed > 0 {
            buffer.withUnsafeMutableBytes { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + consumed, filled - consumed)
            }
            filled -= consumed
            consumed = 0
        }
        if buffer.count - filled < Self.readSize {
            buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, Self.readSize)))
        }
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + filled, $0.count - filled, 0) }
        } while count < 0 && errno == EINTR
        guard count > 0 else {
            throw BenchmarkFailure(
                count == 0 ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))")
        }
        filled += count
    }

    /// The bytes up to (not including) the next CRLF, consumed with it.
    private func line() throws -> String {
        var searched = 0  // bytes after `consumed` known to hold no LF
        while true {
            if let end = buffer[(consumed + searched)..<filled].firstIndex(of: 10), end > consumed,
                buffer[end - 1] == 13
            {
                let text = String(decoding: buffer[consumed..<end - 1], as: UTF8.self)
                consumed = end + 1
                return text
            }
            searched = filled - consumed
            try fill()
        }
    }

    /// Appends the next `count` bytes to `body`, consumed.
    private func take(_ count: Int, into body: inout [UInt8]) throws {
        var left = count
        while left > 0 {
            if consumed == filled { try fill() }
            let piece = min(left, filled - consumed)
            body.append(contentsOf: buffer[consumed..<consumed + piece])
            consumed += piece
            left -= piece
        }
    }

    private func readResponse() throws -> Response {
        let statusLine = try line()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw BenchmarkFailure("not an HTTP status line: \(statusLine)")
        }
        var length = 0
        var chunked = false
        while case let header = try line(), !header.isEmpty {
            let lower = header.lowercased()
            if lower.hasPrefix("content-length:") {
                length = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            if lower.hasPrefix("transfer-encoding:") && lower.contains("chunked") { chunked = true }
        }
        var body: [UInt8] = []
        guard chunked else {
            body.reserveCapacity(length)
            try take(length, into: &body)
            return Response(status: status, body: body)
        }
        while true {
            let sizeLine = try line()
            guard let size = sizeLine.split(separator: ";").first.flatMap({ Int($0, radix: 16) }) else {
                throw BenchmarkFailure("not a chunk size: \(sizeLine)")
            }
            if size == 0 { break }
            try take(size, into: &body)
            _ = try line()
        }
        _ = try line()
        return Response(status: status, body: body)
    }
}
