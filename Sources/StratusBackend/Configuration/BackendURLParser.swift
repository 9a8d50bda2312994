/// Parses the text of a ``BackendURL``; see its documentation for the grammar.
struct BackendURLParser {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    func parse() throws -> BackendURL {
        let trimmed = text.trimmingWhitespace()
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw malformed("it has no scheme; write scheme:location, such as sqlite:///path/store.sqlite")
        }
        let scheme = String(trimmed[..<colon])
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
            })
        else {
            throw malformed(
                "'\(scheme)' is not a scheme (a letter, then letters, digits, '+', '-' or '.'); write scheme:location, such as sqlite:///path/store.sqlite"
            )
        }
        var rest = Substring(trimmed[trimmed.index(after: colon)...])
        if rest.contains("#") {
            throw malformed("a backend URL has no '#fragment'; percent-encode '#' as %23")
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var authority: BackendURL.Authority?
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = try parseAuthority(afterSlashes[..<end])
            rest = afterSlashes[end...]
        }
        let path = try decode(rest, what: "path")
        let options = try query.map(parseOptions) ?? []
        return BackendURL(scheme: scheme, authority: authority, path: path, options: options)
    }

    private func parseAuthority(_ text: Substring) throws -> BackendURL.Authority {
        var hostPort = text
        var user: String?
        var password: String?
        if let at = text.lastIndex(of: "@") {
            let userInfo = text[..<at]
            hostPort = text[text.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try decode(userInfo[..<colon], what: "user name")
                password = try decode(userInfo[userInfo.index(after: colon)...], what: "password")
            } else {
                user = try decode(userInfo, what: "user name")
            }
        }
        var host = hostPort
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw malformed("the IPv6 address after '//' has no closing ']'")
            }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw malformed("unexpected '\(after)' after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        }
        var port: Int?
        if let portText {
            guard let value = Int(portText), (0...65535).contains(value) else {
                throw malformed("'\(portText)' is not a port (a number from 0 to 65535)")
            }
            port = value
        }
        return BackendURL.Authority(
            user: user, password: password, host: try decode(host, what: "host"), port: port)
    }

    private func parseOptions(_ query: Substring) throws -> [BackendURL.Option] {
        var options: [BackendURL.Option] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: String
            let value: String
            if let equals = pair.firstIndex(of: "=") {
                name = try decode(pair[..<equals], what: "option name")
                value = try decode(pair[pair.index(after: equals)...], what: "option value")
            } else {
                name = try decode(pair, what: "option name")
                value = ""
            }
            guard !name.isEmpty else { throw malformed("an option has no name ('=\(value)')") }
            guard !options.contains(where: { $0.name == name }) else {
                throw malformed("option '\(name)' is given more than once")
            }
            options.append(BackendURL.Option(name: name, value: value))
        }
        return options
    }

    private func decode(_ text: Substring, what: String) throws -> String {
        guard let decoded = PercentEncoding.decode(text) else {
            throw malformed("the \(what) has an invalid percent escape (write '%' as %25)")
        }
        return decoded
    }

    private func malformed(_ reason: String) -> BackendConfigurationError {
        BackendConfigurationError(
            .malformedURL, "malformed backend URL '\(redacted)': \(reason)", url: nil)
    }

    /// The input with anything between `//` and `@` after the first `:` shown as `***`, so a
    /// password never reaches an error message.
    private var redacted: String {
        let characters = Array(text)
        guard
            let slash = characters.indices.first(where: {
                $0 + 1 < characters.count && characters[$0] == "/" && characters[$0 + 1] == "/"
            }),
            let at = characters[(slash + 2)...].firstIndex(of: "@")
        else { return text }
        let userInfo = characters[(slash + 2)..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(characters[...colon]) + "***" + String(characters[at...])
    }
}

/// Percent-encoding and -decoding of UTF-8 text, without Foundation.
enum PercentEncoding {
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    static let pathSafe = unreserved.union("/:@!$'()*+,;".utf8)
    static let querySafe = unreserved.union("/:@!$'()*+,;".utf8)
    static let userInfoSafe = unreserved.union("!$'()*+,;".utf8)

    /// `text` with `%XX` escapes decoded, or `nil` when an escape is invalid or the result is
    /// not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `text` with every byte outside `allowed` written as `%XX`.
    static func encode(_ text: String, allowing allowed: Set<UInt8>) -> String {
        var result = ""
        for byte in text.utf8 {
            if allowed.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                result += "%"
                result.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0xF)]))
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self)
    }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
