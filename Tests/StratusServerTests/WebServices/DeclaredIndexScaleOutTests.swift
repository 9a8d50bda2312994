import Foundation
import StratusTestSupport
import Testing

/// Two stratusd on one PostgreSQL database building the indexes one import declares (decision
/// 0020.8): the import goes through one server, the other picks the build up when it starts,
/// and writers save through both while they build. Both servers end with no declared index
/// pending, and every indexed query — equality, range, sorted — answers through either server
/// exactly what the unindexed evaluation of the records answers, with no record missing or
/// twice across pages; the unsorted ones read the index once it is built (their markers are an
/// index walk's, not a scan's).
@Suite("stratusd: two servers building declared indexes on one PostgreSQL", .serialized)
struct DeclaredIndexScaleOutTests {
    /// Records saved before the import: twelve batches (0019.7) per declared index.
    static let count = 6_000
    static let bare = "DEFINE SCHEMA RECORD TYPE Note (k INT64, title STRING);"
    /// k's value index, title's value and match indexes.
    static let declared =
        "DEFINE SCHEMA RECORD TYPE Note (k INT64 QUERYABLE SORTABLE, title STRING QUERYABLE SORTABLE);"
    static let writers = 4
    static let rounds = 8
    /// An odd page size, so pages end inside groups of equal values.
    static let pageSize = 97

    /// A Note's indexed fields.
    struct Note: Equatable, CustomStringConvertible {
        var k: Int
        var title: String
        var description: String { "(\(k), \(title))" }
    }

    @Test func twoServersBuildOneImportsIndexesWhileWritersSaveThroughBoth() async throws {
        let fixture = try WebServicesFixture(postgres: true)
        let signer = try ServerToServerHTTPTests.Signer(environment: "production", fixture: fixture)
        var model = try await Self.seed(signer)

        let imported = try await SchemaIndexBuildTests.send(signer, "schema/import", ["schema": Self.declared])
        try #require(imported.status == 200, "\(imported.json)")
        #expect(imported.json["indexesPending"] as? Int == 3, "\(imported.json)")
        let importedAt = ContinuousClock.now
        let second = try StratusDaemonProcess(arguments: fixture.backendArguments, directory: fixture.directory)
        defer { second.stop() }
        let servers = [fixture.server.baseURL, second.baseURL]
        let pendingAtStart = try await SchemaIndexBuildTests.send(signer, "schema/indexes", [:], at: second.baseURL)
        print(
            "declared index scale-out: second server up \(ContinuousClock.now - importedAt) after the import, "
                + "\(pendingAtStart.json["indexesPending"] ?? "?") of 3 indexes still pending")

        let writes = try await withThrowingTaskGroup(of: [String: Note?].self) { group in
            for writer in 0..<Self.writers {
                group.addTask { try await Self.write(signer, writer, via: servers[writer % 2]) }
            }
            return try await group.reduce(into: [String: Note?]()) { $0.merge($1) { $1 } }
        }
        for (name, note) in writes { model[name] = note }
        for server in servers {
            try await SchemaIndexBuildTests.waitForBuilds(signer, at: server)
            let status = try await SchemaIndexBuildTests.send(signer, "schema/indexes", [:], at: server)
            #expect(status.json["indexesPending"] as? Int == 0, "\(status.json)")
        }
        print("declared index scale-out: built \(ContinuousClock.now - importedAt) after the import")
        func logged(_ message: String) -> [Int] {
            [fixture.server, second].map { $0.standardError.components(separatedBy: message).count - 1 }
        }
        print(
            "declared index scale-out: rounds with work logged by each server: \(logged("building declared indexes")), "
                + "failed rounds (retried later): \(logged("declared index build failed"))")

        let expected = model.compactMapValues { $0 }
        #expect(expected.count == Self.count + Self.writers * Self.rounds * (20 - 5))
        for server in servers {
            try await Self.checkQueries(signer, at: server, against: expected)
        }
    }

