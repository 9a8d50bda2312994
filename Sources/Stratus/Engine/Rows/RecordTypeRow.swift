/// The just-in-time schema of one record type: `DatabaseKeys.recordType(name)`.
struct RecordTypeRow: Sendable {
    struct Field: Sendable {
        var number: Int64
        var type: SchemaType
        /// Whether the value index of this field has been built (it is built the first time a
        /// query sorts by the field, then maintained on every save).
        var indexed: Bool
    }
    var number: Int64
    var fields: [String: Field] = [:]
    var nextFieldNumber: Int64 = 1

    init(number: Int64) { self.number = number }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(number)
        w.write(nextFieldNumber)
        w.writeVarint(fields.count)
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            w.write(name)
            w.write(field.number)
            w.write(field.type.rawValue)
            w.write(field.indexed ? UInt8(1) : 0)
        }
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        number = try r.readInt64()
        nextFieldNumber = try r.readInt64()
        let count = try r.readVarint()
        for _ in 0..<count {
            let name = try r.readString()
            let number = try r.readInt64()
            guard let type = SchemaType(rawValue: try r.readByte()) else {
                throw EngineError.corruptValue
            }
            fields[name] = Field(number: number, type: type, indexed: try r.readByte() == 1)
        }
    }
}
