import Foundation
import Synchronization
import Testing

/// PostgreSQL halted under a load of writes and reads through `stratusd`, then started again:
/// meanwhile every answer is a success or a retryable 503 `TRY_AGAIN_LATER` with a
/// `retryAfter` (never a 500, never a hang) and `/health` says `unavailable`; every client
/// succeeds again on its own once the database is back (decision 0012's test plan, Faults).
@Suite("stratusd: PostgreSQL outage under load")
struct OutageTests {
    /// How long the database stays down.
    static let outage = Duration.seconds(3)

    @Test func aPostgreSQLOutageIsRetryableAndOverByItself() async throws {
        let ws = try WebServicesFixture(postgres: true)
        let postgres = try #require(ws.postgresServer)
        try await ws.makeAtomicZone()
        let ledger = WriteLedger()
        let tally = OutageTally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask { await Self.load(ws, worker: worker, tally: tally, ledger: ledger) }
            }
            try await Task.sleep(for: .seconds(1))
            try postgres.halt()
            tally.phase(.down)
            let health = try await ws.send("GET", "health", body: nil, as: .none)
            #expect(health.status == 503 && health.json["status"] as? String == "unavailable", "\(health.json)")
            try await Task.sleep(for: Self.outage)
            try postgres.resume()
            tally.phase(.resumed)
            try await group.waitForAll()
        }
        let counts = tally.counts
        #expect(counts.unexpected.isEmpty, "answers other than success or a retryable 503: \(counts.unexpected)")
        #expect(counts.retryable > 0, "the outage was seen as 503 TRY_AGAIN_LATER")
        #expect(counts.succeededAfterResume == 4, "every worker succeeded again after the database came back")
        try await ws.verify(ledger)
        print(
            "stratusd PostgreSQL outage (\(Self.outage)): \(counts.succeeded) successes, \(counts.retryable) "
                + "retryable 503s, \(counts.unexpected.count) other answers; \(ledger.acknowledgedCount) batches acknowledged"
        )
    }

    /// Writes (workers 0–2) or reads (worker 3) until a success after the database came back,
    /// or 60 s past the outage (an unexpected outcome then).
    static func load(_ ws: WebServicesFixture, worker: Int, tally: OutageTally, ledger: WriteLedger) async {
        let giveUp = Date().addingTimeInterval(90)
        for batch in 0... {
            let resumed = tally.currentPhase == .resumed
            let outline: AnswerOutline
            do {
                outline = try await request(ws, worker: worker, batch: batch, ledger: ledger)
            } catch {
                tally.unexpected("worker \(worker): no answer: \(error)")
                return
            }
            let succeeded = tally.count(outline, worker: worker)
            if succeeded && resumed {
                tally.recovered()
                return
            }
            guard Date() < giveUp, !Task.isCancelled else {
                tally.unexpected("worker \(worker) did not recover after the database came back")
                return
            }
            if !succeeded { try? await Task.sleep(for: .milliseconds(200)) }
        }
    }

    private static func request(_ ws: WebServicesFixture, worker: Int, batch: Int, ledger: WriteLedger)
        async throws -> AnswerOutline
    {
        guard worker < 3 else {
            let body: [String: Any] = ["zoneID": ["zoneName": SentBatch.atomicZone], "resultsLimit": 50]
            return AnswerOutline(try await ws.post("records/changes", body, database: "private"))
        }
        let planned = SentBatch.planned(writer: worker, batch: batch)
        do {
            let (sent, outline) = try await ws.write(planned)
            ledger.record(sent)
            return outline
        } catch {
            ledger.record(planned)
            throw error
        }
    }
}

/// The outcomes of the outage test's requests.
final class OutageTally: Sendable {
    enum Phase: Int { case up, down, resumed }

    struct Counts {
        var phase = Phase.up
        var succeeded = 0
        var retryable = 0
        var succeededAfterResume = 0
        var unexpected: [String] = []
    }

    private let state = Mutex(Counts())

    var counts: Counts { state.withLock { $0 } }
    var currentPhase: Phase { state.withLock { $0.phase } }

    func phase(_ phase: Phase) { state.withLock { $0.phase = phase } }
    func unexpected(_ what: String) { state.withLock { $0.unexpected.append(what) } }
    func recovered() { state.withLock { $0.succeededAfterResume += 1 } }

    /// Counts `outline`; true when it was a success. A 200 whose records failed counts as
    /// retryable when each failed with `TRY_AGAIN_LATER`.
    func count(_ outline: AnswerOutline, worker: Int) -> Bool {
        state.withLock { counts in
            if outline.status == 200 && outline.recordErrorCodes.isEmpty {
                counts.succeeded += 1
                return true
            }
            if outline.isRetryable
                || (outline.status == 200 && outline.recordErrorCodes.allSatisfy { $0 == "TRY_AGAIN_LATER" })
            {
                counts.retryable += 1
            } else {
                counts.unexpected.append(
                    "worker \(worker), \(counts.phase): \(outline.status) \(outline.serverErrorCode ?? "") "
                        + "retryAfter \(outline.retryAfter.map(String.init) ?? "none") records \(outline.recordErrorCodes)"
                )
            }
            return false
        }
    }
}
