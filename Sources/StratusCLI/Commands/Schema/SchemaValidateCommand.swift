import ArgumentParser
import StratusSchema

/// `stratus schema validate <file> [--production <file>]`
struct SchemaValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check a schema file and report every problem with its line and column.",
        discussion: """
            Prints a summary (or, with --canonical, the schema's canonical text) when the file is valid; \
            otherwise one line per problem, `error: <file>:<line>:<column>: <what was expected>`, on \
            standard error, and exits with status 65. With --production, the file must also only add to \
            that production schema, as CloudKit requires: each removed record type or field and each changed \
            field type is an error, each removed index a warning, and the other changes are listed. Nothing \
            is sent to a backend or server.
            """)

    @Argument(help: ArgumentHelp("The schema file, or - for standard input.", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp(
            "A production schema file the schema may only add to (additive changes only).", valueName: "file"))
    var production: String?

    @Flag(help: "Print the schema in canonical form (the form `stratus schema` writes) instead of a summary.")
    var canonical = false

    func run() throws {
        let schema = try SchemaFile.parse(file)
        let changes = try production.map { CloudKitSchema.changes(from: try SchemaFile.parse($0), to: schema) } ?? []
        let refused = changes.filter { !$0.isAllowedInProduction }
        for change in refused { Output.error("\(SchemaFile.name(file)): \(change.message)") }
        if !refused.isEmpty { throw ExitCode(CLIError.dataError) }
        for change in changes where change.kind == .indexRemoved {
            Output.warning("\(SchemaFile.name(file)): \(change.message)")
        }
        if canonical {
            Output.line(String(schema.text.dropLast()))
            return
        }
        Output.line("\(SchemaFile.name(file)): valid, \(SchemaFile.summary(of: schema))")
        if let production {
            let listed = changes.filter { $0.kind != .indexRemoved }
            Output.line("changes from \(production):" + (listed.isEmpty ? " none" : ""))
            for change in listed { Output.line("  \(change.message)") }
        }
    }
}
