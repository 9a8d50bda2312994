import ArgumentParser

/// `stratus schema`: CloudKit Schema Language files, after `cktool`'s `*-schema` verbs.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract:
            "Check CloudKit Schema Language files and export a database's schema (cktool's validate-schema, export-schema).",
        discussion: """
            The text is Apple's CloudKit Schema Language (DEFINE SCHEMA, CREATE ROLE, RECORD TYPE); see \
            Docs/SchemaLanguage.md. `export` prints the just-in-time schema a local database's saves \
            created. Importing and resetting a schema (cktool's import-schema and reset-schema) need the \
            engine to keep a schema per container and environment, and are not available yet.
            """,
        subcommands: [SchemaValidateCommand.self, SchemaExportCommand.self])
}
