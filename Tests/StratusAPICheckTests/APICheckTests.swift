import Foundation
import Testing

/// Stratus's public declarations against Apple's (issue 15): the symbol graph of the `Stratus`
/// module this run built, compared with the catalogue in `Tests/APICheck/`. Every difference
/// fails unless `KnownDifferences.tsv` lists it with a reason; what Apple has and Stratus
/// lacks is printed as a report.
@Suite("API check: Stratus's declarations are Apple's")
struct APICheckTests {
    private static func compare() throws -> (APIComparison, APICatalogue) {
        let catalogue = try APICatalogue.load()
        return (APIComparison(catalogue: catalogue, graph: try SymbolGraph.extract(module: "Stratus")), catalogue)
    }

    @Test func everyDifferenceFromApplesDeclarationsIsListedWithAReason() throws {
        let (comparison, catalogue) = try Self.compare()
        let known = Set(catalogue.knownDifferences.map { "\($0.path) \($0.aspect)" })
        let unlisted = comparison.differences.filter { !known.contains("\($0.path) \($0.aspect)") }
        #expect(
            unlisted.isEmpty,
            """
            \(unlisted.count) declaration(s) differ from Apple's; make them Apple's, or list them in \
            Tests/APICheck/KnownDifferences.tsv with the reason:
            \(unlisted.map(\.description).joined(separator: "\n"))
            """)
        #expect(comparison.matched > 250, "only \(comparison.matched) declarations matched: is the catalogue read?")
        print(Self.report(comparison))
    }

    @Test func everyListedDifferenceStillExists() throws {
        let (comparison, catalogue) = try Self.compare()
        let found = Set(comparison.differences.map { "\($0.path) \($0.aspect)" })
        let stale = catalogue.knownDifferences.filter { !found.contains("\($0.path) \($0.aspect)") }
        let names = stale.map { "\($0.path) [\($0.aspect)]" }.joined(separator: ", ")
        #expect(stale.isEmpty, "KnownDifferences.tsv lists differences that are gone; remove them: \(names)")
        #expect(catalogue.knownDifferences.allSatisfy { !$0.reason.isEmpty })
    }

    @Test func everyPublicStratusSymbolIsCatalogued() throws {
        let (comparison, _) = try Self.compare()
        #expect(
            comparison.unlisted.isEmpty,
            """
            public symbols in neither AppleCloudKit.tsv nor StratusOnly.tsv (add Apple's declaration, \
            or a StratusOnly line with the reason): \(comparison.unlisted.joined(separator: ", "))
            """)
    }

    /// What Apple has that Stratus lacks, and how much of the catalogue is verified.
    private static func report(_ comparison: APIComparison) -> String {
        let missing = comparison.missing.map { "  - \($0.path)  \($0.declaration ?? "")" }
        return """
            API check: \(comparison.matched) of Apple's declarations matched, \(comparison.differences.count) \
            listed difference(s), \(comparison.unverified) catalogue line(s) not yet verified against Apple's pages.
            Apple declares, Stratus lacks (\(missing.count)):
            \(missing.joined(separator: "\n"))
            """
    }
}
