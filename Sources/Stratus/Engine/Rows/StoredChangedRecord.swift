import Foundation

/// One batch of a zone's changes in change-log order, each change as `Change`: the engine's
/// records (``ZoneChangesBatch``) or the stored ones (``StoredZoneChangesBatch``).
package struct ZoneChangesPage<Change: Sendable>: Sendable {
    package var changes: [Change]
    package var token: CKServerChangeToken
    package var moreComing: Bool
    package var clientChangeTokenData: Data?
    /// The bytes of change-log entries the batch read (its share of a byte budget).
    package var bytesRead = 0
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

/// A batch of a zone's changes with each live record as its change-log entry's bytes
/// (``DatabaseContext/fetchRawZoneChanges(_:since:limit:)``).
package typealias RawZoneChangesBatch = ZoneChangesPage<RawZoneChange>

/// One change of a ``RawZoneChangesBatch``.
package enum RawZoneChange: Sendable {
    /// A live record.
    case changed(RawChangedRecord)
    /// A deleted record's name and record type.
    case deleted(recordName: String, recordType: String)

    /// The change an entry's bytes (`ChangeEntry.encoded()`) hold; `nil` for a deletion when
    /// deletions are not reported.
    init?(entry bytes: [UInt8], reportsDeletions: Bool) throws {
        var r = ByteReader(bytes)
        try r.skipCounted()  // the record's name
        let nameEnd = r.offset
        if try r.readByte() != 0 {
            guard reportsDeletions else { return nil }
            let entry = try ChangeEntry(decoding: bytes)
            self = .deleted(recordName: entry.recordName, recordType: entry.deletedRecordType ?? "")
            return
        }
        let containsAsset = try StoredRecord.skim(&r)
        guard r.isAtEnd else { throw EngineError.corruptValue }
        self = .changed(RawChangedRecord(entry: bytes, nameEnd: nameEnd, containsAsset: containsAsset))
    }
}

/// A live record as its change-log entry's bytes: its name, a "no deletion" byte, its stored
/// form (`ChangeEntry.encoded()`). The binary record encoding's record is the same without
/// that byte (what `RecordWireWriter` writes for it).
package struct RawChangedRecord: Sendable {
    /// The entry's bytes.
    let entry: [UInt8]
    /// Where the name ends (the "no deletion" byte).
    let nameEnd: Int
    /// Whether a field holds an asset (the binary encoding carries none).
    package let containsAsset: Bool
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
