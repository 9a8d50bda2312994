import ArgumentParser
import Foundation
import StratusSchema

/// `stratus schema`: CloudKit Schema Language files, after `cktool`'s `*-schema` verbs.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Check CloudKit Schema Language files (cktool's validate-schema).",
        discussion: """
            The text is Apple's CloudKit Schema Language (DEFINE SCHEMA, CREATE ROLE, RECORD TYPE); see \
            Docs/SchemaLanguage.md. Exporting, importing and resetting a container's schema (cktool's \
            export-schema, import-schema and reset-schema) need the engine to keep a schema per container \
            and environment, and are not available yet.
            """,
        subcommands: [SchemaValidateCommand.self])
}

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

/// Reading a schema file and describing a schema.
enum SchemaFile {
    /// The text of `path` (`-`: standard input), as UTF-8.
    static func read(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CLIError("cannot read '\(path)'", exitCode: CLIError.noInput)
            }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError("\(name(path)) is not UTF-8 text", exitCode: CLIError.dataError)
        }
        return text
    }

    /// The schema in `path`, or exit 65 after one `error:` line per problem.
    static func parse(_ path: String) throws -> CloudKitSchema {
        let text = try read(path)
        switch Result(catching: { () throws(SchemaErrors) in try CloudKitSchema.parse(text) }) {
        case .success(let schema):
            return schema
        case .failure(let failure):
            for error in failure.errors { Output.error("\(name(path)):\(error)") }
            throw ExitCode(CLIError.dataError)
        }
    }

    /// How messages name the file.
    static func name(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// `2 record types, 11 fields, 1 role`.
    static func summary(of schema: CloudKitSchema) -> String {
        let fields = schema.recordTypes.values.reduce(0) { $0 + $1.fields.count }
        return [
            count(schema.recordTypes.count, "record type"), count(fields, "field"), count(schema.roles.count, "role"),
        ].joined(separator: ", ")
    }

    private static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
