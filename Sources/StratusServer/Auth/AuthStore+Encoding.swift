import Crypto
import Foundation
internal import Stratus
import StratusBackend

/// Key prefixes under the server's tag (decision 0013.2) and the encodings the auth data shares.
extension AuthStore {
    static let sessionPrefix: [UInt8] = [ServerData.tag, 0x03]
    static let serverKeyPrefix: [UInt8] = [ServerData.tag, 0x04]
    static let userByExternalIDPrefix: [UInt8] = [ServerData.tag, 0x05]
    static let userPrefix: [UInt8] = [ServerData.tag, 0x06]
    static let replayGuardPrefix: [UInt8] = [ServerData.tag, 0x07]
    static let hmacKeyKey: [UInt8] = [ServerData.tag, 0x08]

    /// `prefix`, then each component in UTF-8 followed by `0x00`, the last one with none.
    ///
    /// Unambiguous: every component but the last is a container name or an environment, which
    /// never hold `0x00`; the last may be anything, as nothing follows it.
    static func key(_ prefix: [UInt8], _ components: String...) -> [UInt8] {
        var key = prefix
        for (index, component) in components.enumerated() {
            if index > 0 { key.append(0x00) }
            key.append(contentsOf: Array(component.utf8))
        }
        return key
    }

    /// The keys under `prefix` whose components start with `components` (each then `0x00`).
    static func range(_ prefix: [UInt8], within components: String...) -> KeyRange {
        KeyRange(prefix: components.reduce(prefix) { $0 + Array($1.utf8) + [0x00] })
    }

    /// The value stored under `prefix + digest`, found as the first key at or after it and then
    /// compared with `digest` by swift-crypto's constant-time `==` (decision 0013.8).
    static func value(
        under prefix: [UInt8], digest: SHA256Digest, in scan: (KeyRange, Int) throws -> [KeyValuePair]
    ) throws -> (key: [UInt8], value: [UInt8])? {
        let lowerBound = prefix + Array(digest)
        let found = try scan(KeyRange(from: lowerBound, to: KeyRange.successor(ofPrefix: prefix)), 1)
        guard let pair = found.first, pair.key.count == lowerBound.count,
            digest == Array(pair.key.dropFirst(prefix.count))
        else { return nil }
        return (pair.key, pair.value)
    }
}

/// Random secrets and identifiers, from the system's cryptographic generator.
enum Secret {
    /// `count` random bytes.
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// `bytes` in lowercase hex.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// `bytes` in base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
