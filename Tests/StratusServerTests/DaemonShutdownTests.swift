import Foundation
import StratusTestSupport
import Testing

@testable import StratusServer

/// SIGTERM with a request in flight: the request gets its whole answer, no new connection is
/// accepted meanwhile, and `stratusd` exits 0 once the request is done; an open event stream,
/// which has no end of its own for an hour, ends at once instead.
@Suite("stratusd: graceful shutdown")
struct DaemonShutdownTests {
    /// `psql` against `url`, run to its end.
    private func psql(_ url: String, _ sql: String, timeout: TimeInterval = 30) throws -> CommandRun {
        try CommandRun(
            URL(fileURLWithPath: "/usr/bin/psql"), [url, "-X", "-q", "-t", "-A", "-c", sql], timeout: timeout)
    }

    /// Polls `count` (a `SELECT count(*)`) until it is 1 or more.
    private func waitUntil(_ url: String, _ count: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while (Int(try psql(url, count).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) < 1 {
            guard Date() < deadline else { throw DaemonTestFailure("never true: \(count)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test func aRequestInFlightAtSIGTERMIsFinished() throws {
        let database = try PostgreSQLPrivateServer()
        defer { database.stop() }
        let server = try StratusDaemonProcess(arguments: ["--backend", database.url.description])
        defer { server.stop() }
        let health = server.baseURL.appendingPathComponent("health").absoluteString
        #expect(try CommandRun.curl(["--fail", health]).status == 0)

        // A transaction holding the store's table, so the health check's read waits (its
        // answer comes after its 1 s limit: 503); SIGTERM is sent once the read is waiting.
        let postgres = database.url.description.components(separatedBy: "?")[0]
        let holder = ChildProcess()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        holder.arguments = [
            postgres, "-X", "-q", "-c",
            "BEGIN; LOCK TABLE stratus.kv IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(8); COMMIT;",
        ]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        try waitUntil(
            postgres,
            "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = 'stratus.kv'::regclass")

        let inFlight = ChildProcess()
        let answer = try TemporaryDirectory(prefix: "in-flight")
        defer { try? answer.remove() }
        _ = FileManager.default.createFile(atPath: answer.appending("body").path, contents: nil)
        inFlight.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        inFlight.arguments = ["--silent", "--max-time", "10", "--write-out", " %{http_code}", health]
        inFlight.standardOutput = try FileHandle(forWritingTo: answer.appending("body"))
        try inFlight.run()
        try waitUntil(postgres, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        server.process.terminate()
        Thread.sleep(forTimeInterval: 0.2)
        let refused = try CommandRun.curl([health])
        #expect(refused.status == 7, "no new connection after SIGTERM: \(refused.standardError)")

        #expect(inFlight.waitForExit(within: 60), "the in-flight request ended")
        let body = (try? String(contentsOf: answer.appending("body"), encoding: .utf8)) ?? ""
        #expect(inFlight.terminationStatus == 0, "the in-flight request got an answer")
        #expect(body.contains(#""unavailable""#) && body.hasSuffix(" 503"), "\(body)")
        #expect(server.process.waitForExit(within: 60), "stratusd exited after SIGTERM")
        #expect(server.process.terminationStatus == 0)
    }

    /// An event stream open at SIGTERM is finished by the server (`curl` exits 0) at once, not
    /// at the end of its wait for entries, and stratusd exits 0. SIGTERM goes as soon as the
    /// stream opened, so a stream that waited out its wait would end about one keep-alive
    /// interval (15 s) later: the bound, two thirds of that interval, tells the two apart
    /// however loaded the machine is, without being a speed target. The times are those at
    /// which `curl` and stratusd were reaped, by threads of their own: this test's own waits can
    /// resume seconds late when the whole suite loads the machine (10.8 s once, both cases).
    @Test(arguments: [false, true]) func anOpenEventStreamDoesNotHoldUpShutdown(postgres: Bool) async throws {
        let ws = try WebServicesFixture(postgres: postgres)
        let courier = try await ws.courierPath(as: .alice)
        // 300 s: far past a keep-alive, so only the server ends the stream in time.
        let stream = try OpenEventStream(
            url: ws.server.baseURL.absoluteString + "/" + courier + "/events", seconds: 300)
        #expect(await stream.waitFor(": stream", within: 120), "the stream opened: \(stream.text)")

        let stopping = ContinuousClock.now
        ws.server.process.terminate()
        let ended = await stream.waitForEnd(within: 120, orUntil: "event: notification")
        let exited = await ws.server.process.exited(within: 120)
        let streamEnded = (stream.endedAt ?? .now) - stopping
        let stopped = (ws.server.process.exitedAt ?? .now) - stopping
        print(
            "\(postgres ? "PostgreSQL" : "SQLite"): after SIGTERM, the event stream ended in \(streamEnded), stratusd exited in \(stopped)"
        )

        #expect(ended && stream.endedByTheServer, "the server finished the stream: \(stream.text)")
        #expect(exited && ws.server.process.terminationStatus == 0, "stratusd exited 0: \(ws.serverLog.suffix(2_000))")
        let bound = NotificationRoutes.keepAliveInterval * 2 / 3
        #expect(stopped < bound, "SIGTERM ends the stream and stratusd well before a keep-alive wait ends")
    }
}
