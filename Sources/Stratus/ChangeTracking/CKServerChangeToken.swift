public import Foundation

/// An opaque marker of a point in a zone's or a database's change history.
///
/// Persist it (it is `NSSecureCoding` and `Codable`) and pass it back to fetch only what
/// changed since. Tokens are bound to their store, database and zone and authenticated; a
/// token that does not apply is rejected with `changeTokenExpired` or `invalidArguments`, never
/// silently misread (decision 0003).
public final class CKServerChangeToken: NSObject, NSCopying, NSSecureCoding, Codable, @unchecked Sendable {
    /// The token's bytes: what stratusd sends as a `syncToken` (decision 0012.9).
    package let data: Data

    /// The token whose bytes are `data`; the engine judges them when the token is used.
    package init(data: Data) {
        self.data = data
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKServerChangeToken)?.data == data
    }

    public override var hash: Int { data.hashValue }

    public override var description: String {
        "<CKServerChangeToken: \(data.base64EncodedString())>"
    }

    /// A copy of the object.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(data as NSData, forKey: "ChangeTokenData")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "ChangeTokenData") else { return nil }
        self.data = data as Data
    }

    private enum CodingKeys: String, CodingKey { case data }

    /// Encodes the value with `encoder`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data, forKey: .data)
    }

    /// Decodes a value encoded with `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decode(Data.self, forKey: .data)
    }
}
