import Foundation

/// The checked-in reference side of the API check (`Tests/APICheck/`): Apple's declarations,
/// Stratus's own additions, and the differences accepted with a reason.
struct APICatalogue {
    /// One line of `AppleCloudKit.tsv`: a declaration as Apple's documentation shows it.
    struct AppleDeclaration: CustomStringConvertible {
        var path: String
        var kind: String
        /// `nil` when the line is not verified yet (`?` in the file).
        var declaration: String?
        /// `("iOS", "15.0")` when Apple marks it deprecated.
        var deprecation: (platform: String, version: String)?
        /// A type's conformances; `nil` when the page did not show the whole list.
        var conformances: [String]?

        var isType: Bool { ["class", "struct", "enum", "protocol"].contains(kind) }
        var description: String { "\(path) (\(declaration ?? kind))" }
    }

    /// One line of `KnownDifferences.tsv`: a difference from Apple's declaration that Stratus
    /// keeps, and why.
    struct KnownDifference: Hashable {
        var path: String
        /// `declaration`, `deprecation` or `conformance:<Protocol>`.
        var aspect: String
        var reason: String
    }

    var apple: [AppleDeclaration]
    /// Paths of Stratus declarations that have no counterpart in Apple's API.
    var stratusOnly: Set<String>
    var knownDifferences: [KnownDifference]

    /// The folder holding the files.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("APICheck")

    static func load() throws -> APICatalogue {
        let apple = try rows(of: "AppleCloudKit.tsv", columns: 6).map { columns in
            AppleDeclaration(
                path: columns[0], kind: columns[1], declaration: columns[2] == "?" ? nil : columns[2],
                deprecation: deprecation(columns[3]), conformances: conformances(columns[4]))
        }
        let stratusOnly = Set(try rows(of: "StratusOnly.tsv", columns: 3).map { $0[0] })
        let known = try rows(of: "KnownDifferences.tsv", columns: 3).map {
            KnownDifference(path: $0[0], aspect: $0[1], reason: $0[2])
        }
        return APICatalogue(apple: apple, stratusOnly: stratusOnly, knownDifferences: known)
    }

    /// The tab-separated rows of `file`, comments and blank lines left out, each with at least
    /// `columns` columns.
    private static func rows(of file: String, columns: Int) throws -> [[String]] {
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= columns else {
                throw CatalogueError(description: "\(file): a line with fewer than \(columns) columns: \(line)")
            }
            fields = fields.map { $0.trimmingCharacters(in: .whitespaces) }
            return fields
        }
    }

    private static func deprecation(_ text: String) -> (platform: String, version: String)? {
        guard text.hasPrefix("deprecated:") else { return nil }
        let parts = text.dropFirst("deprecated:".count).split(separator: " ")
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    private static func conformances(_ text: String) -> [String]? {
        guard !text.isEmpty, !text.contains("…") else { return nil }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    struct CatalogueError: Error, CustomStringConvertible {
        var description: String
    }
}
