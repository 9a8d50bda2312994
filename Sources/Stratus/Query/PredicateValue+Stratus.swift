import Foundation
public import StratusPredicate

extension CKRecord.Reference: PredicateValueConvertible {
    /// The referenced record's ID, for predicates.
    public var predicateValue: PredicateValue { recordID.predicateValue }
}

extension CKRecord.ID: PredicateValueConvertible {
    /// The record ID, for predicates.
    public var predicateValue: PredicateValue {
        .reference(recordName: recordName, zoneName: zoneID.zoneName, ownerName: zoneID.ownerName)
    }
}

extension CKRecord: PredicateValueConvertible {
    /// The record's ID, for predicates (`owner == %@` with a record).
    public var predicateValue: PredicateValue { recordID.predicateValue }
}

extension CLLocation: PredicateValueConvertible {
    /// The location's coordinate, for predicates.
    public var predicateValue: PredicateValue {
        .location(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }
}

extension FieldValue {
    /// The value as a predicate sees it.
    var predicateValue: PredicateValue? {
        switch self {
        case .string(let s): return .string(s)
        case .integer(let v, .bool): return .bool(v != 0)
        case .integer(let v, _): return .int(v)
        case .double(let v, _): return .double(v)
        case .date(let d): return .date(d)
        case .bytes(let d): return .bytes(d)
        case .reference(let r):
            return .reference(recordName: r.recordName, zoneName: r.zoneName, ownerName: r.ownerName)
        case .location(let l): return .location(latitude: l.latitude, longitude: l.longitude)
        case .list(let items): return .list(items.compactMap(\.predicateValue))
        case .asset, .invalid: return nil
        }
    }
}

/// A stored record as a predicate subject, system fields included under their CloudKit names.
struct StoredRecordSubject: PredicateSubject {
    let record: StoredRecord
    let name: String
    let zoneID: CKRecordZone.ID

    func predicateValue(forKey key: String) -> PredicateValue? {
        switch key {
        case "recordID", "___recordID", "recordName":
            return .reference(recordName: name, zoneName: zoneID.zoneName, ownerName: zoneID.ownerName)
        case "creationDate", "___createTime":
            return .date(Date(timeIntervalSinceReferenceDate: record.creationDate))
        case "modificationDate", "___modTime":
            return .date(Date(timeIntervalSinceReferenceDate: record.modificationDate))
        case "creatorUserRecordID", "___createdBy":
            return .reference(
                recordName: record.creatorUserRecordName, zoneName: CKRecordZone.ID.defaultZoneName,
                ownerName: CKCurrentUserDefaultName)
        case "lastModifiedUserRecordID", "___modifiedBy":
            return .reference(
                recordName: record.lastModifiedUserRecordName, zoneName: CKRecordZone.ID.defaultZoneName,
                ownerName: CKCurrentUserDefaultName)
        case "parent", "___parent":
            return record.parent.map {
                .reference(recordName: $0.recordName, zoneName: $0.zoneName, ownerName: $0.ownerName)
            }
        default:
            return record.fields[key]?.predicateValue
        }
    }

    var searchableText: [String] { record.fields.values.flatMap(\.searchableStrings) }
}

// `%@` arguments of `NSPredicate(format:)`: on Linux only these conformances make the types
// `CVarArg`, as every `NSObject` is on Apple platforms.
extension CKRecord.Reference: PredicateArgumentObject {}
extension CKRecord.ID: PredicateArgumentObject {}
extension CKRecord: PredicateArgumentObject {}
extension CLLocation: PredicateArgumentObject {}
