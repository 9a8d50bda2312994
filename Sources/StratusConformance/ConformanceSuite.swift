/// The conformance suite: every case every backend must pass, with nothing skipped.
public enum ConformanceSuite {
    /// Every case, in a stable order.
    public static var cases: [ConformanceCase] {
        KeyValueCases.all.map {
            $0.reachingStorage(
                "a backend SPI case: it drives the backend's transactions itself, beneath the CloudKit API")
        } + ChangeTokenCases.all + PagedFetchCases.all + QueryCases.all + QueryPlanCases.all + QueryUnionPlanCases.all
            + ZoneCases.all
            + ModifyCases.all
            + RecordFetchCases.all + AssetCases.all + LongLivedCases.all + SchemaCases.all
            + IndexBuildCases.all + LimitCases.all
    }

    /// The case with `id`, if there is one.
    public static func `case`(_ id: String) -> ConformanceCase? {
        cases.first { $0.id == id }
    }

    /// Runs every case (one at a time) and throws a ``ConformanceReport`` listing every
    /// failure, if any. For XCTest users: `try await ConformanceSuite.runAll(with: fixture)`.
    public static func runAll(with fixture: any BackendFixture) async throws {
        let all = cases
        var failures: [ConformanceFailure] = []
        for c in all {
            do {
                try await c.run(with: fixture)
            } catch let failure as ConformanceFailure {
                failures.append(failure)
            }
        }
        if !failures.isEmpty {
            throw ConformanceReport(casesRun: all.count, failures: failures)
        }
    }
}
