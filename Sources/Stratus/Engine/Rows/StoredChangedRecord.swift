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
/// the one fetched).
package struct StoredChangedRecord: Sendable {
    package let recordName: String
    private let stored: StoredRecord
    /// The fetched fields (`desiredKeys` applied), as ``CKRecord/storedFields`` would give them.
    package let fieldNames: [String]
    package let fieldValues: [FieldValue]

    init(recordName: String, stored: StoredRecord, fields: FieldTable) {
        self.recordName = recordName
        self.stored = stored
        self.fieldNames = fields.keys
        self.fieldValues = fields.values
    }

    package var recordType: String { stored.recordType }
    package var recordChangeTag: String { stored.changeTag }
    package var creationDate: Date { Date(timeIntervalSinceReferenceDate: stored.creationDate) }
    package var modificationDate: Date { Date(timeIntervalSinceReferenceDate: stored.modificationDate) }
    package var creatorUserRecordName: String { stored.creatorUserRecordName }
    package var lastModifiedUserRecordName: String { stored.lastModifiedUserRecordName }
    /// The parent reference, as ``CKRecord/parent`` gives it.
    package var parent: CKRecord.Reference? {
        stored.parent.flatMap { FieldValue.reference($0).recordValue as? CKRecord.Reference }
    }
}
