import Foundation
import StratusTestSupport
import StratusWebServices
import Testing

/// stratusd builds the indexes a schema import declares in the background (decision 0020.8):
/// the import answers at once with how many are to build, production queries scan and answer
/// the same until an index is ready and read it afterwards, and a build a killed or stopped
/// server left resumes when the server starts again.
@Suite("Web Services: declared indexes built in the background", .serialized)
struct SchemaIndexBuildTests {
    /// Records saved before the import that declares indexes: eight batches per index.
    static let count = 4_000
    /// The production schema the records are saved under: no index.
    static let bare = "DEFINE SCHEMA RECORD TYPE Note (k INT64, title STRING);"
    /// The names of the records with `k == 3`, in name order.
    static let threes = (0..<count).filter { $0 % 9 == 3 }.map { String(format: "n%05d", $0) }

    /// A server-to-server key's request to `operation` of the production public database, at
    /// `server` (else the fixture's): the answer's status and JSON.
    static func send(
        _ signer: ServerToServerHTTPTests.Signer, _ operation: String, _ body: Any, at server: URL? = nil
    ) async throws -> WebServicesFixture.Answer {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let path = signer.path(operation)
        return try await signer.fixture.send(
            "POST", String(path.dropFirst()), body: Data(text.utf8), as: .none, at: server,
            headers: try signer.headers(body: text, path: path))
    }

    /// Imports the bare schema into production and saves ``count`` Notes in its public database.
    static func seed() async throws -> ServerToServerHTTPTests.Signer {
        let signer = try ServerToServerHTTPTests.Signer(environment: "production")
        let bare = try await send(signer, "schema/import", ["schema": Self.bare])
        #expect(bare.status == 200 && bare.json["indexesPending"] as? Int == 0, "\(bare.json)")
        for start in stride(from: 0, to: count, by: 250) {
            let operations: [[String: Any]] = (start..<start + 250).map { i in
                let fields: [String: Any] = ["k": ["value": i % 9, "type": "INT64"], "title": ["value": "t\(i % 4)"]]
                return [
                    "operationType": "create",
                    "record": ["recordName": String(format: "n%05d", i), "recordType": "Note", "fields": fields],
                ]
            }
            let saved = try await send(signer, "records/modify", ["operations": operations])
            #expect(saved.status == 200 && saved.records.count == 250, "\(saved.json)")
        }
        return signer
    }

    /// The query `k == 3`, all pages of at most 100: the names, and whether the first page's
    /// marker is a scan's (`true`) or an index's (`false`).
    static func queryThrees(
        _ signer: ServerToServerHTTPTests.Signer, at server: URL? = nil
    ) async throws -> (names: [String], scanned: Bool?) {
        let filter: [String: Any] = [
            "comparator": "EQUALS", "fieldName": "k", "fieldValue": ["value": 3, "type": "INT64"],
        ]
        var names: [String] = []
        var scanned: Bool?
        var marker: String?
        repeat {
            var body: [String: Any] = ["query": ["recordType": "Note", "filterBy": [filter]], "resultsLimit": 100]
            body["continuationMarker"] = marker
            let page = try await send(signer, "records/query", body, at: server)
            #expect(page.status == 200, "\(page.json)")
            names += page.records.compactMap { $0["recordName"] as? String }
            marker = page.json["continuationMarker"] as? String
            if scanned == nil, let marker { scanned = try Self.isScanMarker(marker) }
        } while marker != nil
        return (names.sorted(), scanned)
    }

    /// Whether `marker` continues a scan (a keyset cursor, kind 1) rather than a walk of an
    /// index (kind 4): the byte after magic, version, store ID, number, scope and fingerprint.
    static func isScanMarker(_ marker: String) throws -> Bool {
        let bytes = try #require(SyncTokenText.data(marker))
        let kind = bytes[bytes.startIndex + 35]
        #expect(kind == 1 || kind == 4, "a scan's or an index's marker, not \(kind)")
        return kind == 1
    }

