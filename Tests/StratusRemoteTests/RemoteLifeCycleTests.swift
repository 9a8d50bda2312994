import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// The seed's long-lived life cycle for real (issue 12): a client process
/// (`StratusTestProbe remote-long-lived start`) starts a long-lived modify and a long-lived
/// zone-changes fetch through a remote container and is SIGKILLed after both were persisted
/// and delivered a few callbacks; a new process (`resume`) lists the outstanding operations,
/// fetches a proxy of each, re-adds them, and must receive every callback exactly once, in the
/// original order — the killed process's callbacks first. Then the same with `stratusd`
/// frozen in the middle of the fetch, SIGKILLed with the client, and started again on its
/// store: its long-lived runner resumes the fetch after the (2 s) lease.
@Suite("Remote containers: the long-lived life cycle across SIGKILL")
struct RemoteLifeCycleTests {
    static let container = "iCloud.com.example.lifecycle"
    /// Records of the fetched zone, one per page: enough that the fetch is still running on
    /// the server when the client is killed or the server frozen.
    static let records = 3_000
    /// Records the long-lived modify saves.
    static let saves = 50
    /// Callbacks of each operation the first process delivers before it stops to be killed.
    static let holdAfter = 4
    static let lease = ["--long-lived-lease-seconds", "2"]

    let directory: TemporaryDirectory
    let server: StratusDaemonProcess
    let account: RemoteProbeAccount

    init() async throws {
        directory = try TemporaryDirectory(prefix: "stratus-life-cycle")
        let made = try provisionStratusd(container: Self.container, users: ["alice"], in: directory)
        server = try StratusDaemonProcess(arguments: Self.lease, directory: directory)
        account = try RemoteProbeAccount(
            apiToken: made.apiToken, webAuthToken: made.sessions[0], container: Self.container, in: directory)
        let remote = RemoteServer(
            url: server.baseURL, credentials: .session(apiToken: made.apiToken, webAuthToken: made.sessions[0]))
        try await Self.prepare(CKContainer(identifier: Self.container, server: remote).privateCloudDatabase)
    }

    /// Makes the zones and fills `Feed` with records `f0`… in order.
    static func prepare(_ database: CKDatabase) async throws {
        for name in ["Feed", "Saves"] { _ = try await database.save(CKRecordZone(zoneName: name)) }
        let zoneID = CKRecordZone.ID(zoneName: "Feed", ownerName: CKCurrentUserDefaultName)
        for start in stride(from: 0, to: records, by: 300) {
            let batch = (start..<min(records, start + 300)).map { index in
                let record = CKRecord(recordType: "Item", recordID: .init(recordName: "f\(index)", zoneID: zoneID))
                record["n"] = Int64(index)
                return record
            }
            let saved = try await database.modifyRecords(saving: batch, deleting: []).saveResults
            #expect(saved.values.allSatisfy { (try? $0.get()) != nil }, "filling the fetched zone")
        }
    }

    @Test func aKilledClientsOperationsAreReplayedByTheNextProcessExactlyOnceInOrder() async throws {
        defer { finish() }
        let started = Date()
        let killed = try await startAndKill(freezing: nil)
        let resumed = try await resume(at: server)
        check(killed: killed, resumed: resumed)
        print("life cycle, client SIGKILLed: \(resumed.lines.count) lines replayed in \(seconds(since: started))")
    }

    @Test func aKilledStratusdResumesTheFetchAndTheNextProcessGetsEveryCallbackOnce() async throws {
        defer { finish() }
        let started = Date()
        let killed = try await startAndKill(freezing: server)
        server.crash()
        let restarted = try server.restarted(arguments: Self.lease)
        defer { restarted.stop() }
        let resumed = try await resume(at: restarted)
        check(killed: killed, resumed: resumed)
        let fetchID = killed.ids("PERSISTED")["fetch"] ?? "?"
        let log = restarted.standardError
        #expect(
            log.split(separator: "\n").contains {
                $0.contains("resuming long-lived operation") && $0.contains(fetchID)
            },
            "the restarted stratusd resumed the fetch, killed in its middle: \(log.suffix(2000))")
        print("life cycle, client and stratusd SIGKILLed: \(resumed.lines.count) lines in \(seconds(since: started))")
    }

    /// Runs `start`, which holds each operation after a few callbacks (freezing `server` at
    /// the fetch's), and SIGKILLs it at the fetch's hold; returns what it printed.
    private func startAndKill(freezing frozen: StratusDaemonProcess?) async throws -> RemoteLifeCycleTranscript {
        var arguments =
            ["remote-long-lived", "start"] + account.arguments(server: server.baseURL)
            + ["Feed", "Saves", String(Self.saves), String(Self.holdAfter)]
        if let frozen { arguments.append(String(frozen.process.processIdentifier)) }
        let probe = try KillableProbe(
            arguments: arguments,
            killPoint: .init(after: 1, linesStartingWith: "HOLD fetch", delayMicroseconds: 0))
        var lines: [String] = []
        for await line in probe.lines { lines.append(line) }
        let exit = await probe.exit()
        #expect(probe.killedAtKillPoint, "killed at the fetch's hold: \(lines.suffix(5)) \(probe.errorOutput)")
        #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL)
        let transcript = RemoteLifeCycleTranscript(lines: lines)
        #expect(Set(transcript.ids("PERSISTED").keys) == ["modify", "fetch"], "both persisted before the kill")
        return transcript
    }

    /// Runs `resume` against `at` to its end; returns what it printed.
    private func resume(at target: StratusDaemonProcess) async throws -> RemoteLifeCycleTranscript {
        let probe = try KillableProbe(
            arguments: ["remote-long-lived", "resume"] + account.arguments(server: target.baseURL))
        var lines: [String] = []
        for await line in probe.lines { lines.append(line) }
        let exit = await probe.exit()
        #expect(exit.reason == .exit && exit.status == 0, "resume failed: \(probe.errorOutput)")
        return RemoteLifeCycleTranscript(lines: lines)
    }

    /// Both operations listed, fetched and delivered in full, exactly once in order, after what
    /// the killed process delivered; none outstanding afterwards.
    private func check(killed: RemoteLifeCycleTranscript, resumed: RemoteLifeCycleTranscript) {
        let persisted = killed.ids("PERSISTED")
        #expect(Set(resumed.listed) == Set(persisted.values), "the new process lists both operations")
        #expect(resumed.ids("PROXY") == persisted, "a proxy of each, of its class")
        RemoteLifeCycleTranscript.expectExactlyOnce(
            resumed.callbacks("modify"), shape: RemoteLifeCycleTranscript.modifyShape(saves: Self.saves),
            after: killed.callbacks("modify"), "the modify")
        RemoteLifeCycleTranscript.expectExactlyOnce(
            resumed.callbacks("fetch"), shape: RemoteLifeCycleTranscript.fetchShape(records: Self.records),
            after: killed.callbacks("fetch"), killedDelivered: true, "the fetch")
        #expect(resumed.lines.last == "REMAINING 0", "delivered operations leave the list: \(resumed.lines.suffix(3))")
    }

    private func seconds(since start: Date) -> String {
        String(format: "%.1f s", Date().timeIntervalSince(start))
    }

    /// Kills the server (SIGKILL: a frozen one ignores SIGTERM) and removes its directory.
    private func finish() {
        server.crash()
        try? directory.remove()
    }
}
