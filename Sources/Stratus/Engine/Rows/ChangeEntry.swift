/// One entry of a zone's change log: `DatabaseKeys.change(zone, position)`. Each record has at
/// most one entry, at the position of its latest change; a deleted record's entry is its
/// tombstone.
struct ChangeEntry: Sendable {
    var recordName: String
    /// For a deletion, the deleted record's type; `nil` for a live record.
    var deletedRecordType: String?

    init(recordName: String, deletedRecordType: String?) {
        self.recordName = recordName
        self.deletedRecordType = deletedRecordType
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(recordName)
        w.write(optional: deletedRecordType)
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        recordName = try r.readString()
        deletedRecordType = try r.readOptionalString()
    }
}

/// A deleted record: `DatabaseKeys.tombstone(zone, name)`, pointing at its change entry.
struct Tombstone: Sendable {
    var recordType: String
    var position: Int64

    init(recordType: String, position: Int64) {
        self.recordType = recordType
        self.position = position
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(recordType)
        w.write(position)
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        recordType = try r.readString()
        position = try r.readInt64()
    }
}

/// One entry of the database change log: `DatabaseKeys.databaseChange(position)`.
struct DatabaseChangeEntry: Sendable {
    enum Kind: UInt8, Sendable {
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
