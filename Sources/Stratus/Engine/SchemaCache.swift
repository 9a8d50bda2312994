import StratusBackend
import StratusSchema

/// The just-in-time schema as one transaction sees and extends it: a field's type is fixed by
/// its first save, and later saves must match it (decision 0004).
struct SchemaCache {
    let context: DatabaseContext
    private var rows: [String: RecordTypeRow] = [:]
    private var dirty: Set<String> = []
    private var nextTypeNumber: Int64?
    /// Rows read ahead with the write's other first reads (``PreloadedRows``).
    private let preloaded: PreloadedRows?
    /// The environment's schema, once this transaction needed it (decision 0020).
    private var environment: CloudKitSchema?
    /// Whether this transaction added to the environment's schema.
    private var environmentChanged = false
    /// The record type, field names and value types of the last fields admitted: a save of
    /// the same shape as the one before it (most saves of a batch) is admitted without a
    /// lookup per field. Admitting the same names and types again changes nothing, so this
    /// holds for as long as the cache's rows do (it is copied and restored with them).
    private var lastAdmitted: (recordType: String, names: [String], types: [SchemaType])?

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
    /// `invalidArguments` naming the field whose type does not match. A new record type or
    /// field of this database is checked against, and in development added to, the
    /// environment's schema (decision 0020.5); a field this database already has was admitted
    /// by it before, so the common save reads nothing more.
    mutating func admit(
        recordType: String, fields: FieldTable, recordName: String, _ txn: any BackendReadTransaction
    ) throws {
        if admittedBefore(recordType, fields) { return }
        try admitEachField(recordType: recordType, fields: fields, txn)
        lastAdmitted = (recordType, fields.keys, fields.values.map(\.schemaType))
    }

    /// Whether `fields` have the names and value types of the last fields admitted for
    /// `recordType` (compared in place: names as strings, not hashed).
    private func admittedBefore(_ recordType: String, _ fields: FieldTable) -> Bool {
        guard let last = lastAdmitted, last.recordType == recordType, last.names == fields.keys else { return false }
        for (value, type) in zip(fields.values, last.types) where value.schemaType != type { return false }
        return true
    }

    /// ``admit(recordType:fields:recordName:_:)`` field by field against the type's row.
    private mutating func admitEachField(
        recordType: String, fields: FieldTable, _ txn: any BackendReadTransaction
    ) throws {
        let existing = try existingRow(recordType, txn)
        var row = existing ?? RecordTypeRow(number: 0)
        var added: [(String, SchemaType)] = []
        for (name, value) in fields {
            let type = value.schemaType
            if var field = row.fields[name] {
                if field.type.accepts(type) { continue }
                if field.type == .emptyList && type.isList {
                    field.type = type
                    row.fields[name] = field
                    added.append((name, type))
                    continue
                }
                throw try wrongType(type, field: name, of: recordType, stored: field.type, txn)
            }
            row.fields[name] = RecordTypeRow.Field(number: row.nextFieldNumber, type: type, indexed: false)
            row.nextFieldNumber += 1
            added.append((name, type))
        }
        guard existing == nil || !added.isEmpty else { return }
        try admitToEnvironment(recordType, added, txn)
        if !context.schemaScope.growsJustInTime, let declared = environment?.recordTypes[recordType] {
            for (name, _) in added { Self.readyDeclaredIndexes(of: name, in: &row, declared: declared.fields[name]) }
            if existing == nil { Self.readyTokenIndex(in: &row, declared: declared) }
        }
        if existing == nil { row.number = try self.row(recordType, txn).number }
        rows[recordType] = row
        dirty.insert(recordType)
    }

    /// CloudKit's error for a value of `type` in a field this database has with `stored`
    /// values, naming the type the environment's schema declares when it has the field.
    private mutating func wrongType(
        _ type: SchemaType, field: String, of recordType: String, stored: SchemaType,
        _ txn: any BackendReadTransaction
    ) throws -> CKError {
        let schema = try environment ?? context.engine.environmentSchema(context.schemaScope, txn)
        environment = schema
        let declared = schema.recordTypes[recordType]?.fields[field]?.type ?? stored.schemaFieldType
        return SchemaViolation.wrongType(type, field: field, of: recordType, defined: declared?.text ?? stored.name)
    }

    /// Checks a record type new to this database and fields new to its type against the
    /// environment's schema; in development adds what it lacks (decision 0020.5).
    private mutating func admitToEnvironment(
        _ recordType: String, _ added: [(String, SchemaType)], _ txn: any BackendReadTransaction
    ) throws {
        let scope = context.schemaScope
        var schema = try environment ?? context.engine.environmentSchema(scope, txn)
        environment = schema
        var type: SchemaRecordType
        var changed = false
        if let existing = schema.recordTypes[recordType] {
            type = existing
        } else {
            guard scope.growsJustInTime else { throw SchemaViolation.newType(recordType) }
            type = SchemaRecordType(name: recordType)
            changed = true
        }
        for (name, valueType) in added {
            if let field = type.fields[name] {
                guard field.type.accepts(valueType) else {
                    throw SchemaViolation.wrongType(valueType, field: name, of: recordType, defined: field.type.text)
                }
                continue
            }
            guard scope.growsJustInTime else { throw SchemaViolation.newField(name, of: recordType) }
            // An empty list's element type is not known yet: the field joins with its first element.
            guard let fieldType = valueType.schemaFieldType else { continue }
            type.fields[name] = .justInTime(name: name, type: fieldType)
            changed = true
        }
        guard changed else { return }
        schema.recordTypes[recordType] = type
        environment = schema
        environmentChanged = true
    }

    /// Makes the indexes a production schema declares for `field`, new to this database's
    /// `row`, ready (decision 0020.8): no record of the database carries the field yet, so
    /// they are complete while empty, and every save maintains them from now on.
    private static func readyDeclaredIndexes(of name: String, in row: inout RecordTypeRow, declared: SchemaField?) {
        guard let declared, var field = row.fields[name] else { return }
        for index in DatabaseContext.declaredIndexes(declared, type: field.type) {
            switch index {
            case .value where !field.isMaintained(.value):
                field.indexed = true
            case .match where field.matchIndex == nil:
                field.matchIndex = row.nextFieldNumber
                row.nextFieldNumber += 1
            default: break
            }
        }
        row.fields[name] = field
    }

    /// Makes the token index (`self CONTAINS`) ready in the `row` of a type new to this
    /// database when the production schema declares a `SEARCHABLE` field of it: no record
    /// has been saved yet, so it is complete while empty (decision 0020.8).
    private static func readyTokenIndex(in row: inout RecordTypeRow, declared: SchemaRecordType) {
        guard declared.fields.values.contains(where: { $0.indexes.contains(.searchable) }) else { return }
        // The pseudo-field is numbered as an index build numbers it (DatabaseContext+Indexes).
        var field = RecordTypeRow.Field(number: row.nextFieldNumber, type: .timestamp, indexed: false)
        field.matchIndex = row.nextFieldNumber + 1
        row.nextFieldNumber += 2
        row.fields[IndexValue.tokensField] = field
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
        if environmentChanged, let environment {
            try context.engine.storeEnvironmentSchema(environment, context.schemaScope, txn)
        }
        if let nextTypeNumber {
            var w = ByteWriter()
            w.write(nextTypeNumber)
            try txn.set(counterKey, w.bytes)
        }
    }
}
