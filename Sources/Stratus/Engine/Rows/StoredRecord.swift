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
    func write(to w: inout some ByteSink) {
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
        // By index: the table's iterator would copy each name and value out as a pair.
        let names = fields.keys
        let values = fields.values
        for index in names.indices {
            w.write(names[index])
            FieldValueCodec.write(values[index], to: &w)
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
        /// The field names of the last record read (fields are written sorted by name). A
        /// record with the same names shares this array: no allocation, no comparisons.
        var fieldNames: [String] = []
        /// Whether each of `fieldNames` is ASCII, found once per new name.
        var fieldNameIsASCII: [Bool] = []
        /// Whether `fieldNames` are all ASCII and each after the one before (`FieldTable`'s
        /// `sortedASCII`); `nil` from the moment they change until it is found again (so a
        /// record whose reading failed half-way leaves it unknown, not wrong).
        var fieldNamesSortedASCII: Bool? = true
    }

    /// Reads a record written by `write(to:)`, sharing the strings it has in common with the
    /// records read before it with `strings`.
    init(reading r: inout some ByteReading, strings: inout RepeatedStrings) throws {
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
        var values: [FieldValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            if index == strings.fieldNames.count {
                strings.fieldNamesSortedASCII = nil
                strings.fieldNames.append("")
                strings.fieldNameIsASCII.append(true)
            }
            if let name = try r.readString(unlessEqualTo: strings.fieldNames[index]) {
                strings.fieldNamesSortedASCII = nil
                strings.fieldNames[index] = name
                strings.fieldNameIsASCII[index] = FieldTable.isASCII(name)
            }
            values.append(try FieldValueCodec.read(from: &r))
        }
        if strings.fieldNames.count > count {
            strings.fieldNamesSortedASCII = nil
            strings.fieldNames.removeLast(strings.fieldNames.count - count)
            strings.fieldNameIsASCII.removeLast(strings.fieldNameIsASCII.count - count)
        }
        let sortedASCII = strings.fieldNamesSortedASCII ?? Self.sortedASCII(strings)
        strings.fieldNamesSortedASCII = sortedASCII
        fields = FieldTable(decoded: strings.fieldNames, values, sortedASCII: sortedASCII)
    }

    /// Whether `strings.fieldNames` are all ASCII, each after the one before.
    private static func sortedASCII(_ strings: RepeatedStrings) -> Bool {
        guard !strings.fieldNameIsASCII.contains(false) else { return false }
        let names = strings.fieldNames
        return names.indices.dropFirst().allSatisfy { names[$0 - 1] < names[$0] }
    }

    /// The size that counts toward the 1 MB limit.
    var dataSize: Int { fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageSize } }
}
