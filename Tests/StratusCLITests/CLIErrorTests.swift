import Foundation
import Testing

@Suite("stratus: errors are one line and an exit status")
struct CLIErrorTests {
    @Test func cloudKitErrors() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus(
            "records", "create", "--zone", "X", "--type", "Note", "title=Hello")
        #expect(outcome.status == 1)
        #expect(outcome.errorOutput == "error: zoneNotFound: Zone 'X' does not exist\n")
        #expect(outcome.output.isEmpty)

        _ = try await workspace.stratus("records", "create", "--type", "Note", "--name", "dup", "a=1")
        let duplicate = try await workspace.stratus("records", "create", "--type", "Note", "--name", "dup", "a=1")
        #expect(duplicate.status == 1)
        #expect(duplicate.errorOutput.hasPrefix("error: serverRecordChanged: "))
    }

    @Test(
        arguments: [
            (
                "fdb:///var/lib/app",
                "error: unknown backend scheme 'fdb' in 'fdb:///var/lib/app'; registered schemes: lmdb, memory, postgresql, sqlite"
            ),
            (
                "sqlite:///tmp/x.sqlite?durabilty=full",
                "error: unknown option 'durabilty' in 'sqlite:///tmp/x.sqlite?durabilty=full'; accepted options: durability, busyTimeout, readers"
            ),
            (
                "sqlite:///tmp/x.sqlite?readers=0",
                "error: invalid value '0' for option 'readers' of 'sqlite:///tmp/x.sqlite?readers=0': expected a whole number from 1 to 64"
            ),
            (
                "nonsense",
                "error: malformed backend URL 'nonsense': it has no scheme; write scheme:location, such as sqlite:///path/store.sqlite"
            ),
        ])
    func configurationErrors(backend: String, message: String) async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(["zones", "list", "--backend", backend], in: workspace.directory)
        #expect(outcome.status == 78)
        #expect(outcome.errorOutput == message + "\n")
    }

    @Test func environmentConfigurationErrors() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus(
            environment: ["STRATUS_CONFIG": "/no/such.json"], ["zones", "list"])
        #expect(outcome.status == 78)
        #expect(outcome.errorOutput == "error: configuration file '/no/such.json' does not exist\n")
    }

    @Test(
        arguments: [
            (
                ["records", "create", "--type", "T", "n:int=x"],
                "error: invalid int 'x' for field 'n': expected a whole number from -9223372036854775808 to 9223372036854775807"
            ),
            (["records", "create", "--type", "T", "n:decimal=1"], "error: unknown type 'decimal' for field 'n'"),
            (["records", "create", "--type", "T", "novalue"], "error: field 'novalue' has no value"),
            (
                ["records", "create", "--type", "T", "--fields-json", "[1]"],
                "error: --fields-json is not a JSON object of fields"
            ),
            (["query", "--type", "T", "--sort", "a:up"], "error: --sort 'a:up': write field, field:asc or field:desc"),
        ])
    func usageErrors(arguments: [String], prefix: String) async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await StratusExecutable.run(
            arguments + ["--backend", workspace.backend], in: workspace.directory)
        #expect(outcome.status == 64)
        #expect(outcome.errorOutput.hasPrefix(prefix), "\(outcome.errorOutput)")
        #expect(outcome.errorOutput.split(separator: "\n").count == 1)
    }

    @Test func argumentParserUsageErrors() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let outcome = try await workspace.stratus("zones", "frobnicate")
        #expect(outcome.status == 64)
        #expect(!outcome.errorOutput.contains("Fatal error"))
    }
}
