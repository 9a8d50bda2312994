public import Foundation

extension CKRecord {
    /// A record's identity: its name and its zone. Unique within a database.
    public typealias ID = CKRecordID
}

/// A record's identity: its name and its zone (`CKRecord.ID` in Swift); a top-level class so
/// that `NSKeyedArchiver` can archive it on Linux.
public final class CKRecordID: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The record's name.
    public let recordName: String
    /// The record's zone.
    public let zoneID: CKRecordZone.ID

    /// A record ID; by default a new UUID name in the default zone.
    public init(recordName: String = UUID().uuidString, zoneID: CKRecordZone.ID = CKRecordZone.ID.default) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    /// A record ID named `recordName` in the default zone.
    public convenience init(recordName: String) {
        self.init(recordName: recordName, zoneID: CKRecordZone.ID.default)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordID else { return false }
        return recordName == other.recordName && zoneID == other.zoneID
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(recordName)
        hasher.combine(zoneID.zoneName)
        hasher.combine(zoneID.ownerName)
        return hasher.finalize()
    }

    public override var description: String {
        "<CKRecordID: recordName=\(recordName), zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>"
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(recordName as NSString, forKey: "RecordName")
        coder.encode(zoneID, forKey: "ZoneID")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard
            let recordName = coder.decodeObject(of: NSString.self, forKey: "RecordName"),
            let zoneID = coder.decodeObject(of: CKRecordZone.ID.self, forKey: "ZoneID")
        else { return nil }
        self.recordName = recordName as String
        self.zoneID = zoneID
    }
}

extension CKRecordID {
    /// The same object: it is immutable, so a copy is indistinguishable from it.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
