import Foundation
import StratusInMemory
import StratusSchema
import Testing

@testable import Stratus

/// What an import leaves to build (decision 0020.8): the `0C` mark a builder finds after a
/// restart, the declared indexes not ready, and production queries that scan before any build
/// began rather than build in the query.
@Suite("Engine: declared indexes an import leaves to build")
struct PendingIndexBuildTests {
    static let scope = SchemaScope(container: "iCloud.schema", environment: .production)

    /// A production public database of `iCloud.schema` holding 1,200 Items saved without indexes,
    /// then an import that declares `k QUERYABLE`.
    static func importedOverRecords() throws -> (Engine, DatabaseContext) {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(namespace: EnvironmentSchemaTests.production, scope: .public)
        try database.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (k INT64, title STRING, note STRING);"))
        let all = EnvironmentSchemaTests.items(1200)
        for start in stride(from: 0, to: all.count, by: 400) {
            try EnvironmentSchemaTests.save(Array(all[start..<start + 400]), in: database)
        }
        try database.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE, title STRING, note STRING);"))
        return (engine, database)
    }

    @Test func theMarkStaysUntilTheImportsIndexesAreBuilt() throws {
        let (engine, database) = try Self.importedOverRecords()
        #expect(try engine.pendingIndexBuilds().map(\.scope) == [Self.scope])
        #expect(try database.pendingDeclaredIndexes() == 1)

        // Before any batch: the query scans, and does not start the build itself.
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: "k == 3"))
        var found = 0
        var cursor: Data?
        repeat {
            let page = try database.query(query, zoneID: nil, cursor: cursor, limit: 50, desiredKeys: nil)
            found += page.records.count
            cursor = page.cursor
        } while cursor != nil
        #expect(found == 120)
        let row = try #require(try engine.read { try database.loadRecordType("Item", $0) })
        #expect(row.fields["k"]?.isMaintained(.value) == false, "the query did not begin the build")

        #expect(try database.buildDeclaredIndexes() == 1)
        #expect(try engine.pendingIndexBuilds().isEmpty, "the builder cleared the mark")
        #expect(try database.pendingDeclaredIndexes() == 0)
    }

    /// A builder that listed the indexes of one import leaves the mark of a later one.
    @Test func aLaterImportKeepsTheMarkForTheNextRound() throws {
        let (engine, database) = try Self.importedOverRecords()
        let listed = try #require(try engine.pendingIndexBuilds().first)
        for index in try engine.pendingIndexes(Self.scope) {
            while try !engine.buildIndexBatch(index) {}
        }
        try database.importSchema(
            try CloudKitSchema.parse(
                "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE, title STRING QUERYABLE, note STRING);"))
        #expect(try engine.finishIndexBuilds(listed) == false, "an import came since")
        let next = try #require(try engine.pendingIndexBuilds().first)
        #expect(next.generation > listed.generation)
        #expect(try engine.pendingIndexes(Self.scope).count == 2, "title's value and match indexes")
        #expect(try engine.buildDeclaredIndexes(Self.scope) == 2)
        #expect(try engine.pendingIndexBuilds().isEmpty)
    }

    /// `indexesPending` (stratusd's import and `schema/indexes` answers) reads the
    /// environment's mark, one key, once no import's builds are left, not the record-type rows
    /// of every database; while an import's are, it counts them in that environment's
    /// databases only.
    @Test func thePendingCountReadsOnlyTheEnvironmentsMark() throws {
        let backend = ReadCountingBackend()
        let engine = try Engine(backend: backend)
        var databases: [DatabaseContext] = []
        for environment in [Namespace.Environment.production, .development] {
            for owner in 0..<12 {
                let namespace = Namespace(container: "iCloud.schema", environment: environment, owner: "u\(owner)")
                let database = try engine.database(namespace: namespace, scope: .public)
                if owner == 0 {
                    try database.importSchema(
                        try CloudKitSchema.parse(
                            "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE, title STRING, note STRING);"))
                }
                try EnvironmentSchemaTests.save(EnvironmentSchemaTests.items(2), in: database)
                if environment == .production { databases.append(database) }
            }
        }
        #expect(try engine.buildDeclaredIndexes(Self.scope) == 0, "production made k's index ready on the saves")
        backend.reset()
        #expect(try databases[5].pendingDeclaredIndexes() == 0)
        #expect(backend.keysRead <= 2, "\(backend.keysRead) keys read for a count of 0 over 12 databases")

        try databases[0].importSchema(
            try CloudKitSchema.parse(
                "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE, title STRING QUERYABLE, note STRING);"))
        #expect(try databases[7].pendingDeclaredIndexes() == 24, "title's value and match indexes in 12 databases")
        #expect(try engine.buildDeclaredIndexes(Self.scope) == 24)
        #expect(try databases[7].pendingDeclaredIndexes() == 0)
    }
}
