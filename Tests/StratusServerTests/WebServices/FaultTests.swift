import Foundation
import StratusTestSupport
import Testing

/// `stratusd` killed (SIGKILL) under a write load and started again: every acknowledged
/// batch is there whole, no unacknowledged atomic batch is half there, no record is partly
/// written; on SQLite and on PostgreSQL (decision 0012's test plan, Faults).
@Suite("stratusd: SIGKILL under a write load")
struct FaultTests {
    /// Writers at once, and the acknowledged batches to wait for before the kill.
    static let writers = 4
    static let acknowledgedBeforeKill = 40

    @Test(arguments: [false, true])
    func killedUnderWritesLosesNoAcknowledgedBatch(postgres: Bool) async throws {
        let ws = try WebServicesFixture(postgres: postgres)
        try await ws.makeAtomicZone()
        let ledger = WriteLedger()
        let pid = ws.server.process.processIdentifier
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<Self.writers {
                group.addTask { await Self.writeUntilRefused(ws, writer: writer, ledger: ledger) }
            }
            group.addTask { await Self.kill(pid, after: Self.acknowledgedBeforeKill, of: ledger) }
        }
        #expect(ws.server.process.waitForExit(within: 60), "the killed stratusd exited")
        #expect(ws.server.process.terminationReason == .uncaughtSignal, "stratusd was killed, not stopped")
        #expect(ledger.acknowledgedCount >= Self.acknowledgedBeforeKill)
        #expect(ledger.all.contains { !$0.acknowledged }, "some batch was in flight or refused at the kill")

        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments, directory: ws.directory)
        defer { restarted.stop() }
        try await ws.verify(ledger, at: restarted.baseURL)
        let unacknowledged = ledger.all.count { !$0.acknowledged }
        print(
            "stratusd SIGKILL (\(postgres ? "PostgreSQL" : "SQLite")): \(ledger.acknowledgedCount) batches "
                + "acknowledged, \(unacknowledged) not, all checked after the restart")
    }

    /// Sends batches until one gets no answer (the server is gone), recording each.
    static func writeUntilRefused(_ ws: WebServicesFixture, writer: Int, ledger: WriteLedger) async {
        for batch in 0... {
            let planned = SentBatch.planned(writer: writer, batch: batch)
            do {
                ledger.record(try await ws.write(planned).0)
            } catch {
                ledger.record(planned)
                return
            }
        }
    }

    /// SIGKILLs `pid` once `ledger` holds `count` acknowledged batches, or once no batch was
    /// acknowledged for 60 s (so the test ends if writes fail; the count check then says why).
    /// Slow progress is waited for: a full parallel run has acknowledged a batch every 7 s.
    static func kill(_ pid: Int32, after count: Int, of ledger: WriteLedger) async {
        var seen = ledger.acknowledgedCount
        var progressed = Date()
        while seen < count && Date().timeIntervalSince(progressed) < 60 {
            try? await Task.sleep(for: .milliseconds(10))
            let now = ledger.acknowledgedCount
            if now > seen { (seen, progressed) = (now, Date()) }
        }
        Foundation.kill(pid, SIGKILL)
    }
}
