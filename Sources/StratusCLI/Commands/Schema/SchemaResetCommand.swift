import ArgumentParser
import Foundation
import Stratus
import StratusRemote

/// `stratus schema reset`: cktool's `reset-schema`.
struct SchemaResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Reset a container's development environment: production's schema, no data.",
        discussion: """
            The development schema of --container becomes its production schema (empty if nothing was \
            imported into production), and every record, zone and subscription of its development databases \
            — the local container's and every stratusd user's — is deleted, as cktool's reset-schema does. \
            Refused for production (--environment production). With --server, through stratusd's schema \
            endpoint, which takes a server-to-server key.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        if options.environment == .production {
            throw CLIError(
                "only the development environment can be reset; production's schema and data stay",
                exitCode: CLIError.usage)
        }
        try await Session.with(options) { session in
            if let server = session.server {
                try RemoteSchemaClient(server: server, containerIdentifier: session.settings.containerIdentifier)
                    .reset()
            } else {
                try session.database.context().resetSchema()
            }
            Output.line(
                "reset \(session.settings.containerIdentifier) (development): production's schema, development data deleted"
            )
        }
    }
}
