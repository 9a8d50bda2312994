import StratusBackend
import StratusSchema

/// cktool's schema verbs on the engine (decision 0020.7): the schema of a container ×
/// environment, importing one, resetting development; and building the indexes a schema
/// declares (0020.8).
extension Engine {
    /// The schema of `scope` (empty when nothing was saved or imported there).
    package func schema(of scope: SchemaScope) throws -> CloudKitSchema {
        try read { try environmentSchema(scope, $0) }
    }

    /// Replaces the schema of `scope` with `schema` and returns what changed. As CloudKit does,
    /// the change is checked against the *production* schema in either environment: a removed
    /// record type or field, or a changed field type, refuses the whole import.
    ///
    /// - Throws: `invalidArguments` whose message lists, one per line, every problem of the
    ///   schema or every change production refuses; a store failure as a `CKError`.
    @discardableResult
    package func importSchema(_ schema: CloudKitSchema, into scope: SchemaScope) throws -> [SchemaChange] {
        let problems = schema.problems
        guard problems.isEmpty else {
            throw CKError.make(.invalidArguments, problems.joined(separator: "\n"))
        }
        return try write { txn in
            let production = try environmentSchema(scope.production, txn)
            let refused = CloudKitSchema.productionViolations(from: production, to: schema)
            guard refused.isEmpty else {
                throw CKError.make(.invalidArguments, refused.map(\.message).joined(separator: "\n"))
            }
            let current = try environmentSchema(scope, txn)
            try storeEnvironmentSchema(schema, scope, txn)
            try markIndexBuildsPending(scope, txn)
            return CloudKitSchema.changes(from: current, to: schema)
        }
    }

    /// Resets the development environment of `scope`'s container, as cktool's `reset-schema`
    /// does: its schema becomes production's and every record, zone and subscription of its
    /// databases (the embedded container's and every namespace's) is deleted.
    ///
    /// - Throws: `invalidArguments` for a production scope.
    package func resetSchema(_ scope: SchemaScope) throws {
        guard scope.growsJustInTime else {
            throw CKError.make(
                .invalidArguments,
                "only the development environment can be reset; production's schema and data stay (decision 0020.7)")
        }
        try write { txn in
            let production = try environmentSchema(scope.production, txn)
            if production.recordTypes.isEmpty && production.roles.isEmpty {
                try txn.clear(scope.key)
            } else {
                try storeEnvironmentSchema(production, scope, txn)
            }
            for number in try databaseNumbers(of: scope, txn) {
                try txn.clearRange(OrderedKey([StoreLayout.databaseTag]).appending(number).range)
            }
        }
    }

