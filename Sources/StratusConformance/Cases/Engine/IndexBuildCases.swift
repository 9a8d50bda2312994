import Foundation
import Stratus
import StratusSchema

/// Queries while a production schema's declared indexes are being built (decision 0020.8): a
/// sorted query on a declared index that is not ready joins its build, because it needs the
/// index to sort, and answers what the unindexed evaluation answers.
enum IndexBuildCases {
    static var all: [ConformanceCase] {
        [
            sortedQueryJoinsADeclaredIndexBuild.reachingStorage(
                "runs a declared index's build batches itself, through an engine on the storage; a server's background builder would run them too (its build is `DeclaredIndexScaleOutTests`' and `SchemaIndexBuildTests`')"
            )
        ]
    }

    /// The schema the records are saved under: no index.
    static let bare = "DEFINE SCHEMA RECORD TYPE Item (k INT64, title STRING, note STRING);"
    /// The import that declares the sort indexes of k and title (and title's match index).
    static let declared =
        "DEFINE SCHEMA RECORD TYPE Item (k INT64 QUERYABLE SORTABLE, title STRING QUERYABLE SORTABLE, note STRING);"
    /// Three batches of an index's build (0019.7: 512 change-log entries a batch).
    static let count = 1_200

    static func k(_ i: Int) -> Int { i % 10 }
    static func title(_ i: Int) -> String { "t\(i % 3)" }

    static let sortedQueryJoinsADeclaredIndexBuild = ConformanceCase(
        "schema.sortedQueryJoinsADeclaredIndexBuild", invariants: [22, 23],
        "A sorted production query on a declared index that is not ready — its build not begun, or cut short after a batch — joins the build and answers exactly the unindexed evaluation's records in its order, page after page, each once; afterwards the sort indexes are ready and only the index no query needed is left to build."
    ) { context in
        for batchesBefore in [0, 1] {
            let identifier = "iCloud.conformance.build\(batchesBefore)"
            let scope = SchemaScope(container: identifier, environment: .production)
            try context.importSchema(bare, identifier: identifier, environment: .production)
            let db = try context.container(identifier: identifier, environment: .production).privateCloudDatabase
            context.step(
                "\(identifier): save \(count) Items in production without indexes, then declare k's and title's")
            let records = (0..<count).map {
                makeRecord("i\($0)", zone: .default, ["k": k($0), "title": title($0), "note": "n"])
            }
            for start in stride(from: 0, to: count, by: 400) {
                _ = try Ops.saveAll(db, Array(records[start..<start + 400]), in: context)
            }
            try context.importSchema(declared, identifier: identifier, environment: .production)
            let engine = try context.must("an engine on the storage") { try Engine(backend: try context.open()) }
            func sortIndexes() throws -> [PendingIndex] {
                try context.must("the pending indexes list") { try engine.pendingIndexes(scope) }
                    .filter { $0.recordType == "Item" && ["k", "title"].contains($0.field) && $0.isValueIndex }
            }
            let pending = try sortIndexes()
            try context.expectEqual(pending.count, 2, "k's and title's value indexes are to build")
            for index in pending where batchesBefore > 0 {
                context.step("run one batch of \(index)")
                let ready = try context.must("a batch of \(index)") { try engine.buildIndexBatch(index) }
                try context.expect(!ready, "\(index) is not ready after one batch of three", actual: "ready")
            }

            context.step("k >= 3 AND k < 7 sorted by k, pages of 70 (the range bounds the walk)")
            let range = CKQuery(recordType: "Item", predicate: NSPredicate(format: "k >= 3 AND k < 7"))
            range.sortDescriptors = [NSSortDescriptor(key: "k", ascending: true)]
            let expectedRange = (0..<count).filter { (3..<7).contains(k($0)) }
                .sorted { (k($0), "i\($0)") < (k($1), "i\($1)") }.map { "i\($0)" }
            let rangeNames = try Reads.allPages(db, range, limit: 70, in: context).flatMap { $0 }
                .map(\.recordID.recordName)
            try context.expectEqual(rangeNames, expectedRange, "the evaluator's records in k's order")

            context.step("everything sorted by title descending, then k, pages of 101")
            let all = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
            all.sortDescriptors = [
                NSSortDescriptor(key: "title", ascending: false), NSSortDescriptor(key: "k", ascending: true),
            ]
            let expectedAll = (0..<count).sorted { a, b in
                if title(a) != title(b) { return title(a) > title(b) }
                return (k(a), "i\(a)") < (k(b), "i\(b)")
            }.map { "i\($0)" }
            let allNames = try Reads.allPages(db, all, limit: 101, in: context).flatMap { $0 }
                .map(\.recordID.recordName)
            try context.expectEqual(allNames, expectedAll, "every record once, in the sort's order")

            try context.expectEqual(
                try sortIndexes().map(\.description), [], "the sorted queries joined k's and title's builds")
            let left = try context.must("the pending indexes list") { try engine.pendingIndexes(scope) }
            try context.expectEqual(left.count, 1, "title's match index, which no query needed, is the builder's")
        }
    }
}
