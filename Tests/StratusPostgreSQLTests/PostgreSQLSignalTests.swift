import Foundation
import StratusBackend
import StratusTestSupport
import Testing

@testable import StratusPostgreSQL

/// Commit signals (`pg_notify` / `LISTEN`, decision 0014.6) between two handles of one store:
/// only committed transactions signal, in commit order; another store's signals on the same
/// channel name never arrive; a listener whose connection is killed says `reconnected` and
/// goes on receiving.
@Suite("PostgreSQL commit signals")
struct PostgreSQLSignalTests {
    /// What a listener received, in order.
    actor Received {
        var signals: [CommitSignal] = []
        func append(_ signal: CommitSignal) { signals.append(signal) }
        var payloads: [String] { signals.compactMap { if case .signal(let p) = $0 { p } else { nil } } }
    }

    struct Aborted: Error {}

    /// Starts relaying `backend`'s signals on `channel` into a `Received`.
    static func listen(_ backend: PostgreSQLBackend, _ channel: String) -> (Received, Task<Void, Never>) {
        let received = Received()
        let stream = backend.signals(channel: channel)
        let task = Task { for await signal in stream { await received.append(signal) } }
        return (received, task)
    }

    /// Commits `payload` on `channel` through `backend`, with a write so the body is not empty.
    static func commit(_ payload: String, _ channel: String, _ backend: PostgreSQLBackend) throws {
        try backend.write { txn in
            try txn.set(Array("k-\(payload)".utf8), [1])
            try (txn as? any SignalingWriteTransaction)?.signal(channel: channel, payload: payload)
        }
    }

    /// How many times a test looks for what it expects before giving up, 20 ms apart: 90 s
    /// when the test runs freely. The budget counts looks, not wall time: the relaying task and
    /// the looking task need the cooperative pool (two threads on CI's two cores), and blocking
    /// tests beside them held it long enough that three fresh-clone runs under load failed
    /// wall-clock bounds of 20 s and then 90 s, though every signal arrived (the tests' later
    /// waits passed). A starved test spends none of its looks.
    static let patience = 4_500

    /// Waits until `condition` holds for what was received, looking up to `looks` times.
    static func until(
        _ received: Received, looks: Int = patience, _ condition: @Sendable ([CommitSignal]) -> Bool
    ) async -> Bool {
        for _ in 0..<looks {
            if condition(await received.signals) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(await received.signals)
    }

    /// Commits `prefix-0`, `prefix-1`, … on `channel` until one of them was received, looking
    /// 13 times (≈ 250 ms) after each commit, for up to `patience` looks in all; whether one came.
    static func commitUntilReceived(
        _ prefix: String, _ received: Received, _ channel: String, _ writer: PostgreSQLBackend
    ) async throws -> Bool {
        @Sendable func arrived(_ signals: [CommitSignal]) -> Bool {
            signals.contains { if case .signal(let payload) = $0 { payload.hasPrefix(prefix + "-") } else { false } }
        }
        for attempt in 0..<(patience / 13) {
            try commit("\(prefix)-\(attempt)", channel, writer)
            if await until(received, looks: 13, arrived) { return true }
        }
        return false
    }

    /// Sends probes until the listener has one: its `LISTEN` is in place from then on.
    static func waitUntilListening(_ received: Received, _ channel: String, _ writer: PostgreSQLBackend) async throws {
        if try await commitUntilReceived("probe", received, channel, writer) { return }
        Issue.record("the listener received no probe")
    }

    /// A new store with a listening handle and a writing handle, the listener's `LISTEN` in
    /// place on channel "changes": what `body` gets, with what the listener received.
    static func withListening(
        _ body: (PostgreSQLTemporaryStorage, PostgreSQLBackend, Received) async throws -> Void
    ) async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let listener = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        let writer = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        defer { try? writer.close() }
        defer { try? listener.close() }
        let (received, task) = listen(listener, "changes")
        defer { task.cancel() }
        try await waitUntilListening(received, "changes", writer)
        try await body(storage, writer, received)
    }

    @Test func onlyCommittedTransactionsSignalInCommitOrder() async throws {
        try await Self.withListening { _, writer, received in

            #expect(throws: Aborted.self) {
                try writer.write { txn in
                    try (txn as? any SignalingWriteTransaction)?.signal(channel: "changes", payload: "aborted")
                    throw Aborted()
                }
            }
            try Self.commit("other-channel", "elsewhere", writer)
            for index in 0..<5 { try Self.commit("c\(index)", "changes", writer) }
            #expect(await Self.until(received) { $0.contains(.signal("c4")) })
            let payloads = await received.payloads.filter { !$0.hasPrefix("probe-") }
            #expect(payloads == ["c0", "c1", "c2", "c3", "c4"], "nothing aborted, nothing of another channel")
        }
    }

    @Test func anotherStoresSignalsNeverArrive() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        let other = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        defer { try? other.destroy() }
        let listener = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        let writer = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        let stranger = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(other))
        defer { for backend in [listener, writer, stranger] { try? backend.close() } }
        let (received, task) = Self.listen(listener, "changes")
        defer { task.cancel() }
        try await Self.waitUntilListening(received, "changes", writer)
        try Self.commit("theirs", "changes", stranger)
        try Self.commit("ours", "changes", writer)
        #expect(await Self.until(received) { $0.contains(.signal("ours")) })
        #expect(await !received.payloads.contains("theirs"), "the other store's signal, same channel name")
    }

    @Test func aKilledListeningConnectionReconnectsAndSaysSo() async throws {
        try await Self.withListening { storage, writer, received in

            let configuration = try PostgreSQLTestServer.configuration(storage)
            let channel = PostgreSQLBackend.notifyChannel("changes", schema: configuration.schema)
            let admin = try PostgreSQLConnection(parameters: configuration.connectionParameters, redact: [])
            defer { admin.close() }
            let killed = try admin.run([
                PostgreSQLStatement(
                    "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1) t",
                    [.text("LISTEN \(channel)")])
            ])
            #expect(killed.first?.integer(row: 0, column: 0) == 1, "one listening connection was killed")
            #expect(await Self.until(received) { $0.contains(.reconnected) }, "the listener says it reconnected")
            _ = try await Self.commitUntilReceived("after", received, "changes", writer)
            #expect(await received.payloads.contains { $0.hasPrefix("after-") }, "signals arrive again")
        }
    }
}
