import Foundation

/// One batch of a zone's changes in change-log order, each change as `Change`: the engine's
/// records (``ZoneChangesBatch``) or the stored ones (``StoredZoneChangesBatch``).
package struct ZoneChangesPage<Change: Sendable>: Sendable {
    package var changes: [Change]
    package var token: CKServerChangeToken
    package var moreComing: Bool
    package var clientChangeTokenData: Data?
}

/// A batch of a zone's changes as the change log stores them
/// (``DatabaseContext/fetchStoredZoneChanges(_:since:limit:desiredKeys:)``).
package typealias StoredZoneChangesBatch = ZoneChangesPage<StoredZoneChange>

/// One change of a ``StoredZoneChangesBatch``.
package enum StoredZoneChange: Sendable {
    case changed(StoredChangedRecord)
    /// A deleted record's name and record type.
    case deleted(recordName: String, recordType: String)
}

/// A changed record as its change-log entry stores it, read without making a `CKRecord`:
/// each property is what the `CKRecord` of the same fetch would answer (the record's zone is
/// the one fetched). A class, so that a batch's writer passing it around retains it once
/// instead of each of its strings and arrays.
package final class StoredChangedRecord: Sendable {
    package let recordName: String
    package let recordType: String
    package let recordChangeTag: String
    let created: Double
    let modified: Double
    package let creatorUserRecordName: String
    package let lastModifiedUserRecordName: String
    let storedParent: ReferenceValue?
    /// The fetched fields (`desiredKeys` applied), as ``CKRecord/storedFields`` would give them.
    package let fieldNames: [String]
    package let fieldValues: [FieldValue]

    init(recordName: String, stored: StoredRecord, fields: FieldTable) {
        self.recordName = recordName
        self.recordType = stored.recordType
        self.recordChangeTag = stored.changeTag
        self.created = stored.creationDate
        self.modified = stored.modificationDate
        self.creatorUserRecordName = stored.creatorUserRecordName
        self.lastModifiedUserRecordName = stored.lastModifiedUserRecordName
        self.storedParent = stored.parent
        self.fieldNames = fields.keys
        self.fieldValues = fields.values
    }

    package var creationDate: Date { Date(timeIntervalSinceReferenceDate: created) }
    package var modificationDate: Date { Date(timeIntervalSinceReferenceDate: modified) }
    /// The parent reference, as ``CKRecord/parent`` gives it.
    package var parent: CKRecord.Reference? {
        storedParent.flatMap { FieldValue.reference($0).recordValue as? CKRecord.Reference }
    }
}
