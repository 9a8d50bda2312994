import MetricsTestKit
import StratusServer
import Testing

/// The counters the endpoints call, recorded into a test factory (the process's metrics
/// system is never bootstrapped by a test).
@Suite("ServerMetrics: the counters endpoints call")
struct ServerMetricsTests {
    @Test func recordsSavedAndFetchedAddUp() throws {
        let metrics = TestMetrics()
        ServerMetrics.recordsSaved(3, factory: metrics)
        ServerMetrics.recordsSaved(2, factory: metrics)
        ServerMetrics.recordsSaved(0, factory: metrics)
        ServerMetrics.recordsFetched(7, factory: metrics)
        #expect(try metrics.expectCounter(ServerMetrics.Name.recordsSaved).totalValue == 5)
        #expect(try metrics.expectCounter(ServerMetrics.Name.recordsFetched).totalValue == 7)
    }

    @Test func aLongPollIsOpenWhileItsBodyRunsEvenWhenItThrows() async throws {
        struct Closed: Error {}
        let metrics = TestMetrics()
        let during = await ServerMetrics.longPoll(factory: metrics) {
            try? metrics.expectMeter(ServerMetrics.Name.longPollsOpen).lastValue
        }
        #expect(during == 1)
        #expect(try metrics.expectMeter(ServerMetrics.Name.longPollsOpen).lastValue == 0)
        await #expect(throws: Closed.self) {
            try await ServerMetrics.longPoll(factory: metrics) { throw Closed() }
        }
        #expect(try metrics.expectMeter(ServerMetrics.Name.longPollsOpen).lastValue == 0)
    }
}
