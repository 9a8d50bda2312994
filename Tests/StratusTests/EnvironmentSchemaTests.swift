import Foundation
import StratusInMemory
import StratusSchema
import Testing

@testable import Stratus

/// The environment's schema inside the engine (decision 0020): declared indexes in production,
/// scanning while one is built, the schema row, reset.
@Suite("Engine: the environment's schema")
struct EnvironmentSchemaTests {
    static let production = Namespace(container: "iCloud.schema", environment: .production)
    static let development = Namespace(container: "iCloud.schema", environment: .development)

    static func save(_ records: [CKRecord], in database: DatabaseContext) throws {
        let outcome = try database.modifyRecords(
            ModifyRequest(records: records, deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
        for (_, result) in outcome.saveResults { if case .failure(let error) = result { throw error } }
    }

    static func items(_ count: Int) -> [CKRecord] {
        (0..<count).map { index in
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i\(index)"))
            record["k"] = index % 10
            record["title"] = "t\(index % 3)"
            record["note"] = "n"
            return record
        }
    }

    /// The schema check's shortcut for a save shaped like the one before it
    /// (`SchemaCache.lastAdmitted`) compares value types, not only names: in one batch, a record
    /// whose `k` is a string between two whose `k` is an integer fails with `invalidArguments`
    /// naming the field, in either environment, and the records around it are saved.
    @Test(arguments: [development, production])
    func aBatchAlternatingAFieldsTypeFailsTheOddOne(namespace: Namespace) throws {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(namespace: namespace, scope: .public)
        if namespace.environment == .production {
            try database.importSchema(try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (k INT64);"))
        }
        let values: [any CKRecordValue] = [1, 2, "three", 4]
        let records = values.enumerated().map { index, value in
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r\(index)"))
            record["k"] = value
            return record
        }
        let outcome = try database.modifyRecords(
            ModifyRequest(records: records, deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
        let failures = outcome.saveResults.compactMap { id, result -> (String, CKError)? in
            if case .failure(let error) = result { (id.recordName, error) } else { nil }
        }
        #expect(failures.map(\.0) == ["r2"], "only the string fails")
        #expect(failures.first?.1.code == .invalidArguments)
        #expect(failures.first?.1.localizedDescription.contains("k") == true, "the message names the field")
        let stored = try database.fetchRecords(records.map(\.recordID), desiredKeys: nil)
        #expect(stored.compactMap { try? $0.1.get()["k"] as? Int }.sorted() == [1, 2, 4])
    }

    /// A field's declared indexes are ready from its first save in a production database, so
    /// production queries never build; an undeclared field gets none.
    @Test func productionMakesDeclaredIndexesReadyOnTheFirstSave() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(namespace: Self.production, scope: .public)
        try database.importSchema(
            try CloudKitSchema.parse(
                "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE SORTABLE, title STRING QUERYABLE SEARCHABLE, note STRING);"
            ))
        try Self.save(Self.items(3), in: database)
        let row = try #require(try engine.read { try database.loadRecordType("Item", $0) })
        #expect(row.fields["k"]?.isReady(.value) == true)
        #expect(row.fields["title"]?.isReady(.match) == true)
        #expect(row.fields["title"]?.isReady(.value) == true)
        #expect(row.fields["note"]?.isMaintained(.value) == false)
        #expect(row.fields["note"]?.isMaintained(.match) == false)
        #expect(row.fields["___tokens"]?.isReady(.match) == true, "SEARCHABLE: the type's token index")
        let search = CKQuery(recordType: "Item", predicate: NSPredicate(format: "self CONTAINS 't1'"))
        let found = try database.query(search, zoneID: nil, cursor: nil, limit: 0, desiredKeys: nil)
        #expect(found.records.map(\.recordID.recordName) == ["i1"])
    }

    /// After an import declares an index over existing records, a production query that could
    /// use it scans while the importer builds it (it does not join the build) and answers the
    /// same; the build then makes it ready.
    @Test func aProductionQueryScansWhileADeclaredIndexIsBuilt() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(namespace: Self.production, scope: .public)
        try database.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (k INT64, title STRING, note STRING);"))
        let all = Self.items(1200)
        for start in stride(from: 0, to: all.count, by: 400) {
            try Self.save(Array(all[start..<start + 400]), in: database)
        }
        try database.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE, title STRING, note STRING);"))
        #expect(try database.buildIndexBatch(recordType: "Item", field: "k", index: .value) == false)
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: "k == 3"))
        var names: [String] = []
        var cursor: Data?
        repeat {
            let page = try database.query(query, zoneID: nil, cursor: cursor, limit: 50, desiredKeys: nil)
            names += page.records.map(\.recordID.recordName)
            cursor = page.cursor
        } while cursor != nil
        #expect(names.sorted() == (0..<1200).filter { $0 % 10 == 3 }.map { "i\($0)" }.sorted())
        let building = try #require(try engine.read { try database.loadRecordType("Item", $0) })
        #expect(building.fields["k"]?.isReady(.value) == false, "the query did not join the build")
        #expect(try database.buildDeclaredIndexes() == 1)
        let built = try #require(try engine.read { try database.loadRecordType("Item", $0) })
        #expect(built.fields["k"]?.isReady(.value) == true)
    }

    /// Reset deletes development's data and schema (back to production's), never production's.
    @Test func resetDeletesDevelopmentOnly() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let production = try engine.database(namespace: Self.production, scope: .public)
        let development = try engine.database(namespace: Self.development, scope: .public)
        let embedded = try engine.database(container: "iCloud.schema", scope: .private)
        try production.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (k INT64, title STRING, note STRING);"))
        try Self.save(Self.items(2), in: production)
        try Self.save(Self.items(2), in: development)
        try Self.save(Self.items(2), in: embedded)
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n"))
        try Self.save([note], in: development)
        #expect(try development.environmentSchema().recordTypes.keys.sorted() == ["Item", "Note"])
        #expect(throws: CKError.self) { try production.resetSchema() }
        try development.resetSchema()
        #expect(try development.environmentSchema() == production.environmentSchema())
        let all = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        #expect(try production.query(all, zoneID: nil, cursor: nil, limit: 0, desiredKeys: nil).records.count == 2)
        #expect(try development.query(all, zoneID: nil, cursor: nil, limit: 0, desiredKeys: nil).records.isEmpty)
        #expect(try embedded.query(all, zoneID: nil, cursor: nil, limit: 0, desiredKeys: nil).records.isEmpty)
        // Development works again after the reset.
        try Self.save([note], in: development)
    }

    /// A damaged schema row is refused, not taken as an empty schema.
    @Test func aDamagedSchemaRowIsCorrupt() throws {
        let cache = SchemaRowCache()
        #expect(throws: EngineError.self) { try cache.schema(at: [1], bytes: [9, 9]) }
        #expect(throws: EngineError.self) { try cache.schema(at: [1], bytes: [1] + Array("DEFINE".utf8)) }
        let schema = try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE A (b STRING QUERYABLE);")
        #expect(try cache.schema(at: [2], bytes: SchemaRowCache.encode(schema)) == schema)
    }
}
