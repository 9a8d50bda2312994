import StratusBackend

/// The declared indexes an import left to build in one container × environment (decision
/// 0020.8): the row `0C (container, environment)`, written by every import in the transaction
/// that stores the schema and cleared by the builder that built everything the schema of that
/// import (or a later one) declares. A builder — stratusd's background service, or the
/// `stratus` tool after its import — finds every environment with work left in one scan, after
/// a crash or restart too.
package struct PendingIndexBuilds: Sendable, Equatable {
    /// The container × environment whose declared indexes are to be built.
    package var scope: SchemaScope
    /// How many imports marked the environment: a builder clears the row only when no import
    /// came after the one it listed the indexes of.
    package var generation: Int64

    /// `0C (container, environment)`.
    static func key(_ scope: SchemaScope) -> [UInt8] {
        OrderedKey([StoreLayout.pendingIndexBuildsTag]).appending(scope.container)
            .appending(scope.environment.rawValue).bytes
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(generation)
        w.write(scope.container)
        w.write(scope.environment.rawValue)
        return w.bytes
    }

    init(scope: SchemaScope, generation: Int64) {
        self.scope = scope
        self.generation = generation
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        generation = try r.readInt64()
        let container = try r.readString()
        guard let environment = Namespace.Environment(rawValue: try r.readString()) else {
            throw EngineError.corruptValue
        }
        scope = SchemaScope(container: container, environment: environment)
    }
}

/// One declared index of one database that is not ready yet: a builder runs its batches
/// (``Engine/buildIndexBatch(_:)``) until it is.
package struct PendingIndex: Sendable, CustomStringConvertible {
    /// The container × environment that declares it.
    package let schemaScope: SchemaScope
    let database: Int64
    let databaseScope: CKDatabase.Scope
    /// The record type whose field it indexes.
    package let recordType: String
    /// The field's (canonical) name: `___tokens` for the type's token index.
    package let field: String
    let index: QueryPlan.Index

    /// Whether it is the field's value index (values in sort order), not its match index.
    package var isValueIndex: Bool { index == .value }

    /// `Type.field (value index) of database n/scope`, for logs.
    package var description: String {
        "\(recordType).\(field) (\(index == .value ? "value" : "match") index) of database \(database)/\(databaseScope)"
    }
}

extension Engine {
    /// Every container × environment an import left declared indexes to build in.
    package func pendingIndexBuilds() throws -> [PendingIndexBuilds] {
        try read { txn in
            var found: [PendingIndexBuilds] = []
            var range = KeyRange(prefix: [StoreLayout.pendingIndexBuildsTag])
            while true {
                let page = try txn.scan(range, limit: 256)
                found += try page.map { try PendingIndexBuilds(decoding: $0.value) }
                guard let last = page.last, page.count == 256 else { return found }
                range = KeyRange(from: last.key + [0], to: range.upperBound)
            }
        }
    }

    /// Marks `scope` as having declared indexes to build, in the transaction of an import.
    func markIndexBuildsPending(_ scope: SchemaScope, _ txn: any BackendWriteTransaction) throws {
        let generation = try pendingGeneration(scope, txn) ?? 0
        try txn.set(
            PendingIndexBuilds.key(scope), PendingIndexBuilds(scope: scope, generation: generation + 1).encoded())
    }

    /// The builds marked for `scope`, if any import left some.
    func pendingIndexBuilds(of scope: SchemaScope) throws -> PendingIndexBuilds? {
        try read { txn in try pendingGeneration(scope, txn).map { PendingIndexBuilds(scope: scope, generation: $0) } }
    }

    private func pendingGeneration(_ scope: SchemaScope, _ txn: any BackendReadTransaction) throws -> Int64? {
        try txn.get(PendingIndexBuilds.key(scope)).map { try PendingIndexBuilds(decoding: $0).generation }
    }

    /// The declared indexes of `scope` not ready in some database of it, in database and
    /// record-type order: what a build still has to do, read in one transaction.
    package func pendingIndexes(_ scope: SchemaScope) throws -> [PendingIndex] {
        try read { txn in try pendingIndexes(scope, txn) }
    }

    /// How many declared indexes of `scope` a builder still has to build — the answer of
    /// stratusd's `indexesPending` (decision 0020.9). Only an import leaves declared indexes
    /// unbuilt (production makes a field's ready with its first save), and its mark
    /// (``PendingIndexBuilds``) stays until a builder built them: without the environment's
    /// mark the answer is 0, read from that one key, not from the record-type rows of every
    /// database of the environment.
    package func pendingIndexCount(_ scope: SchemaScope) throws -> Int {
        try read { txn in
            guard try pendingGeneration(scope, txn) != nil else { return 0 }
            return try pendingIndexes(scope, txn).count
        }
    }

    private func pendingIndexes(_ scope: SchemaScope, _ txn: any BackendReadTransaction) throws -> [PendingIndex] {
        let schema = try environmentSchema(scope, txn)
        var pending: [PendingIndex] = []
        for number in try databaseNumbers(of: scope, txn) {
            for databaseScope in [CKDatabase.Scope.public, .private, .shared] {
                let context = DatabaseContext(
                    engine: self, number: number, scope: databaseScope, caller: embeddedCaller, schemaScope: scope)
                pending += try context.unbuiltDeclaredIndexes(schema, txn).map {
                    PendingIndex(
                        schemaScope: scope, database: number, databaseScope: databaseScope,
                        recordType: $0.recordType, field: $0.field, index: $0.index)
                }
            }
        }
        return pending
    }

    /// Runs one batch of the build of `pending` (decision 0019.7), starting it if needed;
    /// returns whether the index is ready. Builders of one index serialize on its cursor.
    package func buildIndexBatch(_ pending: PendingIndex) throws -> Bool {
        let context = DatabaseContext(
            engine: self, number: pending.database, scope: pending.databaseScope, caller: embeddedCaller,
            schemaScope: pending.schemaScope)
        return try context.buildIndexBatch(recordType: pending.recordType, field: pending.field, index: pending.index)
    }

    /// Clears the mark of `builds` once everything it listed is built; `false` (and the mark
    /// stays) when an import came since, whose indexes are then to be listed again. Another
    /// builder's clearing it first is no failure.
    @discardableResult
    package func finishIndexBuilds(_ builds: PendingIndexBuilds) throws -> Bool {
        try write { txn in
            guard let current = try pendingGeneration(builds.scope, txn) else { return true }
            guard current == builds.generation else { return false }
            try txn.clear(PendingIndexBuilds.key(builds.scope))
            return true
        }
    }
}
