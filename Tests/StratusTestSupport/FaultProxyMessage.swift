import Foundation

/// One HTTP/1.1 message as a ``FaultProxy`` read it off a socket: its bytes exactly as they
/// came (so forwarding changes nothing), and the parts of its head the proxy needs.
struct FaultProxyMessage: Sendable {
    /// The whole message: head and body.
    var bytes: [UInt8]
    /// The request line or status line.
    var startLine: String
    /// Header names, lowercased, and values.
    var headers: [(String, String)]
    /// Where the body begins in ``bytes``.
    var bodyStart = 0

    /// The body's bytes.
    var body: ArraySlice<UInt8> { bytes[bodyStart...] }

    /// The first value of header `name` (any case).
    func header(_ name: String) -> String? {
        headers.first { $0.0 == name.lowercased() }?.1
    }

    /// A request's method and path (without the query string).
    var requestTarget: (method: String, path: String) {
        let parts = startLine.split(separator: " ")
        let target = parts.count > 1 ? String(parts[1]) : ""
        return (parts.first.map(String.init) ?? "", String(target.prefix { $0 != "?" }))
    }

    /// A response's status code.
    var status: Int? {
        let parts = startLine.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) : nil
    }
}

/// Reads whole HTTP/1.1 messages from a socket, keeping what came after one for the next (a
/// keep-alive connection carries many).
struct FaultProxyReader {
    let socket: FaultProxySocket
    let stopped: () -> Bool
    private var buffer: [UInt8] = []

    init(socket: FaultProxySocket, stopped: @escaping () -> Bool) {
        self.socket = socket
        self.stopped = stopped
    }

    /// The next message, or `nil` when the stream ended (or broke) before a whole one.
    /// `isResponse` reads a body without a length up to the end of the stream.
    mutating func next(isResponse: Bool) -> FaultProxyMessage? {
        guard let headEnd = fill(until: { Self.headEnd(in: $0) }) else { return nil }
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { return nil }
        let startLine = lines.removeFirst()
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (line[..<colon].lowercased(), value)
        }
        var message = FaultProxyMessage(bytes: [], startLine: startLine, headers: headers, bodyStart: headEnd)
        guard let end = bodyEnd(of: message, from: headEnd, isResponse: isResponse) else { return nil }
        message.bytes = Array(buffer[0..<end])
        buffer.removeFirst(end)
        return message
    }

    /// Where the message whose head ends at `start` ends in the buffer, reading as needed.
    private mutating func bodyEnd(of message: FaultProxyMessage, from start: Int, isResponse: Bool) -> Int? {
        if message.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            return chunkedEnd(from: start)
        }
        if let length = message.header("content-length").flatMap(Int.init) {
            return fill(until: { $0.count >= start + length ? start + length : nil })
        }
        let status = message.status ?? 0
        guard isResponse, status >= 200, status != 204, status != 304 else { return start }
        while true {
            let more = socket.read(stopped: stopped)
            if more.isEmpty { return buffer.count }
            buffer += more
        }
    }

    /// The end of a chunked body starting at `start` (chunks, then trailers, then a blank line).
    private mutating func chunkedEnd(from start: Int) -> Int? {
        var position = start
        while true {
            guard let lineEnd = fill(until: { Self.lineEnd(in: $0, from: position) }) else { return nil }
            let sizeText = String(decoding: buffer[position..<lineEnd - 2], as: UTF8.self)
            guard let size = Int(sizeText.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces), radix: 16)
            else { return nil }
            position = lineEnd
            if size == 0 {
                // Trailers, each a line, up to an empty line.
                while true {
                    guard let end = fill(until: { Self.lineEnd(in: $0, from: position) }) else { return nil }
                    defer { position = end }
                    if end - position == 2 { return end }
                }
            }
            let chunkEnd = position + size + 2
            guard fill(until: { $0.count >= chunkEnd ? chunkEnd : nil }) != nil else { return nil }
            position = chunkEnd
        }
    }

    /// Reads until `found` answers a position in the buffer; `nil` when the stream ends first.
    private mutating func fill(until found: ([UInt8]) -> Int?) -> Int? {
        while true {
            if let position = found(buffer) { return position }
            let more = socket.read(stopped: stopped)
            if more.isEmpty { return nil }
            buffer += more
        }
    }

    /// The position just after the head's blank line, if the buffer holds it.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// The position just after the first CRLF at or after `start`, if the buffer holds one.
    private static func lineEnd(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= start + 2 else { return nil }
        for index in start...(bytes.count - 2) where bytes[index] == 13 && bytes[index + 1] == 10 {
            return index + 2
        }
        return nil
    }
}
