import StratusConformance
import Testing

/// The whole conformance suite against ``SortedArrayBackend``, one test per case.
@Test(arguments: ConformanceSuite.cases)
func conformance(_ c: ConformanceCase) async throws { try await c.run(with: SortedArrayFixture()) }
