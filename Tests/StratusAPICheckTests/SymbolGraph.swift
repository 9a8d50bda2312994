import Foundation
import StratusTestSupport

/// A module's public API as the compiler sees it: its symbol graph, extracted with
/// `swift symbolgraph-extract` from the module this test run built.
struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Kind: Decodable {
            var identifier: String
        }
        struct Identifier: Decodable {
            var precise: String
        }
        struct Fragment: Decodable {
            var spelling: String
        }
        struct Availability: Decodable {
            struct Version: Decodable {
                var major: Int
                var minor: Int?
            }
            var domain: String?
            var deprecated: Version?
            var isUnconditionallyDeprecated: Bool?
        }

        var kind: Kind
        var identifier: Identifier
        var pathComponents: [String]
        var declarationFragments: [Fragment]?
        var availability: [Availability]?

        var declaration: String { (declarationFragments ?? []).map(\.spelling).joined() }
        var path: String { pathComponents.joined(separator: ".") }
        var isTypealias: Bool { kind.identifier == "swift.typealias" }
        var isType: Bool { ["swift.class", "swift.struct", "swift.enum", "swift.protocol"].contains(kind.identifier) }

        /// `"15.0"` for a symbol deprecated on `platform` in 15.0.
        func deprecatedVersion(on platform: String) -> String? {
            guard let version = availability?.first(where: { $0.domain == platform })?.deprecated else { return nil }
            return "\(version.major).\(version.minor ?? 0)"
        }

        var isDeprecated: Bool {
            availability?.contains { $0.deprecated != nil || $0.isUnconditionallyDeprecated == true } ?? false
        }
    }

    struct Relationship: Decodable {
        var kind: String
        var source: String
        var target: String
        var targetFallback: String?
    }

    var symbols: [Symbol]
    var relationships: [Relationship]

    struct ExtractionError: Error, CustomStringConvertible {
        var description: String
    }

    /// Extracts the public symbol graph of `module` from the modules built next to this test.
    static func extract(module: String) throws -> SymbolGraph {
        let modules = try builtModulesDirectory(containing: module)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("symbolgraph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let triple = try targetTriple()
        _ = try run([
            "swift", "symbolgraph-extract", "-module-name", module, "-I", modules.path, "-target", triple,
            "-output-dir", output.path, "-minimum-access-level", "public", "-skip-synthesized-members",
        ])
        let data = try Data(contentsOf: output.appendingPathComponent("\(module).symbols.json"))
        return try JSONDecoder().decode(SymbolGraph.self, from: data)
    }

    /// The `Modules` folder of the build that made this test executable.
    private static func builtModulesDirectory(containing module: String) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("\(module).swiftmodule").path) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        throw ExtractionError(description: "no Modules/\(module).swiftmodule above \(CommandLine.arguments[0])")
    }

    private static func targetTriple() throws -> String {
        struct Info: Decodable {
            struct Target: Decodable { var triple: String }
            var target: Target
        }
        return try JSONDecoder().decode(Info.self, from: run(["swift", "-print-target-info"])).target.triple
    }

    private static func run(_ arguments: [String]) throws -> Data {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("symbolgraph-err-\(UUID())")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ExtractionError(description: "\(arguments.joined(separator: " ")) failed: \(message)")
        }
        return data
    }
}