    /// Reads `schema/indexes` until no declared index is left to build; how many were pending
    /// at the first read.
    @discardableResult
    static func waitForBuilds(_ signer: ServerToServerHTTPTests.Signer, at server: URL? = nil) async throws -> Int {
        var first: Int?
        for _ in 0..<6_000 {
            let status = try await send(signer, "schema/indexes", [:], at: server)
            #expect(status.status == 200, "\(status.json)")
            let pending = try #require(status.json["indexesPending"] as? Int, "\(status.json)")
            if first == nil { first = pending }
            if pending == 0 { return first ?? 0 }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the declared indexes were not built")
        return first ?? 0
    }

    @Test func theImportAnswersBeforeTheBuildAndQueriesScanUntilTheIndexIsReady() async throws {
        let signer = try await Self.seed()

        let imported = try await Self.send(
            signer, "schema/import", ["schema": "DEFINE SCHEMA RECORD TYPE Note (k INT64 QUERYABLE, title STRING);"])
        #expect(imported.status == 200, "\(imported.json)")
        #expect(imported.json["indexesPending"] as? Int == 1, "k's value index is left to build: \(imported.json)")
        #expect(imported.json["indexesBuilt"] as? Int == 0)

        let during = try await Self.queryThrees(signer)
        #expect(during.names == Self.threes, "the same answer while the index is built")
        let pendingAfter = try await Self.waitForBuilds(signer)
        if pendingAfter > 0 {
            // k's index was not ready when the query's first page was read: it scanned.
            #expect(during.scanned == true, "a production query does not wait for a build")
        }
        print("query during the build: first page \(during.scanned == true ? "scanned" : "from the index")")

        let after = try await Self.queryThrees(signer)
        #expect(after.names == Self.threes, "the same answer from the index")
        #expect(after.scanned == false, "the ready index serves the query")
    }

    /// Killed (SIGKILL) or stopped (SIGTERM, between two batches) right after the import
    /// answered, the server builds what is left when it starts again, without another import.
    @Test(arguments: [false, true])
    func aBuildCutShortResumesWhenTheServerStartsAgain(graceful: Bool) async throws {
        let signer = try await Self.seed()
        let imported = try await Self.send(
            signer, "schema/import",
            [
                "schema":
                    "DEFINE SCHEMA RECORD TYPE Note (k INT64 QUERYABLE SORTABLE, title STRING QUERYABLE SEARCHABLE);"
            ])
        #expect(imported.status == 200, "\(imported.json)")
        #expect(imported.json["indexesPending"] as? Int == 4, "k's value, title's value and match, the tokens")
        let server = signer.fixture.server
        if graceful {
            #expect(server.stop() == 0, "stratusd stopped gracefully while building")
        } else {
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
        }
        let fixture = signer.fixture
        let restarted = try StratusDaemonProcess(arguments: fixture.backendArguments, directory: fixture.directory)
        defer { restarted.stop() }
        let left = try await Self.waitForBuilds(signer, at: restarted.baseURL)
        print("declared indexes left after \(graceful ? "SIGTERM" : "SIGKILL"): \(left) of 4")
        let after = try await Self.queryThrees(signer, at: restarted.baseURL)
        #expect(after.names == Self.threes)
        #expect(after.scanned == false, "the resumed build made the index ready")
    }
}

extension WebServicesFixture {
    /// Any request to `path` with raw `body` bytes and `headers`, at `baseURL` (else the
    /// fixture's server): the status and JSON.
    func send(
        _ method: String, _ path: String, body: Data, as credentials: Credentials, at baseURL: URL?,
        headers: [String: String]
    ) async throws -> Answer {
        let answer = try await raw(method, path, body: body, as: credentials, at: baseURL, headers: headers)
        return Answer(status: answer.status, json: answer.json)
    }
}
