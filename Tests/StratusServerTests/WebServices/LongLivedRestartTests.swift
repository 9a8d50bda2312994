import Foundation
import Stratus
import Testing

/// Long-lived operations outlive their stratusd (decision 0014.10): killed mid-operation and
/// started again on the same store, or killed while another stratusd shares its PostgreSQL,
/// the operation completes from where its journal stopped, every callback journaled once, in
/// order; stopped gracefully, it releases its leases so the next process resumes at once.
@Suite("stratusd: long-lived operations across restarts")
struct LongLivedRestartTests {
    /// Records in the zone the interrupted fetch reads one per journaled page: enough pages
    /// that the kill lands in the middle on a fast machine.
    static let records = 1_200
    static let lease = ["--long-lived-lease-seconds", "2"]

    @Test func aKilledStratusdsOperationCompletesAfterTheRestart() async throws {
        let ws = try WebServicesFixture(serverArguments: Self.lease)
        try await Self.interrupt(ws)
        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments + Self.lease, directory: ws.directory)
        defer { restarted.stop() }
        try await Self.verify(ws, at: restarted)
    }

    @Test func anotherStratusdResumesAnOperationWhoseProcessWasKilled() async throws {
        let ws = try WebServicesFixture(postgres: true, serverArguments: Self.lease)
        let other = try StratusDaemonProcess(arguments: ws.backendArguments + Self.lease, directory: ws.directory)
        defer { other.stop() }
        try await Self.interrupt(ws)
        try await Self.verify(ws, at: other)
    }

    @Test func aGracefulStopReleasesTheLeaseForTheNextProcess() async throws {
        // The default 30 s lease: the restarted process must not need to wait for it.
        let ws = try WebServicesFixture()
        try await Self.interrupt(ws, graceful: true)
        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments, directory: ws.directory)
        defer { restarted.stop() }
        let started = Date()
        let before = try await ws.eventPage("long", from: 0, timeout: 0, at: restarted.baseURL).events.count
        var resumedAfter: Double?
        while Date().timeIntervalSince(started) < 25 {
            let now = try await ws.eventPage("long", from: Int64(before), timeout: 1, at: restarted.baseURL)
            if !now.events.isEmpty {
                resumedAfter = Date().timeIntervalSince(started)
                break
            }
        }
        let resumed = try #require(resumedAfter, "the operation did not resume within 25 s of the restart")
        print(
            "graceful stop: the restarted stratusd resumed the operation \(String(format: "%.1f", resumed)) s after it started"
        )
        try await Self.verify(ws, at: restarted)
    }

    /// Fills the zone, submits a long-lived modify and a one-record-per-page zone fetch, waits
    /// for the fetch's 20th callback and kills the server (SIGKILL, or SIGTERM if `graceful`).
    static func interrupt(_ ws: WebServicesFixture, graceful: Bool = false) async throws {
        try await ws.makeZone(LongLivedEndpointTests.zone.zoneName)
        try await ws.fillZone(records: records)
        #expect(try await ws.submit(LongLivedEndpointTests.modify(3, prefix: "m"), id: "modify").status == 200)
        #expect(try await ws.submit(LongLivedEndpointTests.zoneChanges(pageSize: 1), id: "long").status == 200)
        var seen = 0
        let deadline = Date().addingTimeInterval(60)
        while seen < 20 && Date() < deadline {
            let page = try await ws.eventPage("long", from: Int64(seen), timeout: 1)
            seen += page.events.count
            try #require(page.state == "running", "the fetch ended before the kill: make it longer")
        }
        try #require(seen >= 20, "the fetch journaled no 20 callbacks within a minute")
        if graceful {
            let status = ws.server.stop()
            #expect(status == 0, "stratusd stopped gracefully")
        } else {
            kill(ws.server.process.processIdentifier, SIGKILL)
            ws.server.process.waitUntilExit()
        }
        let left = try await Self.countAfterKill(ws)
        print("long-lived fetch interrupted after \(seen)+ callbacks (\(graceful ? "SIGTERM" : "SIGKILL")); \(left)")
    }

    private static func countAfterKill(_ ws: WebServicesFixture) async throws -> String {
        "the server is \(ws.server.process.isRunning ? "still running" : "gone")"
    }

    /// Every callback of both operations is journaled once, in order, through `server`, and
    /// `server` says it resumed the fetch.
    static func verify(_ ws: WebServicesFixture, at server: StratusDaemonProcess) async throws {
        let started = Date()
        let events = try await ws.allEvents("long", at: server.baseURL, deadline: 180)
        #expect(events.map(\.sequence) == Array(0..<Int64(events.count)), "sequence numbers are 0…n-1, each once")
        let lines = try EventSummaries.lines(events, of: "CKFetchRecordZoneChangesOperation")
        // The modify's records (m…) may be in the fetch too, as it ran beside it.
        let changed = lines.filter { $0.hasPrefix("changed f") }
        #expect(changed.count == records, "every record once: \(changed.count) of \(records)")
        #expect(Set(changed) == Set((0..<records).map { "changed f\($0)" }), "the records of the zone")
        let all = lines.filter { $0.hasPrefix("changed ") }
        #expect(all.count == Set(all).count, "no record twice")
        #expect(lines.suffix(2) == ["zone Journal", "finished"])
        #expect(lines.filter { $0 == "finished" }.count == 1)
        // One page per record: each record is followed by its page's token before the next.
        for (index, line) in lines.dropLast(2).enumerated() {
            #expect(line.hasPrefix(index % 2 == 0 ? "changed " : "tokens "), "callback \(index): \(line)")
        }
        let modify = try EventSummaries.lines(
            try await ws.allEvents("modify", at: server.baseURL), of: "CKModifyRecordsOperation")
        #expect(modify == ["saved m0", "saved m1", "saved m2", "finished"])
        #expect(server.standardError.contains("resuming long-lived operation"), "\(server.standardError.suffix(2000))")
        print(
            "long-lived fetch: \(events.count) callbacks read through the resuming stratusd in \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
    }
}
