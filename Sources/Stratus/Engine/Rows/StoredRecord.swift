import Foundation

/// A record as stored, inside its live change-log entry (`ChangeEntry`, decision 0008).
struct StoredRecord: Sendable {
    var recordType: String
    /// The position of the record's latest change in its zone's change log.
    var position: Int64
    var changeTag: String
    var creationDate: Double
    var modificationDate: Double
    var creatorUserRecordName: String
    var lastModifiedUserRecordName: String
    var parent: ReferenceValue?
    var fields: FieldTable

    init(
        recordType: String, position: Int64, changeTag: String, creationDate: Double,
        modificationDate: Double, creator: String, modifier: String, parent: ReferenceValue?,
        fields: FieldTable
    ) {
        self.recordType = recordType
        self.position = position
        self.changeTag = changeTag
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.creatorUserRecordName = creator
        self.lastModifiedUserRecordName = modifier
        self.parent = parent
        self.fields = fields
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        write(to: &w)
        return w.bytes
    }

    /// Appends the record's binary form to `w`.
    func write(to w: inout ByteWriter) {
        w.write(UInt8(1))
        w.write(recordType)
        w.write(position)
        w.write(changeTag)
        w.write(creationDate)
        w.write(modificationDate)
        w.write(creatorUserRecordName)
        w.write(lastModifiedUserRecordName)
        if let parent {
            w.write(UInt8(1))
            FieldValueCodec.write(.reference(parent), to: &w)
        } else {
            w.write(UInt8(0))
        }
        w.writeVarint(fields.count)
        for (name, value) in fields {
            w.write(name)
            FieldValueCodec.write(value, to: &w)
        }
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        var strings = RepeatedStrings()
        try self.init(reading: &r, strings: &strings)
    }

    /// The strings that repeat from record to record of a batch (the type, the user record
    /// names, the field names), as last decoded: a batch decoded with one of these shares
    /// them instead of allocating them again for every record.
    struct RepeatedStrings {
        var recordType = ""
        var creator = ""
        var modifier = ""
        /// The field names by their place in the record (fields are written sorted by name).
        var fieldNames: [String] = []
        /// Whether each of `fieldNames` is ASCII, found once per new name.
        var fieldNameIsASCII: [Bool] = []
    }

    /// Reads a record written by `write(to:)`, sharing the strings it has in common with the
    /// records read before it with `strings`.
    init(reading r: inout ByteReader, strings: inout RepeatedStrings) throws {
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        recordType = try r.readString(reusing: &strings.recordType)
        position = try r.readInt64()
        changeTag = try r.readString()
        creationDate = try r.readDouble()
        modificationDate = try r.readDouble()
        creatorUserRecordName = try r.readString(reusing: &strings.creator)
        lastModifiedUserRecordName = try r.readString(reusing: &strings.modifier)
        if try r.readByte() == 1 {
            guard case .reference(let parent) = try FieldValueCodec.read(from: &r) else {
                throw EngineError.corruptValue
            }
            self.parent = parent
        } else {
            parent = nil
        }
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        var names: [String] = []
        var values: [FieldValue] = []
        names.reserveCapacity(count)
        values.reserveCapacity(count)
        var sortedASCII = true
        for index in 0..<count {
            if index == strings.fieldNames.count {
                strings.fieldNames.append("")
                strings.fieldNameIsASCII.append(true)
            }
            var changed = false
            let name = try r.readString(reusing: &strings.fieldNames[index], changed: &changed)
            if changed { strings.fieldNameIsASCII[index] = FieldTable.isASCII(name) }
            if !strings.fieldNameIsASCII[index] { sortedASCII = false }
            if let last = names.last, !(last < name) { sortedASCII = false }
            names.append(name)
            values.append(try FieldValueCodec.read(from: &r))
        }
        fields = FieldTable(decoded: names, values, sortedASCII: sortedASCII)
    }

    /// About the size of `write(to:)`'s output (a little more), so that a writer can be sized
    /// once: fixed fields, strings, and each field's name and value with room for tags.
    var estimatedEncodedSize: Int {
        var size = 64 + recordType.utf8.count + changeTag.utf8.count + creatorUserRecordName.utf8.count
        size += lastModifiedUserRecordName.utf8.count + (parent == nil ? 0 : 96)
        for (name, value) in fields { size += name.utf8.count + value.storageSize + 24 }
        return size
    }

    /// The size that counts toward the 1 MB limit.
    var dataSize: Int { fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageSize } }
}
