import Foundation
import StratusTestSupport
import Synchronization
import Testing

/// Two `stratusd` processes on one PostgreSQL database: writers through both, syncers through
/// both (each syncer alternates servers, page by page, with the sync token of the last page):
/// every syncer ends with exactly the acknowledged versions, having seen no change twice
/// (decision 0012's test plan, scale-out).
@Suite("stratusd: two servers on one PostgreSQL")
struct ScaleOutTests {
    static let zone = ["zoneName": "Shared"]
    static let writers = 4
    static let batchesPerWriter = 12
    static let batchSize = 6
    /// Each writer's own record names: its batches update them again and again.
    static let namesPerWriter = 24
    /// The page size of the change feed, small so that a sync takes many pages.
    static let pageSize = 7

    @Test func writersAndSyncersThroughTwoServersMissAndRepeatNothing() async throws {
        let ws = try WebServicesFixture(postgres: true)
        let second = try StratusDaemonProcess(arguments: ws.backendArguments, directory: ws.directory)
        defer { second.stop() }
        let servers = [ws.server.baseURL, second.baseURL]
        let made = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Self.zone]]]],
            database: "private")
        try #require(made.status == 200, "zones/modify: \(made.json)")
        let acknowledged = VersionLedger()
        let writing = WritingFlag()
        async let feeds = withThrowingTaskGroup(of: ChangeFeed.self) { group in
            for syncer in 0..<2 {
                group.addTask { try await Self.sync(ws, first: syncer, servers, while: { writing.isOn }) }
            }
            return try await group.reduce(into: [ChangeFeed]()) { $0.append($1) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<Self.writers {
                group.addTask { try await Self.write(ws, writer, via: servers[writer % 2], acknowledged) }
            }
            try await group.waitForAll()
        }
        writing.turnOff()
        let expected = acknowledged.latest
        #expect(expected.count == Self.writers * Self.namesPerWriter)
        for feed in try await feeds {
            #expect(feed.duplicates.isEmpty, "changes seen twice: \(feed.duplicates)")
            #expect(feed.latest == expected, "missed: \(expected.filter { feed.latest[$0.key] != $0.value })")
            #expect(feed.outOfOrder.isEmpty, "versions seen after a later one: \(feed.outOfOrder)")
            print(
                "stratusd scale-out: a syncer read \(feed.changes) changes in \(feed.pages) pages through both "
                    + "servers; \(feed.duplicates.count) duplicated, \(expected.count { feed.latest[$0.key] != $0.value }) "
                    + "missed of \(expected.count) records")
        }
    }

    /// Writer `writer`'s batches through `server`, each retried while it is refused with a
    /// retryable 503; records each acknowledged version.
    static func write(_ ws: WebServicesFixture, _ writer: Int, via server: URL, _ ledger: VersionLedger)
        async throws
    {
        for batch in 0..<batchesPerWriter {
            let names = (0..<batchSize).map { "w\(writer)-n\((batch * batchSize + $0) % namesPerWriter)" }
            let operations = names.map { name -> [String: Any] in
                [
                    "operationType": "forceReplace",
                    "record": [
                        "recordName": name, "recordType": "Item", "fields": ["v": ["value": batch, "type": "INT64"]],
                    ],
                ]
            }
            var outline: AnswerOutline
            repeat {
                outline = AnswerOutline(
                    try await ws.post(
                        "records/modify", ["operations": operations, "zoneID": zone], database: "private", at: server))
                if outline.isRetryable { try await Task.sleep(for: .milliseconds(200)) }
            } while outline.isRetryable
            try #require(
                outline.status == 200 && outline.recordErrorCodes.isEmpty,
                "writer \(writer) batch \(batch): \(outline.status) \(outline.recordErrorCodes)")
            ledger.acknowledge(names, version: batch)
        }
    }

    /// Follows the zone's change feed, page by page, alternating servers from `first`, while
    /// `writing()` says so; then reads to the end.
    static func sync(_ ws: WebServicesFixture, first: Int, _ servers: [URL], while writing: @Sendable () -> Bool)
        async throws -> ChangeFeed
    {
        var feed = ChangeFeed()
        var page = first
        func fetch() async throws -> Bool {
            var body: [String: Any] = ["zoneID": zone, "resultsLimit": pageSize]
            if let token = feed.token { body["syncToken"] = token }
            let answer = try await ws.post("records/changes", body, database: "private", at: servers[page % 2])
            page += 1
            try #require(answer.status == 200, "records/changes: \(answer.json)")
            feed.add(answer.records)
            feed.pages += 1
            feed.token = answer.json["syncToken"] as? String
            return answer.json["moreComing"] as? Bool ?? false
        }
        while writing() {
            if try await !fetch() { try await Task.sleep(for: .milliseconds(20)) }
        }
        while try await fetch() {}
        return feed
    }
}

/// Whether the writers are still writing.
final class WritingFlag: Sendable {
    private let on = Atomic(true)
    var isOn: Bool { on.load(ordering: .acquiring) }
    func turnOff() { on.store(false, ordering: .releasing) }
}

/// The latest acknowledged version of each record.
final class VersionLedger: Sendable {
    private let versions = Mutex<[String: Int]>([:])

    func acknowledge(_ names: [String], version: Int) {
        versions.withLock { versions in for name in names { versions[name] = version } }
    }

    var latest: [String: Int] { versions.withLock { $0 } }
}

/// What one syncer saw in the change feed.
struct ChangeFeed: Sendable {
    var token: String?
    /// Pages read, and changes in them.
    var pages = 0
    var changes = 0
    /// The latest version seen of each record.
    var latest: [String: Int] = [:]
    /// Changes (record and version) seen more than once.
    var duplicates: [String] = []
    /// Versions seen after a later version of the same record.
    var outOfOrder: [String] = []
    private var seen = Set<String>()

    mutating func add(_ records: [[String: Any]]) {
        changes += records.count
        for record in records {
            let name = record["recordName"] as? String ?? "?"
            let fields = record["fields"] as? [String: Any]
            let version = ((fields?["v"] as? [String: Any])?["value"] as? NSNumber)?.intValue ?? -1
            let change = "\(name)@\(version)"
            if !seen.insert(change).inserted { duplicates.append(change) }
            if let previous = latest[name], previous > version { outOfOrder.append(change) }
            latest[name] = version
        }
    }
}
