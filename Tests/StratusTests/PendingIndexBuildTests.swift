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
}
