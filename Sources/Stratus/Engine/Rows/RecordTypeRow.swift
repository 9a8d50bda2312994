/// The just-in-time schema of one record type: `DatabaseKeys.recordType(name)`.
struct RecordTypeRow: Sendable {
    struct Field: Sendable {
        var number: Int64
        var type: SchemaType
        /// Whether the value index of this field has been built (it is built the first time a
        /// query sorts by the field or is planned on it, then maintained on every save).
        var indexed: Bool
        /// The number of the field's match index once built: a string field's values folded,
        /// a list field's elements (decision 0019.5); `nil` until a query needs it.
        var matchIndex: Int64? = nil
    }
    var number: Int64
    var fields: [String: Field] = [:]
    var nextFieldNumber: Int64 = 1

    init(number: Int64) { self.number = number }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        // Version 1 until a match index exists: rows stay as they were for types without one.
        let version: UInt8 = fields.values.contains { $0.matchIndex != nil } ? 2 : 1
        w.write(version)
        w.write(number)
        w.write(nextFieldNumber)
        w.writeVarint(fields.count)
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            w.write(name)
            w.write(field.number)
            w.write(field.type.rawValue)
            w.write(field.indexed ? UInt8(1) : 0)
            if version == 2 { w.write(field.matchIndex ?? 0) }
        }
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        // Version 1 rows (before match indexes) lack each field's match-index number.
        let version = try r.readByte()
        guard version == 1 || version == 2 else { throw EngineError.corruptValue }
        number = try r.readInt64()
        nextFieldNumber = try r.readInt64()
        let count = try r.readVarint()
        for _ in 0..<count {
            let name = try r.readString()
            let number = try r.readInt64()
            guard let type = SchemaType(rawValue: try r.readByte()) else {
                throw EngineError.corruptValue
            }
            let indexed = try r.readByte() == 1
            let match = version == 2 ? try r.readInt64() : 0
            fields[name] = Field(number: number, type: type, indexed: indexed, matchIndex: match == 0 ? nil : match)
        }
    }
}
