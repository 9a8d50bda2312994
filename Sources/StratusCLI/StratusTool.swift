import ArgumentParser
import Foundation

/// `stratus`: CloudKit's data commands on the configured backend, modelled on Apple's `cktool`.
@main
struct StratusTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "CloudKit zones, records, queries, changes and tests on a Stratus backend.",
        discussion: """
            The backend is the configured one (STRATUS_BACKEND, the configuration file, or SQLite in \
            ./.stratus/), or the one --backend names. With --server URL (or STRATUS_SERVER) the container \
            is instead remote, on that stratusd, with the credentials of --credentials-file (or \
            STRATUS_SERVER_CREDENTIALS_FILE). See Docs/CLI.md and the StratusConfiguration documentation. \
            Backends (`stratus config` lists their options):


            """ + BackendHelp.schemes,
        version: "0.1.0",
        subcommands: [
            ZonesCommand.self, RecordsCommand.self, QueryCommand.self, ChangesCommand.self, ExportCommand.self,
            ImportCommand.self, LongLivedCommand.self, ConformanceCommand.self, ConfigCommand.self, DemoCommand.self,
            SchemaCommand.self,
        ]
    )

    /// Runs the command; errors become one line on standard error and an exit status (see
    /// ``CLIError``), never a stack trace.
    static func main() async {
        do {
            var command = try parseAsRoot(GlobalOptions.hoisting(Array(CommandLine.arguments.dropFirst())))
            try CLILogging.bootstrap(for: command, environment: ProcessInfo.processInfo.environment)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Output.error(error.message)
            Foundation.exit(error.exitCode)
        } catch {
            if let failure = CLIError(describing: error) {
                Output.error(failure.message)
                Foundation.exit(failure.exitCode)
            }
            exit(withError: error)
        }
    }
}
