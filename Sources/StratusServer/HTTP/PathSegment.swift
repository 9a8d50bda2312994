import Hummingbird

/// A path parameter as a route uses it: percent-decoded once (RFC 3986 §2.1). Hummingbird
/// matches routes on the path as sent and hands its parameters over still encoded, so without
/// this `iCloud.com.example%2Eapp` and `pr%69vate` would be other names than
/// `iCloud.com.example.app` and `private`, and an operation ID a client encoded (a space, a
/// `/`) would never be found.
///
/// A `%` without two hexadecimal digits after it, or bytes that are not UTF-8 once decoded,
/// are 400 `BAD_REQUEST` naming the segment (never its value: a token segment is a
/// capability). A segment that names a namespace (container, environment, database) is also
/// refused when it decodes to `.`, `..` or anything holding a `/` or a control character: no
/// such name exists, and none may reach the stores' keys.
enum PathSegment {
    /// `raw`, the path's `name` segment, decoded.
    ///
    /// - Throws: 400 `BAD_REQUEST` for a malformed `%` sequence or bytes that are not UTF-8.
    static func decode(_ raw: String, name: String) throws(ServerError) -> String {
        guard raw.utf8.contains(UInt8(ascii: "%")) else { return raw }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .badRequest("the path's \(name) segment has a '%' without two hexadecimal digits after it")
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest("the path's \(name) segment is not UTF-8 once percent-decoded")
        }
        return text
    }

    /// `raw`, the path's namespace segment `name`, decoded and checked.
    ///
    /// - Throws: 400 `BAD_REQUEST` as ``decode(_:name:)``, or when the name is `.`, `..` or
    ///   holds a `/` or a control character.
    static func namespace(_ raw: String, name: String) throws(ServerError) -> String {
        let text = try decode(raw, name: name)
        let control = text.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard text != ".", text != "..", !text.contains("/"), !control else {
            throw .badRequest(
                "the path's \(name) segment decodes to '.', '..', a '/' or a control character: no \(name) is named so")
        }
        return text
    }

    /// The value of hexadecimal digit `byte`, if it is one.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Parameters {
    /// The path parameter `name` percent-decoded (``PathSegment/decode(_:name:)``); `nil` when
    /// the route has none.
    func decoded(_ name: String) throws(ServerError) -> String? {
        guard let raw = get(name) else { return nil }
        return try PathSegment.decode(raw, name: name)
    }

    /// The namespace segment `name` decoded and checked (``PathSegment/namespace(_:name:)``);
    /// `nil` when the route has none.
    func namespaceSegment(_ name: String) throws(ServerError) -> String? {
        guard let raw = get(name) else { return nil }
        return try PathSegment.namespace(raw, name: name)
    }
}
