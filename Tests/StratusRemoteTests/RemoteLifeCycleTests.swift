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
/// store — or, on PostgreSQL, a second `stratusd` on the same database taking over: its
/// long-lived runner resumes the fetch after the (2 s) lease (``RemoteLifeCycleFixture``).
@Suite("Remote containers: the long-lived life cycle across SIGKILL")
struct RemoteLifeCycleTests {
    /// Records of the fetched zone, one per page: enough that the fetch is still running on
    /// the server when the client is killed or the server frozen.
    static let records = 3_000
    /// Records the long-lived modify saves.
    static let saves = 50
    /// Callbacks of each operation the first process delivers before it stops to be killed.
    static let holdAfter = 4

    @Test func aKilledClientsOperationsAreReplayedByTheNextProcessExactlyOnceInOrder() async throws {
        let fixture = try await RemoteLifeCycleFixture(records: Self.records)
        let started = Date()
        let killed = try await startAndKill(fixture, freezing: false)
        let resumed = try await resume(fixture, at: fixture.server)
        check(killed: killed, resumed: resumed)
        print("life cycle, client SIGKILLed: \(resumed.lines.count) lines replayed in \(seconds(since: started))")
    }

    @Test func aKilledStratusdResumesTheFetchAndTheNextProcessGetsEveryCallbackOnce() async throws {
        let fixture = try await RemoteLifeCycleFixture(records: Self.records)
        let started = Date()
        let killed = try await startAndKill(fixture, freezing: true)
        fixture.server.kill()
        let restarted = try fixture.server.restarted(arguments: RemoteLifeCycleFixture.lease)
        defer { restarted.stop() }
        let resumed = try await resume(fixture, at: restarted)
        check(killed: killed, resumed: resumed)
        expectResumed(killed, by: restarted)
        print("life cycle, client and stratusd SIGKILLed: \(resumed.lines.count) lines in \(seconds(since: started))")
    }

    @Test func anotherStratusdOnThePostgreSQLTakesOverAndTheNextProcessGetsEveryCallbackOnce() async throws {
        let fixture = try await RemoteLifeCycleFixture(postgres: true, records: Self.records)
        let other = try #require(fixture.other)
        let started = Date()
        let killed = try await startAndKill(fixture, freezing: true)
        fixture.server.kill()
        let resumed = try await resume(fixture, at: other)
        check(killed: killed, resumed: resumed)
        expectResumed(killed, by: other)
        print(
            "life cycle, client and one of two stratusd on PostgreSQL SIGKILLed: \(resumed.lines.count) lines in \(seconds(since: started))"
        )
    }

    /// `server`'s log says it resumed the fetch `killed` started: it was killed in its middle.
    private func expectResumed(_ killed: RemoteLifeCycleTranscript, by server: StratusDaemonProcess) {
        let fetchID = killed.ids("PERSISTED")["fetch"] ?? "?"
        let log = server.standardError
        #expect(
            log.split(separator: "\n").contains {
                $0.contains("resuming long-lived operation") && $0.contains(fetchID)
            },
            "the stratusd resumed the fetch, killed in its middle: \(log.suffix(2000))")
    }

    /// Runs `start` against the fixture's server, which holds each operation after a few
    /// callbacks (with `freezing`, freezing the server at the fetch's), and SIGKILLs it at the
    /// fetch's hold; returns what it printed.
    private func startAndKill(_ fixture: RemoteLifeCycleFixture, freezing: Bool) async throws
        -> RemoteLifeCycleTranscript
    {
        let server = fixture.server
        var arguments =
            ["remote-long-lived", "start"] + fixture.account.arguments(server: server.baseURL)
            + ["Feed", "Saves", String(Self.saves), String(Self.holdAfter)]
        if freezing { arguments.append(String(server.process.processIdentifier)) }
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

    /// Runs `resume` against `target` to its end; returns what it printed.
    private func resume(_ fixture: RemoteLifeCycleFixture, at target: StratusDaemonProcess) async throws
        -> RemoteLifeCycleTranscript
    {
        let probe = try KillableProbe(
            arguments: ["remote-long-lived", "resume"] + fixture.account.arguments(server: target.baseURL))
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
}
