import Foundation
import Stratus
import StratusBackend
import StratusInMemory
import StratusTestSupport
import Testing

/// Several writers on one zone through two containers over one in-memory store, with a
/// follower syncing while they write: every acknowledged write is stored, listed by change
/// fetches exactly once, and seen by the follower; no increment of a shared counter is lost.
@Suite struct AdversarialConcurrencyTests {
    @Test func concurrentWritersThroughTwoContainersOverOneStore() async throws {
        let store = InMemoryStore()
        let report = try await AdversarialConcurrency.run(
            first: InMemoryBackend(store: store), second: InMemoryBackend(store: store))
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.acknowledgedRecords == 240)
        #expect(report.acknowledgedIncrements == 90)
        print("AdversarialConcurrencyTests (in memory): \(report)")
    }
}
