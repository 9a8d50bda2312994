import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Long-lived operations outlive their stratusd (decision 0014.10): killed mid-operation and
/// started again on the same store, or killed while another stratusd shares its PostgreSQL,
/// the operation completes from where its journal stopped, every callback journaled once, in
/// order; stopped gracefully, it releases its leases so the next process resumes at once.
@Suite("stratusd: long-lived operations across restarts")
struct LongLivedRestartTests {
    /// Records in the zone the interrupted fetch reads one per journaled page: enough pages
    /// that the kill lands in the middle on a fast machine (1,200 took 0.3 s to run here, short
    /// enough that a starved test once froze the server only after the fetch had finished).
    static let records = 3_000
    static let lease = ["--long-lived-lease-seconds", "2"]

    @Test func aKilledStratusdsOperationCompletesAfterTheRestart() async throws {
        let ws = try WebServicesFixture(serverArguments: Self.lease)
        let id = try await Self.interrupt(ws)
        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments + Self.lease, directory: ws.directory)
        defer { restarted.stop() }
        try await Self.verify(ws, id, at: restarted)
    }

    @Test func anotherStratusdResumesAnOperationWhoseProcessWasKilled() async throws {
        let ws = try WebServicesFixture(postgres: true, serverArguments: Self.lease)
        let other = try StratusDaemonProcess(arguments: ws.backendArguments + Self.lease, directory: ws.directory)
        defer { other.stop() }
        let id = try await Self.interrupt(ws)
        try await Self.verify(ws, id, at: other)
    }

    @Test func aGracefulStopReleasesTheLeaseForTheNextProcess() async throws {
        // The default 30 s lease: the restarted process must not need to wait for it.
        let ws = try WebServicesFixture()
        let id = try await Self.interrupt(ws, graceful: true)
        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments, directory: ws.directory)
        defer { restarted.stop() }
        let started = Date()
        var resumedAfter: Double?
        while Date().timeIntervalSince(started) < 25 {
            if restarted.standardError.contains("resuming long-lived operation") {
                resumedAfter = Date().timeIntervalSince(started)
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let resumed = try #require(resumedAfter, "the operation did not resume within 25 s of the restart")
        print(
            "graceful stop: the restarted stratusd resumed the operation \(String(format: "%.1f", resumed)) s after it started"
        )
        try await Self.verify(ws, id, at: restarted)
    }

    /// Fills the zone, submits a long-lived modify and a one-record-per-page zone fetch, and
    /// as soon as the fetch is seen running with callbacks journaled, freezes the server
    /// (SIGSTOP, so it cannot finish the fetch meanwhile) and kills it (SIGKILL, or SIGCONT and
    /// SIGTERM if `graceful`). A loaded machine can starve the test until a fetch has finished
    /// (it takes a few seconds): then a new fetch is submitted, up to three. Returns the ID of
    /// the fetch interrupted.
    static func interrupt(_ ws: WebServicesFixture, graceful: Bool = false) async throws -> String {
        try await ws.makeZone(LongLivedEndpointTests.zone.zoneName)
        try await ws.fillZone(records: records)
        #expect(try await ws.submit(LongLivedEndpointTests.modify(3, prefix: "m"), id: "modify").status == 200)
        for attempt in 1...3 {
            let id = "long\(attempt)"
            #expect(try await ws.submit(LongLivedEndpointTests.zoneChanges(pageSize: 1), id: id).status == 200)
            guard let seen = try await Self.seenRunning(ws, id) else { continue }
            let pid = ws.server.process.processIdentifier
            kill(pid, SIGSTOP)
            if graceful {
                kill(pid, SIGCONT)
                #expect(ws.server.stop() == 0, "stratusd stopped gracefully")
            } else {
                kill(pid, SIGKILL)
                _ = ws.server.process.waitForExit(within: 60)
            }
            print("long-lived fetch \(id) interrupted after \(seen)+ callbacks (\(graceful ? "SIGTERM" : "SIGKILL"))")
            return id
        }
        Issue.record("three fetches finished before the test saw them running: the machine starved the test")
        throw CancellationError()
    }

    /// How many callbacks fetch `id` journaled once it is seen running with some; `nil` when it
    /// finished first.
    private static func seenRunning(_ ws: WebServicesFixture, _ id: String) async throws -> Int? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let page = try await ws.eventPage(id, from: 0, timeout: 1)
            guard page.state == "running" else { return nil }
            if !page.events.isEmpty { return page.events.count }
        }
        Issue.record("the fetch journaled no callback within a minute")
        return nil
    }

    /// Every callback of both operations is journaled once, in order, through `server`, and
    /// `server` says it resumed the fetch.
    static func verify(_ ws: WebServicesFixture, _ id: String, at server: StratusDaemonProcess) async throws {
        let started = Date()
        let events = try await ws.allEvents(id, at: server.baseURL, deadline: 180)
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
