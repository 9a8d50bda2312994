public import Foundation

extension CKRecord {
    /// What happens to a record when the record its reference points at is deleted.
    public enum ReferenceAction: UInt, BitwiseCopyable, Sendable {
        /// Nothing: the reference keeps pointing at the deleted record's ID.
        case none = 0
        /// The referring record is deleted too (in a custom zone, in the same commit).
        case deleteSelf = 1
    }

    /// A reference from one record to another in the same zone.
    public typealias Reference = CKReference
}

/// A reference from one record to another in the same zone (`CKRecord.Reference` in Swift); a
/// top-level class so that `NSKeyedArchiver` can archive it on Linux.
public final class CKReference: NSObject, NSCopying, NSSecureCoding, CKRecordValueProtocol, @unchecked Sendable {
    /// What happens to the referring record when the target is deleted (Apple's nested name).
    public typealias Action = CKRecord.ReferenceAction

    /// The ID of the record pointed at.
    public let recordID: CKRecord.ID
    /// What happens to the referring record when the target is deleted.
    public let action: CKRecord.ReferenceAction

    /// A reference to `recordID`.
    public init(recordID: CKRecord.ID, action: CKRecord.ReferenceAction) {
        self.recordID = recordID
        self.action = action
    }

    /// A reference to `record`.
    public convenience init(record: CKRecord, action: CKRecord.ReferenceAction) {
        self.init(recordID: record.recordID, action: action)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKReference else { return false }
        return recordID == other.recordID && action == other.action
    }

    public override var hash: Int { recordID.hash }

    public override var description: String {
        "<CKReference: recordID=\(recordID.recordName), action=\(action == .none ? "none" : "deleteSelf")>"
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the object with `coder`.
    public func encode(with coder: NSCoder) {
        coder.encode(recordID, forKey: "RecordID")
        coder.encode(Int64(action.rawValue), forKey: "Action")
    }

    /// Re-creates an object archived with `encode(with:)`.
    public init?(coder: NSCoder) {
        guard let recordID = coder.decodeObject(of: CKRecord.ID.self, forKey: "RecordID") else {
            return nil
        }
        self.recordID = recordID
        self.action = CKRecord.ReferenceAction(rawValue: UInt(coder.decodeInt64(forKey: "Action"))) ?? .none
    }
}

extension CKReference {
    /// The same object: it is immutable, so a copy is indistinguishable from it.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
