import Foundation
import StratusInMemory
import StratusSchema
import Testing

@testable import Stratus

/// A union's or an intersection's cursor is the scan's (decision 0019.8): a production query
/// that scans while a declared index is built, then continues once the index is ready, returns
/// the scan's records in the scan's order, each once.
@Suite("Engine: scan-order plans while their index is built")
struct ScanOrderPlanBuildTests {
    static func items(_ count: Int) -> [CKRecord] {
        (0..<count).map { index in
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: String(format: "i%04d", index)))
            record["tags"] = ["c\(index % 7)", "D\(index % 5)"]
            record["note"] = "n"
            return record
        }
    }

    /// Every page of `format` over `database`: the first one before `between` runs, the rest after.
    static func pages(
        _ format: String, in database: DatabaseContext, between: () throws -> Void
    ) throws -> (first: [String], all: [String]) {
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: format))
        var page = try database.query(query, zoneID: nil, cursor: nil, limit: 10, desiredKeys: nil)
        let first = page.records.map(\.recordID.recordName)
        var names = first
        try between()
        while let cursor = page.cursor {
            page = try database.query(query, zoneID: nil, cursor: cursor, limit: 10, desiredKeys: nil)
            names += page.records.map(\.recordID.recordName)
        }
        return (first, names)
    }

    /// `tags IN {…}` (a union) and `tags CONTAINS {…}` (an intersection).
    @Test(arguments: [false, true])
    func aQueryScannedWhileTheIndexIsBuiltContinuesFromIt(_ every: Bool) throws {
        let format = every ? "tags CONTAINS {'c3', 'd4'}" : "tags IN {'c3', 'd4'}"
        let holds = { (i: Int) in every ? i % 7 == 3 && i % 5 == 4 : i % 7 == 3 || i % 5 == 4 }
        let engine = try Engine(backend: InMemoryBackend())
        let namespace = Namespace(container: "iCloud.plans", environment: .production)
        let database = try engine.database(namespace: namespace, scope: .public)
        try database.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (tags LIST<STRING>, note STRING);"))
        let all = Self.items(1200)
        for start in stride(from: 0, to: all.count, by: 400) {
            try EnvironmentSchemaTests.save(Array(all[start..<start + 400]), in: database)
        }
        try database.importSchema(
            try CloudKitSchema.parse("DEFINE SCHEMA RECORD TYPE Item (tags LIST<STRING> QUERYABLE, note STRING);"))
        #expect(try database.buildIndexBatch(recordType: "Item", field: "tags", index: .match) == false)
        let (first, names) = try Self.pages(format, in: database) {
            let row = try #require(try engine.read { try database.loadRecordType("Item", $0) })
            #expect(row.fields["tags"]?.isReady(.match) == false, "the first page scanned")
            #expect(try database.buildDeclaredIndexes() >= 1)
            let built = try #require(try engine.read { try database.loadRecordType("Item", $0) })
            #expect(built.fields["tags"]?.isReady(.match) == true, "the later pages can read the index")
        }
        let expected = (0..<1200).filter(holds).map { String(format: "i%04d", $0) }
        #expect(first == Array(expected.prefix(10)))
        #expect(names == expected, "\(format): the scan's records in its order, then the index's")
        let (_, again) = try Self.pages(format, in: database) {}
        #expect(again == expected, "\(format) from the ready index")
    }
}
