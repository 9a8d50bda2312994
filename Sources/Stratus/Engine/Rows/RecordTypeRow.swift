/// The just-in-time schema of one record type: `DatabaseKeys.recordType(name)`.
struct RecordTypeRow: Sendable {
    struct Field: Sendable {
        var number: Int64
        var type: SchemaType
        /// Whether the value index of this field is ready (built, then maintained on every save).
        var indexed: Bool
        /// The number of the field's match index once its build began: a string field's values
        /// folded, a list field's elements (decision 0019.5); `nil` until a query needs it.
        var matchIndex: Int64? = nil
        /// Where the build of the value index has reached, while it is being built.
        var valueBuild: IndexBuildCursor? = nil
        /// Where the build of the match index has reached, while it is being built.
        var matchBuild: IndexBuildCursor? = nil

        /// Whether saves maintain the index: it is ready or being built (decision 0019.7).
        func isMaintained(_ index: QueryPlan.Index) -> Bool {
            index == .value ? indexed || valueBuild != nil : matchIndex != nil
        }

        /// Whether queries can read the index.
        func isReady(_ index: QueryPlan.Index) -> Bool {
            index == .value ? indexed : matchIndex != nil && matchBuild == nil
        }
    }
    var number: Int64
    var fields: [String: Field] = [:]
    var nextFieldNumber: Int64 = 1

    init(number: Int64) { self.number = number }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        // Version 1 until a field has a match index or a build under way: rows stay as they
        // were for the types without.
        let extended = fields.values.contains { $0.matchIndex != nil || $0.valueBuild != nil }
        w.write(extended ? UInt8(2) : 1)
        w.write(number)
        w.write(nextFieldNumber)
        w.writeVarint(fields.count)
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            w.write(name)
            w.write(field.number)
            w.write(field.type.rawValue)
            w.write(field.indexed ? UInt8(1) : 0)
            if extended {
                w.write(field.matchIndex ?? 0)
                IndexBuildCursor.write(field.valueBuild, to: &w)
                IndexBuildCursor.write(field.matchBuild, to: &w)
            }
        }
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
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
            var field = Field(number: number, type: type, indexed: try r.readByte() == 1)
            if version == 2 {
                let match = try r.readInt64()
                field.matchIndex = match == 0 ? nil : match
                field.valueBuild = try IndexBuildCursor.read(&r)
                field.matchBuild = try IndexBuildCursor.read(&r)
            }
            fields[name] = field
        }
    }
}

/// How far an index build has come (decision 0019.7): the change-log entries of zones before
/// `zone`, and of `zone` up to `position`, are indexed.
struct IndexBuildCursor: Sendable, Equatable {
    var zone: Int64
    var position: Int64

    static func write(_ cursor: IndexBuildCursor?, to w: inout ByteWriter) {
        guard let cursor else {
            w.write(UInt8(0))
            return
        }
        w.write(UInt8(1))
        w.write(cursor.zone)
        w.write(cursor.position)
    }

    static func read(_ r: inout ByteReader) throws -> IndexBuildCursor? {
        guard try r.readByte() == 1 else { return nil }
        return IndexBuildCursor(zone: try r.readInt64(), position: try r.readInt64())
    }
}
