import Foundation
import Testing

@testable import StratusCLI

@Suite("stratus: help")
struct CLIHelpTests {
    /// The help of `stratus` and of `stratus conformance` names every registered scheme with
    /// its summary and example URLs, built from the providers themselves.
    @Test(arguments: [["--help"], ["conformance", "--help"], ["help", "conformance"]])
    func helpListsEveryRegisteredBackend(_ arguments: [String]) async throws {
        let providers = Session.registry.providers
        #expect(Set(providers.map(\.scheme)).isSuperset(of: ["sqlite", "lmdb", "postgresql", "memory"]))
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(arguments, in: workspace.directory)
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        // Help wraps long lines: compare with runs of blanks and line breaks as one space.
        let help = outcome.output.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for provider in providers {
            #expect(help.contains("\(provider.scheme): \(provider.summary)"), "\(provider.scheme) in \(arguments)")
            #expect(!provider.examples.isEmpty)
            for example in provider.examples {
                #expect(help.contains(example), "\(example) in \(arguments)")
            }
        }
    }

    @Test func backendHelpTextIsOneParagraphPerProvider() {
        let text = BackendHelp.text(for: Session.registry.providers)
        let schemes = text.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { $0.prefix { $0 != ":" } }
        #expect(schemes == ["lmdb", "memory", "postgresql", "sqlite"])
    }
}
