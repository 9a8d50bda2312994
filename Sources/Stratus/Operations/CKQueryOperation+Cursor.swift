public import Foundation

extension CKQueryOperation {
    /// Where a query's results continue.
    public typealias Cursor = CKQueryCursor
}

/// Where a query's results continue (`CKQueryOperation.Cursor` in Swift). Pass it to a new
/// `CKQueryOperation(cursor:)`; the continuation stays in the original query's zone and ignores
/// any new `query`/`zoneID`. A top-level class so that `NSKeyedArchiver` can archive it on Linux.
public final class CKQueryCursor: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The authenticated position (decision 0003).
    let data: Data
    /// The original query.
    let query: CKQuery
    /// The original zone (`nil`: all zones).
    let zoneID: CKRecordZone.ID?

    init(data: Data, query: CKQuery, zoneID: CKRecordZone.ID?) {
        self.data = data
        self.query = query
        self.zoneID = zoneID
    }

    public override var description: String { "<CKQueryCursor: \(data.base64EncodedString())>" }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(data as NSData, forKey: "Data")
        coder.encode(query, forKey: "Query")
        if let zoneID { coder.encode(zoneID, forKey: "ZoneID") }
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard
            let data = coder.decodeObject(of: NSData.self, forKey: "Data"),
            let query = coder.decodeObject(of: CKQuery.self, forKey: "Query")
        else { return nil }
        self.data = data as Data
        self.query = query
        self.zoneID =
            coder.containsValue(forKey: "ZoneID") ? coder.decodeObject(of: CKRecordZone.ID.self, forKey: "ZoneID") : nil
    }
}

extension CKQueryCursor {
    /// The same object: it is immutable, so a copy is indistinguishable from it.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