    /// Imports the bare schema into production and saves ``count`` Notes through the first
    /// server: the model of what it saved.
    static func seed(_ signer: ServerToServerHTTPTests.Signer) async throws -> [String: Note?] {
        let bare = try await SchemaIndexBuildTests.send(signer, "schema/import", ["schema": Self.bare])
        try #require(bare.status == 200, "\(bare.json)")
        var model: [String: Note?] = [:]
        for start in stride(from: 0, to: count, by: 250) {
            let notes = (start..<start + 250).map {
                (String(format: "n%05d", $0), Note(k: $0 % 50, title: "t\($0 % 7)"))
            }
            try await modify(signer, saving: notes, deleting: [], operation: "create", via: nil)
            for (name, note) in notes { model[name] = note }
        }
        return model
    }

    /// Writer `writer`'s rounds through `server`: each replaces 20 seeded Notes (new k and
    /// title), deletes 5 and creates 20; the notes it left (`nil`: deleted).
    static func write(_ signer: ServerToServerHTTPTests.Signer, _ writer: Int, via server: URL) async throws
        -> [String: Note?]
    {
        var written: [String: Note?] = [:]
        for round in 0..<rounds {
            let base = (writer * rounds + round) * 40
            let replaced = (base..<base + 20).map {
                (String(format: "n%05d", $0), Note(k: ($0 + 17) % 50, title: "u\($0 % 5)"))
            }
            let created = (0..<20).map {
                ("x\(writer)-\(round)-\($0)", Note(k: ($0 * 3 + round) % 50, title: "t\($0 % 7)"))
            }
            let deleted = (base + 20..<base + 25).map { String(format: "n%05d", $0) }
            try await modify(signer, saving: replaced, deleting: deleted, operation: "forceReplace", via: server)
            try await modify(signer, saving: created, deleting: [], operation: "create", via: server)
            for (name, note) in replaced + created { written[name] = note }
            for name in deleted { written[name] = .some(nil) }
        }
        return written
    }

