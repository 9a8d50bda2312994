import ArgumentParser
import Foundation
import Stratus
import StratusRemote
import StratusSchema

/// `stratus schema import <file> [--production]`: cktool's `import-schema`.
struct SchemaImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Replace a container environment's schema with a CloudKit Schema Language file.",
        discussion: """
            The file becomes the schema of --container in --environment (or --production), shared by that \
            environment's public, private and shared databases and every user. As CloudKit does, the file is \
            checked against the production schema in either environment: a record type or field production \
            has and the file leaves out, or a field whose type changes, refuses the whole import, each printed \
            as `error: <file>: <change>` (exit 65). Accepted, the changes are listed, and the indexes the \
            schema declares are built for the records already saved, in bounded batches (writers wait at most \
            one batch). With --server, through stratusd's schema endpoint, which takes a server-to-server key: \
            the server answers at once and builds the indexes in the background; the tool prints how many are \
            still to build (queries scan until they are ready).
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The schema file, or - for standard input.", valueName: "file"))
    var file: String
    @Flag(help: "Import into the production environment (the same as --environment production).")
    var production = false

    func run() async throws {
        let schema = try SchemaFile.parse(file)
        var options = self.options
        if production { options.environment = .production }
        let environment = options.environment ?? .development
        try await Session.with(options) { session in
            switch Result(catching: { try Self.perform(schema, session) }) {
            case .success(let (changes, built, pending)):
                let target = "\(session.settings.containerIdentifier) (\(environment.rawValue))"
                Output.line("imported \(SchemaFile.summary(of: schema)) into \(target)")
                Output.line("changes:" + (changes.isEmpty ? " none" : ""))
                for change in changes { Output.line("  \(change)") }
                if let pending {
                    Output.line("indexes the server builds in the background for existing records: \(pending)")
                } else {
                    Output.line("indexes built for existing records: \(built)")
                }
            case .failure(let error as CKError) where error.code == .invalidArguments:
                let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
                for line in message.split(separator: "\n") { Output.error("\(SchemaFile.name(file)): \(line)") }
                throw ExitCode(CLIError.dataError)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Imports `schema` into the session's container environment — a local backend's, or
    /// stratusd's through its schema endpoint. A local import builds the declared indexes here
    /// (how many were built); stratusd builds them in the background (how many it has still to
    /// build, the third value, `nil` for a local import). The changes' messages first.
    static func perform(_ schema: CloudKitSchema, _ session: Session) throws -> ([String], Int, Int?) {
        if let server = session.server {
            let client = RemoteSchemaClient(server: server, containerIdentifier: session.settings.containerIdentifier)
            let answer = try client.importSchema(schema.text)
            return (answer.changes, answer.indexesBuilt, answer.indexesPending)
        }
        let context = try session.database.context()
        let changes = try context.importSchema(schema).map(\.message)
        return (changes, try context.buildDeclaredIndexes(), nil)
    }
}
