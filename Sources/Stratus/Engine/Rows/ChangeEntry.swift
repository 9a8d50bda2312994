/// One entry of a zone's change log: `DatabaseKeys.change(zone, position)`. Each record has at
/// most one entry, at the position of its latest change (decision 0008): a live record's entry
/// carries the whole record, a deleted record's entry is its tombstone (name and type).
///
/// Encoding: the record name, then the deleted type as an optional string (1 and the type for
/// a tombstone, 0 for a live record), then for a live record the `StoredRecord`.
struct ChangeEntry: Sendable {
    var recordName: String
    /// For a deletion, the deleted record's type; `nil` for a live record.
    var deletedRecordType: String?
    /// For a live record, the record; `nil` for a deletion.
    var record: StoredRecord?

    /// A live record's entry.
    init(recordName: String, record: StoredRecord) {
        self.recordName = recordName
        self.deletedRecordType = nil
        self.record = record
    }

    /// A deleted record's entry (its tombstone).
    init(recordName: String, deletedRecordType: String) {
        self.recordName = recordName
        self.deletedRecordType = deletedRecordType
        self.record = nil
    }

    /// The entry's bytes: counted first, then written into an array of exactly that size (no
    /// estimate, no growth, no per-append checks of an array).
    func encoded() -> [UInt8] {
        var counter = ByteCounter()
        write(to: &counter)
        return FixedByteWriter.bytes(size: counter.count) { write(to: &$0) }
    }

    /// Appends the entry's binary form to `w`.
    func write(to w: inout some ByteSink) {
        w.write(recordName)
        w.write(optional: deletedRecordType)
        record?.write(to: &w)
    }

    init(decoding bytes: [UInt8]) throws {
        var strings = StoredRecord.RepeatedStrings()
        try self.init(decoding: bytes, strings: &strings)
    }

    /// Decodes one entry of a batch, sharing the strings it has in common with the entries
    /// decoded before it with `strings`.
    init(decoding bytes: [UInt8], strings: inout StoredRecord.RepeatedStrings) throws {
        var r = ByteReader(bytes)
        try self.init(reading: &r, strings: &strings)
    }

    /// Reads one entry of a batch from `r` (the entry's bytes, not necessarily in an array),
    /// sharing the strings it has in common with the entries read before it with `strings`.
    init(reading r: inout some ByteReading, strings: inout StoredRecord.RepeatedStrings) throws {
        recordName = try r.readString()
        deletedRecordType = try r.readOptionalString()
        record = deletedRecordType == nil ? try StoredRecord(reading: &r, strings: &strings) : nil
    }

    /// The live record an entry holds; a tombstone entry here means a damaged store (the
    /// record's pointer said it was live).
    static func liveRecord(_ bytes: [UInt8]) throws -> StoredRecord {
        var strings = StoredRecord.RepeatedStrings()
        return try liveRecord(bytes, strings: &strings)
    }

    /// `liveRecord(_:)` for one entry of a batch, sharing the strings it has in common with
    /// the entries decoded before it with `strings`.
    static func liveRecord(_ bytes: [UInt8], strings: inout StoredRecord.RepeatedStrings) throws -> StoredRecord {
        guard let record = try ChangeEntry(decoding: bytes, strings: &strings).record else {
            throw EngineError.corruptValue
        }
        return record
    }
}

/// One entry of the database change log: `DatabaseKeys.databaseChange(position)`.
package struct DatabaseChangeEntry: Sendable {
    package enum Kind: UInt8, Sendable {
        case changed = 1
        case deleted, purged, encryptedDataReset
    }
    var zoneName: String
    var ownerName: String
    var kind: Kind

    init(zoneName: String, ownerName: String, kind: Kind) {
        self.zoneName = zoneName
        self.ownerName = ownerName
        self.kind = kind
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(zoneName)
        w.write(ownerName)
        w.write(kind.rawValue)
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        zoneName = try r.readString()
        ownerName = try r.readString()
        guard let kind = Kind(rawValue: try r.readByte()) else { throw EngineError.corruptValue }
        self.kind = kind
    }
}
