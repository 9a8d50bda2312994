import Testing

/// Server restarts under load (`pg_ctl restart`, fast and immediate): operations fail with
/// retryable errors or succeed, nothing acknowledged is lost, no atomic batch is half applied,
/// a follower's mirror equals the store, and the same backends work afterwards without being
/// reopened. On a server of the test's own: the shared test server must not be restarted.
@Suite("PostgreSQL restarts")
struct PostgreSQLRestartTests {
    @Test func serverRestartsLoseNothingAcknowledged() async throws {
        let report = await TestThread { PostgreSQLRestartScenario.run() }.value()
        if let failure = report.setupFailure {
            Issue.record("no PostgreSQL server of the test's own: \(failure)")
            return
        }
        print("PostgreSQL restarts: \(report)")
        #expect(report.problems.isEmpty, "\(report.problems.prefix(20).joined(separator: "\n"))")
        #expect(report.restarts == PostgreSQLRestartScenario.restartModes)
        #expect(report.acknowledged > 0)
        // The restarts interrupted operations (the server is down for a while each time and the
        // writers never pause): otherwise the test proved nothing.
        #expect(report.failed > 0, "no operation failed: the restarts interrupted nothing")
    }
}
