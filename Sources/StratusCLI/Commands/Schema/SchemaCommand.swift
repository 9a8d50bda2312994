import ArgumentParser

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
