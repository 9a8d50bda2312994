import StratusConformance
import StratusTestSupport
import Testing

/// The whole conformance suite against ``InMemoryBackend``, one test per case.
@Test(arguments: ConformanceSuite.cases)
func conformance(_ c: ConformanceCase) async throws { try await c.run(with: InMemoryFixture()) }
