import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Issue 12, "Network faults", at random: many modifies through a proxy that breaks about one
/// exchange in five at a random point. Every operation ends in success or `networkFailure`, and
/// the server holds exactly the successful records plus possibly some whose outcome was
/// unknown — none applied twice.
@Suite("Remote containers: network faults, randomized soak", .timeLimit(.minutes(10)))
struct NetworkFaultSoakTests {
    static let modifies = 200
    static let concurrency = 8

    /// How one modify ended: its record's change tag, or its error's code.
    enum Outcome: Sendable {
        case saved(tag: String)
        case failed(CKError.Code)
    }

    /// At one exchange in five, and at one in two (where some operations exhaust their retries).
    @Test(arguments: [0.2, 0.5])
    func randomDropsAndStallsApplyNoModifyTwice(rate: Double) async throws {
        let fixture = try await NetworkFaultFixture(requestTimeout: .seconds(2))
        let before = try await fixture.token()
        fixture.proxy.setPlan(FaultProxy.random(rate: rate, longestStall: 3))
        let database = fixture.throughProxy()
        let (outcomes, elapsed) = await timed { await Self.saveAll(database) }
        // Ends every connection, so a stalled request can no longer reach the server late.
        fixture.proxy.stop()

        let stored = try await fixture.changes(since: before)
        #expect(stored.deleted.isEmpty)
        var unknown = 0
        for (name, outcome) in outcomes {
            switch outcome {
            case .saved(let tag):
                #expect(stored.tags[name] == tag, "\(name) saved once, as answered; seed \(fixture.proxy.seed)")
            case .failed(let code):
                #expect(code == .networkFailure, "\(name): \(code.name); \(fixture.transcript)")
                unknown += 1
            }
        }
        #expect(Set(stored.tags.keys).isSubset(of: Set(outcomes.keys)), "nothing else stored")
        // Every answer the server wrote to a modify — returned, dropped, or to a late duplicate —
        // is a success: a second application of a `create` would have been a conflict.
        for exchange in fixture.exchanges("records/modify") where exchange.serverStatus != nil {
            let body = String(decoding: exchange.serverBody, as: UTF8.self)
            #expect(exchange.serverStatus == 200 && !body.contains("serverErrorCode"), "\(exchange): \(body)")
        }
        Self.report(
            fixture, rate: rate, outcomes: outcomes, stored: stored.tags.count, unknown: unknown, elapsed: elapsed)
    }

    /// Saves `modifies` new records, `concurrency` at a time, each a `create` of its own.
    static func saveAll(_ database: CKDatabase) async -> [String: Outcome] {
        await withTaskGroup(of: (String, Outcome).self) { group in
            var outcomes: [String: Outcome] = [:]
            for index in 0..<modifies {
                if index >= concurrency, let (name, outcome) = await group.next() { outcomes[name] = outcome }
                group.addTask { await save(index, database) }
            }
            for await (name, outcome) in group { outcomes[name] = outcome }
            return outcomes
        }
    }

    /// One modify saving record `soak-index`.
    static func save(_ index: Int, _ database: CKDatabase) async -> (String, Outcome) {
        let record = NetworkFaultFixture.record("soak-\(index)", Int64(index))
        let name = record.recordID.recordName
        do {
            let result = try await database.modifyRecords(saving: [record], deleting: [])
            guard let saved = result.saveResults[record.recordID] else { return (name, .failed(.internalError)) }
            switch saved {
            case .success(let stored): return (name, .saved(tag: stored.recordChangeTag ?? "none"))
            case .failure(let error): return (name, .failed((error as? CKError)?.code ?? .internalError))
            }
        } catch {
            return (name, .failed((error as? CKError)?.code ?? .internalError))
        }
    }

    /// Prints the run's figures: outcomes, faults by kind, duplicates the journal absorbed, time.
    static func report(
        _ fixture: NetworkFaultFixture, rate: Double, outcomes: [String: Outcome], stored: Int, unknown: Int,
        elapsed: Duration
    ) {
        let exchanges = fixture.exchanges("records/modify")
        var faults: [String: Int] = [:]
        for exchange in exchanges where exchange.fault != .pass {
            faults[String(exchange.fault.description.prefix { !$0.isNumber }), default: 0] += 1
        }
        let reached = Dictionary(grouping: exchanges.filter(\.reachedServer)) { $0.operationID ?? "" }
        let duplicates = reached.values.filter { $0.count > 1 }.count
        print(
            """
            network faults soak (seed \(fixture.proxy.seed), rate \(rate)): \(outcomes.count) modifies in \(elapsed), \
            \(outcomes.count - unknown) saved, \(unknown) networkFailure, \(stored) stored; \
            \(exchanges.count) modify exchanges, faults \(faults.sorted { $0.key < $1.key }); \
            \(duplicates) operation IDs reached the server more than once, each applied once
            """)
    }
}
