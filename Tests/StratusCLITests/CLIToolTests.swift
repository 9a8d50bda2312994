import Foundation
import Testing

@Suite("stratus: configuration, conformance, demo")
struct CLIToolTests {
    @Test func defaultBackendIsSQLiteInDotStratus() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let created = try await workspace.stratus(environment: [:], ["zones", "create", "Notes"])
        #expect(created.status == 0, "\(created.errorOutput)")
        let store = workspace.directory.appendingPathComponent(".stratus/stratus.sqlite").path
        #expect(FileManager.default.fileExists(atPath: store))
        let config = try await workspace.stratus(environment: [:], ["config"])
        #expect(config.lines.contains("backend             sqlite:.stratus/stratus.sqlite  (default)"))
    }

    @Test func globalOptionsBeforeTheSubcommand() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(
            ["--backend", workspace.backend, "--json", "zones", "list"], in: workspace.directory)
        #expect(outcome.status == 0, "\(outcome.errorOutput)")
        #expect(try json(outcome.output) as? [String] == ["_defaultZone"])
    }

    @Test func environmentAndConfigurationFile() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let file = workspace.directory.appendingPathComponent("stratus.json")
        try #"{"backend": "sqlite:from-file.sqlite", "container": "iCloud.file"}"#.write(
            to: file, atomically: true, encoding: .utf8)
        let fromFile = try await workspace.stratus(environment: [:], ["config", "--json"])
        let report = try #require(try json(fromFile.output) as? [String: Any])
        #expect(report["backend"] as? String == "sqlite:from-file.sqlite")
        #expect(report["container"] as? String == "iCloud.file")
        #expect(report["configFile"] as? String == "stratus.json")

        let fromEnvironment = try await workspace.stratus(
            environment: ["STRATUS_BACKEND": "memory:"], ["config", "--json"])
        #expect((try json(fromEnvironment.output) as? [String: Any])?["backend"] as? String == "memory:")
    }

    @Test func conformanceOnMemoryPassesWithASummary() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(
            ["conformance", "--backend", "memory:"], in: workspace.directory)
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.lines.first?.hasPrefix("Conformance of 'memory:': ") == true)
        #expect(outcome.output.contains("  failed      0"))
        // Not a terminal: one plain line a case on standard error.
        let progress = outcome.errorOutput.split(separator: "\n")
        #expect(!progress.isEmpty && progress.allSatisfy { $0.hasPrefix("ok   ") })

        let json = try await StratusExecutable.run(
            ["conformance", "--backend", "memory:", "--filter", "kv.scan", "--json"], in: workspace.directory)
        let summary = try #require(try StratusCLITests.json(json.output) as? [String: Any])
        #expect(summary["failed"] as? Int == 0)
        #expect((summary["passed"] as? Int ?? 0) > 0)
    }

    @Test func conformanceOnSQLiteFiles() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(
            ["conformance", "--backend", "sqlite:///ignored.sqlite?durability=normal", "--filter", "durability"],
            in: workspace.directory)
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("  failed      0"))
    }

    @Test func conformanceRefusesAStoreThatCannotBeReopened() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(
            ["conformance", "--backend", "sqlite::memory:"], in: workspace.directory)
        #expect(outcome.status == 78)
        #expect(outcome.errorOutput.hasPrefix("error: 'sqlite::memory:' cannot be reopened"))
    }

    @Test func longLivedListWithNothingOutstanding() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let listed = try await workspace.stratus("long-lived", "list", "--json")
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(try json(listed.output) as? [Any] != nil)
        let shown = try await workspace.stratus("long-lived", "show", "no-such-operation")
        #expect(shown.status == 1)
        #expect(shown.errorOutput == "error: unknownItem: no long-lived operation has ID 'no-such-operation'\n")
    }

    @Test func demoSyncsIncrementally() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let first = try await workspace.stratus(environment: [:], ["demo"])
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(first.output.contains("3 records changed since the beginning"))
        let second = try await workspace.stratus(environment: [:], ["demo"])
        #expect(second.output.contains("3 records changed since the last run"))
        #expect(second.output.contains("$ stratus query --zone Demo"))
    }
}
