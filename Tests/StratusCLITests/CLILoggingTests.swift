import Foundation
import Testing

/// `stratus --log-level` and `STRATUS_LOG_LEVEL`: logs go to standard error, standard output
/// keeps the command's results (`Docs/Logging.md`).
@Suite("stratus: logging")
struct CLILoggingTests {
    @Test func debugLogsOperationsToStandardErrorOnly() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        _ = try await workspace.stratus("zones", "create", "Notes")
        let quiet = try await workspace.stratus(
            "records", "create", "--zone", "Notes", "--type", "Note", "--name", "n1", "body=quiet-value-3b7")
        #expect(quiet.status == 0)
        #expect(quiet.errorOutput.isEmpty, "nothing is logged at the default level, warning")

        let logged = try await StratusExecutable.run(
            ["--log-level", "debug", "records", "fetch", "--zone", "Notes", "n1", "--backend", workspace.backend],
            in: workspace.directory)
        let plain = try await workspace.stratus("records", "fetch", "--zone", "Notes", "n1")
        #expect(logged.status == 0)
        #expect(logged.output == plain.output, "standard output is the same with and without logging")
        let lines = logged.errorOutput.split(separator: "\n").map(String.init)
        let started = try #require(lines.first { $0.contains("operation started") })
        let finished = try #require(lines.first { $0.contains("operation finished") })
        #expect(started.contains("debug stratus.engine"))
        #expect(started.contains("stratus.operation.kind=CKFetchRecordsOperation"))
        #expect(started.contains("stratus.operation.id="))
        #expect(finished.contains("stratus.count=1"))
        #expect(finished.contains("stratus.duration_ms="))
        #expect(lines.contains { $0.contains("info stratus.sqlite") && $0.contains("store opened") })
        #expect(!logged.errorOutput.contains("quiet-value-3b7"), "no field value is logged")
    }

    @Test func theEnvironmentSetsTheLevelAndTheFlagWins() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let fromEnvironment = try await workspace.stratus(
            environment: ["STRATUS_LOG_LEVEL": "info"], ["zones", "list", "--backend", workspace.backend])
        #expect(fromEnvironment.status == 0)
        #expect(fromEnvironment.errorOutput.contains("store opened"))
        #expect(!fromEnvironment.errorOutput.contains("operation started"))

        let flagWins = try await workspace.stratus(
            environment: ["STRATUS_LOG_LEVEL": "debug"],
            ["zones", "list", "--log-level", "error", "--backend", workspace.backend])
        #expect(flagWins.status == 0)
        #expect(flagWins.errorOutput.isEmpty)
    }

    @Test func anInvalidLevelIsAUsageErrorNamingTheLevels() async throws {
        let workspace = try CLIWorkspace()
        defer { workspace.remove() }
        let flag = try await workspace.stratus("--log-level", "loud", "zones", "list")
        #expect(flag.status == 64)
        #expect(flag.output.isEmpty)
        #expect(flag.errorOutput.contains("The value 'loud' is invalid for '--log-level <level>'"))
        for level in ["trace", "debug", "info", "notice", "warning", "error", "critical"] {
            #expect(flag.errorOutput.contains("- \(level)"))
        }

        let environment = try await workspace.stratus(
            environment: ["STRATUS_LOG_LEVEL": "loud"], ["zones", "list", "--backend", workspace.backend])
        #expect(environment.status == 64)
        #expect(
            environment.errorOutput
                == "error: STRATUS_LOG_LEVEL: invalid log level 'loud'; accepted: trace, debug, info, notice, warning, error, critical\n"
        )

        // The flag overrides the variable, so the variable's bad value is not an error then.
        let overridden = try await workspace.stratus(
            environment: ["STRATUS_LOG_LEVEL": "loud"],
            ["zones", "list", "--backend", workspace.backend, "--log-level", "debug"])
        #expect(overridden.status == 0, "\(overridden.errorOutput)")
    }
}