    /// One `records/modify` through `server` (else the first), again while it is refused with
    /// a retryable 503; every record must be saved or deleted.
    static func modify(
        _ signer: ServerToServerHTTPTests.Signer, saving notes: [(String, Note)], deleting names: [String],
        operation: String, via server: URL?
    ) async throws {
        let saves: [[String: Any]] = notes.map { name, note in
            let fields: [String: Any] = ["k": ["value": note.k, "type": "INT64"], "title": ["value": note.title]]
            return [
                "operationType": operation, "record": ["recordName": name, "recordType": "Note", "fields": fields],
            ]
        }
        let deletes: [[String: Any]] = names.map { ["operationType": "forceDelete", "record": ["recordName": $0]] }
        var answer: WebServicesFixture.Answer
        repeat {
            answer = try await SchemaIndexBuildTests.send(
                signer, "records/modify", ["operations": saves + deletes], at: server)
            if answer.status == 503 { try await Task.sleep(for: .milliseconds(200)) }
        } while answer.status == 503
        try #require(answer.status == 200, "\(answer.json)")
        let failed = answer.records.filter { $0["serverErrorCode"] != nil }
        try #require(
            failed.isEmpty && answer.records.count == notes.count + names.count, "records/modify: \(answer.json)")
    }

    /// Runs each indexed query through `server`, every page of ``pageSize``, and compares it
    /// with `expected` filtered and sorted here; the full fetch (an unfiltered scan) must be
    /// `expected` too.
    static func checkQueries(
        _ signer: ServerToServerHTTPTests.Signer, at server: URL, against expected: [String: Note]
    ) async throws {
        let everything = try await query(signer, at: server, filters: [], sort: [])
        #expect(everything.count == expected.count && Set(everything.map(\.0)).count == everything.count)
        #expect(Dictionary(everything, uniquingKeysWith: { a, _ in a }) == expected, "the full fetch")

        func int(_ comparator: String, _ value: Int) -> [String: Any] {
            ["comparator": comparator, "fieldName": "k", "fieldValue": ["value": value, "type": "INT64"]]
        }
        let title: [String: Any] = ["comparator": "EQUALS", "fieldName": "title", "fieldValue": ["value": "t3"]]
        let unsorted: [(String, [[String: Any]], (Note) -> Bool)] = [
            ("k == 17", [int("EQUALS", 17)], { $0.k == 17 }),
            ("10 <= k < 14", [int("GREATER_THAN_OR_EQUALS", 10), int("LESS_THAN", 14)], { (10..<14).contains($0.k) }),
            ("title == t3", [title], { $0.title == "t3" }),
        ]
        for (label, filters, keep) in unsorted {
            let answered = try await query(signer, at: server, filters: filters, sort: [])
            let names = answered.map(\.0)
            #expect(Set(names).count == names.count, "\(label): no record twice")
            #expect(names.sorted() == expected.filter { keep($0.value) }.keys.sorted(), "\(label) through \(server)")
            let scanned = try await firstPageScans(signer, at: server, filters: filters)
            #expect(scanned == false, "\(label) through \(server) reads the built index, not the scan")
        }

        let byK: [[String: Any]] = [["fieldName": "k", "ascending": true]]
        let range = try await query(
            signer, at: server, filters: [int("GREATER_THAN_OR_EQUALS", 20), int("LESS_THAN_OR_EQUALS", 30)], sort: byK)
        let expectedRange = expected.filter { (20...30).contains($0.value.k) }
            .sorted { ($0.value.k, $0.key) < ($1.value.k, $1.key) }.map(\.key)
        #expect(range.map(\.0) == expectedRange, "20 <= k <= 30 sorted by k through \(server)")

        let byTitle: [[String: Any]] = [
            ["fieldName": "title", "ascending": false], ["fieldName": "k", "ascending": true],
        ]
        let all = try await query(signer, at: server, filters: [], sort: byTitle)
        let expectedAll = expected.sorted { a, b in
            if a.value.title != b.value.title { return a.value.title > b.value.title }
            return (a.value.k, a.key) < (b.value.k, b.key)
        }.map(\.key)
        #expect(all.map(\.0) == expectedAll, "everything sorted by title descending, then k, through \(server)")
    }

    /// Whether the first page of the unsorted `Note` query `filters` through `server` continues
    /// a scan (its marker a keyset cursor) rather than a walk of an index (decision 0019.3);
    /// `nil` when it is the only page.
    static func firstPageScans(
        _ signer: ServerToServerHTTPTests.Signer, at server: URL, filters: [[String: Any]]
    ) async throws -> Bool? {
        let body: [String: Any] = ["query": ["recordType": "Note", "filterBy": filters], "resultsLimit": pageSize]
        let page = try await SchemaIndexBuildTests.send(signer, "records/query", body, at: server)
        try #require(page.status == 200, "\(page.json)")
        return try (page.json["continuationMarker"] as? String).map(SchemaIndexBuildTests.isScanMarker)
    }

    /// Every page of a `Note` query through `server`: the names and notes in the order answered.
    static func query(
        _ signer: ServerToServerHTTPTests.Signer, at server: URL, filters: [[String: Any]], sort: [[String: Any]]
    ) async throws -> [(String, Note)] {
        var found: [(String, Note)] = []
        var marker: String?
        repeat {
            var query: [String: Any] = ["recordType": "Note"]
            if !filters.isEmpty { query["filterBy"] = filters }
            if !sort.isEmpty { query["sortBy"] = sort }
            var body: [String: Any] = ["query": query, "resultsLimit": pageSize]
            body["continuationMarker"] = marker
            let page = try await SchemaIndexBuildTests.send(signer, "records/query", body, at: server)
            try #require(page.status == 200, "\(page.json)")
            for record in page.records {
                let fields = record["fields"] as? [String: Any]
                let k = ((fields?["k"] as? [String: Any])?["value"] as? NSNumber)?.intValue ?? -1
                let title = (fields?["title"] as? [String: Any])?["value"] as? String ?? "?"
                found.append((record["recordName"] as? String ?? "?", Note(k: k, title: title)))
            }
            marker = page.json["continuationMarker"] as? String
        } while marker != nil
        return found
    }
}
