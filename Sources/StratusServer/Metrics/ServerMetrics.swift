public import CoreMetrics

/// The server's own metrics, beside the per-request ones `RequestMetricsMiddleware` records
/// under Hummingbird's names (count and latency histogram per route template, method and
/// status).
///
/// Call these where the work happens; they go to whatever metrics system the process
/// bootstrapped (`stratusd` bootstraps Prometheus once, at start; a library never does), and
/// cost nothing measurable when none is. `factory` is for tests.
public enum ServerMetrics {
    /// The metric names, as Prometheus shows them.
    public enum Name {
        /// Records written by `records/modify` (a counter).
        public static let recordsSaved = "stratus_records_saved_total"
        /// Records returned by lookups, queries and change fetches (a counter).
        public static let recordsFetched = "stratus_records_fetched_total"
        /// Long polls (`notifications/…`, long-lived fetches) open now (a gauge).
        public static let longPollsOpen = "stratus_long_polls_open"
    }

    /// Counts `count` records saved.
    public static func recordsSaved(_ count: Int, factory: any MetricsFactory = MetricsSystem.factory) {
        guard count > 0 else { return }
        Counter(label: Name.recordsSaved, factory: factory).increment(by: count)
    }

    /// Counts `count` records fetched.
    public static func recordsFetched(_ count: Int, factory: any MetricsFactory = MetricsSystem.factory) {
        guard count > 0 else { return }
        Counter(label: Name.recordsFetched, factory: factory).increment(by: count)
    }

    /// Counts a long poll as open until `body` returns or throws, and returns what it returns.
    public static func longPoll<Result: Sendable>(
        factory: any MetricsFactory = MetricsSystem.factory, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let open = Meter(label: Name.longPollsOpen, factory: factory)
        open.increment()
        defer { open.decrement() }
        return try await body()
    }
}