    /// The numbers of every database directory of `scope`: the embedded container's, if it
    /// was used, and every namespace's (decision 0020.2).
    func databaseNumbers(of scope: SchemaScope, _ txn: any BackendReadTransaction) throws -> [Int64] {
        var numbers: [Int64] = []
        if let bytes = try txn.get(StoreLayout.containerKey(scope.container, environment: scope.environment)) {
            var r = ByteReader(bytes)
            numbers.append(try r.readInt64())
        }
        var range = OrderedKey([StoreLayout.namespaceTag]).appending(scope.container)
            .appending(scope.environment.rawValue).range
        while true {
            let page = try txn.scan(range, limit: 256)
            for pair in page {
                var r = ByteReader(pair.value)
                numbers.append(try r.readInt64())
            }
            guard let last = page.last, page.count == 256 else { break }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
        return numbers
    }

    /// Builds, in every database of `scope`, the indexes its schema declares for the fields
    /// the database's records carry (decision 0020.8), each in bounded batches (0019.7):
    /// writers and queries wait at most one batch. Clears the import's mark
    /// (``PendingIndexBuilds``) when done. Returns how many indexes were built.
    @discardableResult
    package func buildDeclaredIndexes(_ scope: SchemaScope) throws -> Int {
        let marked = try pendingIndexBuilds(of: scope)
        let pending = try pendingIndexes(scope)
        for index in pending {
            while try !buildIndexBatch(index) {}
        }
        if let marked { try finishIndexBuilds(marked) }
        return pending.count
    }
}

extension SchemaScope {
    /// The production environment of the same container.
    var production: SchemaScope { SchemaScope(container: container, environment: .production) }
}

extension DatabaseContext {
    /// The indexes `schema` declares for the record types and fields this database has that
    /// are not ready, by record type and field name: the value and match indexes of its
    /// fields, and the token index of a type with a `SEARCHABLE` field.
    func unbuiltDeclaredIndexes(_ schema: CloudKitSchema, _ txn: any BackendReadTransaction) throws
        -> [(recordType: String, field: String, index: QueryPlan.Index)]
    {
        var unbuilt: [(recordType: String, field: String, index: QueryPlan.Index)] = []
        for (typeName, declared) in schema.recordTypes.sorted(by: { $0.key < $1.key }) {
            guard let row = try loadRecordType(typeName, txn) else { continue }
            for (fieldName, field) in declared.fields.sorted(by: { $0.key < $1.key }) {
                let type = row.fields[fieldName]?.type ?? (field.isSystemField ? SchemaType.timestamp : nil)
                guard let type else { continue }
                for index in Self.declaredIndexes(field, type: type) where row.fields[fieldName]?.isReady(index) != true
                {
                    unbuilt.append((typeName, fieldName, index))
                }
            }
            // SEARCHABLE: the type's token index, of every searchable string of its records.
            let tokens = IndexValue.tokensField
            if declared.fields.values.contains(where: { $0.indexes.contains(.searchable) }),
                row.fields[tokens]?.isReady(.match) != true
            {
                unbuilt.append((typeName, tokens, .match))
            }
        }
        return unbuilt
    }

    /// The engine's indexes a declared field keeps, given the type its values have in this
    /// database: the value index for `QUERYABLE` or `SORTABLE` single values that have an
    /// order, and the match index for a `QUERYABLE` string or list (decision 0019.2, .5).
    /// System fields: the value index of `___createTime` and `___modTime`.
    static func declaredIndexes(_ field: SchemaField, type: SchemaType) -> [QueryPlan.Index] {
        var indexes: [QueryPlan.Index] = []
        if field.isSystemField {
            let dates = ["___createTime", "___modTime"].contains(field.name)
            return dates && !field.indexes.isDisjoint(with: [.queryable, .sortable]) ? [.value] : []
        }
        if !field.indexes.isDisjoint(with: [.queryable, .sortable]) && IndexValue.isSortable(type) {
            indexes.append(.value)
        }
        if field.indexes.contains(.queryable) && (type == .string || type.isList) { indexes.append(.match) }
        return indexes
    }
}

/// The schema verbs for one database's container × environment, for the `stratus` tool and
/// stratusd (decision 0020.7).
extension DatabaseContext {
    /// The schema of this database's container × environment.
    package func environmentSchema() throws -> CloudKitSchema { try engine.schema(of: schemaScope) }

    /// Imports `schema` into this database's container × environment
    /// (``Engine/importSchema(_:into:)``).
    @discardableResult
    package func importSchema(_ schema: CloudKitSchema) throws -> [SchemaChange] {
        try engine.importSchema(schema, into: schemaScope)
    }

    /// Resets this database's container's development environment (``Engine/resetSchema(_:)``).
    package func resetSchema() throws { try engine.resetSchema(schemaScope) }

    /// Builds the declared indexes in every database of the environment
    /// (``Engine/buildDeclaredIndexes(_:)``); how many were built.
    @discardableResult
    package func buildDeclaredIndexes() throws -> Int { try engine.buildDeclaredIndexes(schemaScope) }

    /// How many declared indexes of the environment's databases a builder still has to build
    /// (``Engine/pendingIndexCount(_:)``): 0 from one key once no import's builds are left.
    package func pendingDeclaredIndexes() throws -> Int { try engine.pendingIndexCount(schemaScope) }
}
