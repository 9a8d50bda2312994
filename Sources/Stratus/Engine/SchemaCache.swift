import StratusBackend

/// The just-in-time schema as one transaction sees and extends it: a field's type is fixed by
/// its first save, and later saves must match it (decision 0004).
struct SchemaCache {
    let context: DatabaseContext
    private var rows: [String: RecordTypeRow] = [:]
    private var dirty: Set<String> = []
    private var nextTypeNumber: Int64?
    /// Rows read ahead with the write's other first reads (``PreloadedRows``).
    private let preloaded: PreloadedRows?

    init(context: DatabaseContext, preloaded: PreloadedRows? = nil) {
        self.context = context
        self.preloaded = preloaded
    }

    private var counterKey: [UInt8] { context.keys.prefix.appending(tag: 0x31).bytes }

    /// The type's row if the type exists (in the store or earlier in this transaction).
    mutating func existingRow(_ name: String, _ txn: any BackendReadTransaction) throws -> RecordTypeRow? {
        if let row = rows[name] { return row }
        guard let row = try context.loadRecordType(name, txn, preloaded: preloaded) else { return nil }
        rows[name] = row
        return row
    }

    /// The type's row, created if needed.
    mutating func row(_ name: String, _ txn: any BackendReadTransaction) throws -> RecordTypeRow {
        if let row = try existingRow(name, txn) { return row }
        if nextTypeNumber == nil {
            if let bytes = try txn.get(counterKey) {
                var r = ByteReader(bytes)
                nextTypeNumber = try r.readInt64()
            } else {
                nextTypeNumber = 1
            }
        }
        let row = RecordTypeRow(number: nextTypeNumber!)
        nextTypeNumber! += 1
        rows[name] = row
        dirty.insert(name)
        return row
    }

    /// Checks `fields` against the type's schema and adds the new fields; throws
    /// `invalidArguments` naming the field whose type does not match.
    mutating func admit(
        recordType: String, fields: FieldTable, recordName: String, _ txn: any BackendReadTransaction
    ) throws {
        var row = try row(recordType, txn)
        var changed = false
        for (name, value) in fields {
            let type = value.schemaType
            if var field = row.fields[name] {
                if field.type.accepts(type) { continue }
                if field.type == .emptyList && type.isList {
                    field.type = type
                    row.fields[name] = field
                    changed = true
                    continue
                }
                throw CKError.make(
                    .invalidArguments,
                    "invalid value for field '\(name)' of record '\(recordName)': type \(recordType).\(name) is \(field.type.name), the value is \(type.name)"
                )
            }
            row.fields[name] = RecordTypeRow.Field(number: row.nextFieldNumber, type: type, indexed: false)
            row.nextFieldNumber += 1
            changed = true
        }
        if changed {
            rows[recordType] = row
            dirty.insert(recordType)
        }
    }

    /// Replaces the cached row (after an index was built).
    mutating func update(_ name: String, _ row: RecordTypeRow) {
        rows[name] = row
        dirty.insert(name)
    }

    /// Writes what this transaction added.
    func flush(_ txn: any BackendWriteTransaction) throws {
        for name in dirty {
            guard let row = rows[name] else { continue }
            try txn.set(context.keys.recordType(name), row.encoded())
        }
        if let nextTypeNumber {
            var w = ByteWriter()
            w.write(nextTypeNumber)
            try txn.set(counterKey, w.bytes)
        }
    }
}
