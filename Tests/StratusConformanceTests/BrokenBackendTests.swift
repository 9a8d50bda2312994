import StratusConformance
import StratusTestSupport
import Testing

/// The suite tests itself: every deliberately broken backend must fail the case written to
/// catch it, with that case's ID, while the healthy in-memory backend passes the same case.
@Test(arguments: BrokenBackend.all)
func suiteCatches(_ broken: BrokenBackend) async throws {
    let c = try #require(ConformanceSuite.case(broken.caughtBy), "no case \(broken.caughtBy)")
    try await c.run(with: InMemoryFixture())

    let failure = await #expect(throws: ConformanceFailure.self) {
        try await c.run(with: broken.fixture)
    }
    #expect(failure?.caseID == broken.caughtBy)
}

/// A wrapper with the default hooks forwards faithfully: it passes every case.
@Test(arguments: ConformanceSuite.cases)
func forwardingWrapperPasses(_ c: ConformanceCase) async throws {
    try await c.run(with: WrappingFixture(name: "forwarding", base: InMemoryFixture()))
}
