import ArgumentParser

/// `stratus schema`: CloudKit Schema Language files, after `cktool`'s `*-schema` verbs.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract:
            "CloudKit Schema Language files and a container environment's schema (cktool's validate-schema, export-schema, import-schema, reset-schema).",
        discussion: """
            The text is Apple's CloudKit Schema Language (DEFINE SCHEMA, CREATE ROLE, RECORD TYPE); see \
            Docs/SchemaLanguage.md. A container has one schema per environment (--environment development or \
            production), shared by its databases: `export` prints it, `import` replaces it (additive changes only \
            against production), `reset` brings development back to production's schema and deletes \
            development's data. On a local backend, or with --server through stratusd's schema endpoints, \
            which take a server-to-server key.
            """,
        subcommands: [
            SchemaValidateCommand.self, SchemaExportCommand.self, SchemaImportCommand.self, SchemaResetCommand.self,
        ])
}
