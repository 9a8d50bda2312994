import Foundation

/// Stratus's public API compared with Apple's catalogue.
struct APIComparison {
    /// A way Stratus's declaration of `path` differs from Apple's.
    struct Difference: CustomStringConvertible {
        var path: String
        /// `declaration`, `deprecation` or `conformance:<Protocol>`.
        var aspect: String
        var apple: String
        var stratus: String

        var description: String { "\(path) [\(aspect)]\n    Apple:   \(apple)\n    Stratus: \(stratus)" }
    }

    var matched = 0
    var differences: [Difference] = []
    /// Verified Apple declarations Stratus does not have.
    var missing: [APICatalogue.AppleDeclaration] = []
    /// Catalogue lines not verified against Apple's documentation yet.
    var unverified = 0
    /// Public Stratus symbols in neither the Apple catalogue nor `StratusOnly.tsv`.
    var unlisted: [String] = []

    /// Protocols every `NSObject` subclass conforms to through `NSObject`, and marker
    /// protocols every type has.
    static let implied: Set<String> = [
        "CVarArg", "CustomDebugStringConvertible", "CustomStringConvertible", "Equatable", "Hashable",
        "NSObjectProtocol", "SendableMetatype", "Copyable", "Escapable",
    ]

    init(catalogue: APICatalogue, graph: SymbolGraph) {
        let symbols = Dictionary(grouping: graph.symbols) { DeclarationText.applyingAppleNames($0.path) }
        let typealiases = Self.tupleTypealiases(in: graph)
        var matchedSymbols = Set<String>()
        var unmatched: [APICatalogue.AppleDeclaration] = []
        for entry in catalogue.apple {
            guard let declaration = entry.declaration else {
                unverified += 1
                continue
            }
            let candidates = (symbols[entry.path] ?? []).filter { !$0.isTypealias || entry.kind == "typealias" }
            if entry.isType {
                compareType(entry, candidates.first { $0.isType }, graph: graph)
                continue
            }
            let apple = DeclarationText.normalized(declaration, kind: entry.kind)
            if let same = candidates.first(where: {
                DeclarationText.normalized($0.declaration, kind: $0.kind.identifier, typealiases: typealiases) == apple
            }) {
                matched += 1
                matchedSymbols.insert(same.identifier.precise)
                compareDeprecation(entry, same)
            } else {
                unmatched.append(entry)
            }
        }
        classify(unmatched, symbols: symbols, matchedSymbols: matchedSymbols, typealiases: typealiases)
        let listed = Set(catalogue.apple.map(\.path)).union(catalogue.stratusOnly)
        unlisted = Set(symbols.keys).subtracting(listed).filter { !$0.hasPrefix("_") && !$0.contains("._") }.sorted()
    }

    /// An Apple declaration that no Stratus symbol of its path equals: a difference when the
    /// path has a symbol no other Apple line matched, a missing overload otherwise.
    private mutating func classify(
        _ unmatched: [APICatalogue.AppleDeclaration], symbols: [String: [SymbolGraph.Symbol]],
        matchedSymbols: Set<String>, typealiases: [String: String]
    ) {
        for entry in unmatched {
            let free = (symbols[entry.path] ?? []).filter {
                !$0.isTypealias && !matchedSymbols.contains($0.identifier.precise)
            }
            guard !free.isEmpty else {
                missing.append(entry)
                continue
            }
            let stratus = free.map {
                DeclarationText.normalized($0.declaration, kind: $0.kind.identifier, typealiases: typealiases)
            }
            differences.append(
                Difference(
                    path: entry.path, aspect: "declaration",
                    apple: DeclarationText.normalized(entry.declaration ?? "?", kind: entry.kind),
                    stratus: stratus.joined(separator: " | ")))
        }
    }

    private mutating func compareType(
        _ entry: APICatalogue.AppleDeclaration, _ symbol: SymbolGraph.Symbol?, graph: SymbolGraph
    ) {
        guard let symbol else {
            missing.append(entry)
            return
        }
        matched += 1
        compareDeprecation(entry, symbol)
        guard let expected = entry.conformances else { return }
        let own = Set(
            graph.relationships.filter { $0.source == symbol.identifier.precise && $0.kind == "conformsTo" }
                .compactMap { $0.targetFallback?.split(separator: ".").last.map(String.init) })
        let inheritsNSObject = graph.relationships.contains {
            $0.source == symbol.identifier.precise && $0.kind == "inheritsFrom"
        }
        for conformance in expected where !own.contains(conformance) {
            if Self.implied.contains(conformance) && (inheritsNSObject || conformance.hasSuffix("Metatype")) {
                continue
            }
            if ["SendableMetatype", "Copyable", "Escapable"].contains(conformance) { continue }
            differences.append(
                Difference(
                    path: entry.path, aspect: "conformance:\(conformance)", apple: conformance,
                    stratus: own.sorted().joined(separator: ", ")))
        }
    }

    private mutating func compareDeprecation(_ entry: APICatalogue.AppleDeclaration, _ symbol: SymbolGraph.Symbol) {
        if let deprecation = entry.deprecation {
            let version = symbol.deprecatedVersion(on: deprecation.platform)
            if version != deprecation.version {
                differences.append(
                    Difference(
                        path: entry.path, aspect: "deprecation",
                        apple: "deprecated on \(deprecation.platform) \(deprecation.version)",
                        stratus: version.map { "deprecated on \(deprecation.platform) \($0)" } ?? "not deprecated"))
            }
        } else if symbol.isDeprecated {
            differences.append(
                Difference(path: entry.path, aspect: "deprecation", apple: "not deprecated", stratus: "deprecated"))
        }
    }

    /// Stratus's typealiases of tuple types (`CKDatabase.QueryPage`), which Apple spells out.
    private static func tupleTypealiases(in graph: SymbolGraph) -> [String: String] {
        var result: [String: String] = [:]
        for symbol in graph.symbols where symbol.isTypealias {
            guard let range = symbol.declaration.range(of: " = ") else { continue }
            let target = String(symbol.declaration[range.upperBound...])
            if target.hasPrefix("(") { result[symbol.path] = target }
        }
        return result
    }
}
