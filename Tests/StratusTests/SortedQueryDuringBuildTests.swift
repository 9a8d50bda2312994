import Foundation
import StratusInMemory
import StratusSchema
import Testing

@testable import Stratus

/// A sorted production query on a declared index that is not ready yet — its build not begun,
/// or cut short after a batch — joins the build (decision 0020.8: it needs the index to sort)
/// and answers what the unindexed evaluation answers, in the same order, page after page.
@Suite("Engine: sorted production queries while a declared index is built")
struct SortedQueryDuringBuildTests {
    static let bare = "DEFINE SCHEMA RECORD TYPE Item (k INT64, title STRING, note STRING);"
    static let declared =
        "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE SORTABLE, title STRING QUERYABLE SORTABLE, note STRING);"
    /// Three batches of the k index (0019.7).
    static let count = 1_200

    /// `count` Items saved in production without indexes, then an import that declares them.
    static func imported() throws -> (Engine, DatabaseContext) {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(namespace: EnvironmentSchemaTests.production, scope: .public)
        try database.importSchema(try CloudKitSchema.parse(bare))
        let all = EnvironmentSchemaTests.items(count)
        for start in stride(from: 0, to: all.count, by: 400) {
            try EnvironmentSchemaTests.save(Array(all[start..<start + 400]), in: database)
        }
        try database.importSchema(try CloudKitSchema.parse(declared))
        return (engine, database)
    }

    /// Every page of `query`, `limit` records a page: the record names in the order returned.
    static func names(_ query: CKQuery, in database: DatabaseContext, limit: Int) throws -> [String] {
        var names: [String] = []
        var cursor: Data?
        repeat {
            let page = try database.query(query, zoneID: nil, cursor: cursor, limit: limit, desiredKeys: nil)
            names += page.records.map(\.recordID.recordName)
            cursor = page.cursor
        } while cursor != nil
        return names
    }

    /// Item `i`'s k and title, as `EnvironmentSchemaTests.items` saves them.
    static func k(_ i: Int) -> Int { i % 10 }
    static func title(_ i: Int) -> String { "t\(i % 3)" }

    @Test(arguments: [0, 1])
    func aSortedQueryJoinsTheBuildAndAnswersLikeTheEvaluator(batchesBefore: Int) throws {
        let (engine, database) = try Self.imported()
        for _ in 0..<batchesBefore {
            #expect(try database.buildIndexBatch(recordType: "Item", field: "k", index: .value) == false)
            #expect(try database.buildIndexBatch(recordType: "Item", field: "title", index: .value) == false)
        }
        let before = try #require(try engine.read { try database.loadRecordType("Item", $0) })
        #expect(before.fields["k"]?.isReady(.value) == false && before.fields["title"]?.isReady(.value) == false)

        // A range on k sorted by k (the range bounds the walk), 70 records a page.
        let range = CKQuery(recordType: "Item", predicate: NSPredicate(format: "k >= 3 AND k < 7"))
        range.sortDescriptors = [NSSortDescriptor(key: "k", ascending: true)]
        let expectedRange = (0..<Self.count).filter { (3..<7).contains(Self.k($0)) }
            .sorted { (Self.k($0), "i\($0)") < (Self.k($1), "i\($1)") }.map { "i\($0)" }
        #expect(try Self.names(range, in: database, limit: 70) == expectedRange)

        // Everything, sorted by title descending, then k ascending, 101 records a page.
        let all = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        all.sortDescriptors = [
            NSSortDescriptor(key: "title", ascending: false), NSSortDescriptor(key: "k", ascending: true),
        ]
        let expectedAll = (0..<Self.count).sorted { a, b in
            if Self.title(a) != Self.title(b) { return Self.title(a) > Self.title(b) }
            return (Self.k(a), "i\(a)") < (Self.k(b), "i\(b)")
        }.map { "i\($0)" }
        let answered = try Self.names(all, in: database, limit: 101)
        #expect(answered == expectedAll, "same records, same order")
        #expect(Set(answered).count == Self.count, "no record twice across pages")

        let after = try #require(try engine.read { try database.loadRecordType("Item", $0) })
        #expect(after.fields["k"]?.isReady(.value) == true, "the sorted query joined k's build")
        #expect(after.fields["title"]?.isReady(.value) == true, "and title's")
        #expect(try database.pendingDeclaredIndexes() == 1, "title's match index is the builder's")
    }
}
