import ArgumentParser
import Foundation
import Stratus
import StratusRemote
import StratusSchema

/// `stratus schema export`: a database's just-in-time schema in the CloudKit Schema Language.
struct SchemaExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print a container environment's schema in the CloudKit Schema Language.",
        discussion: """
            The schema of --container in --environment (default development), as cktool's export-schema writes \
            it: what was imported, and in development every record type and field saves added, each with the \
            indexes CloudKit's development environment gives it (see Docs/SchemaLanguage.md). A number field \
            is NUMBER; a field that has only held empty lists has no known type and is left out (listed on \
            standard error). With --server, through stratusd's schema endpoint, which takes a server-to-server key.
            """)

    @OptionGroup var options: GlobalOptions
    @Option(help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
    var output: String?

    func run() async throws {
        let schema = try await Session.with(options) { session -> CloudKitSchema in
            if let server = session.server {
                let text = try RemoteSchemaClient(
                    server: server, containerIdentifier: session.settings.containerIdentifier
                )
                .export()
                return try SchemaFile.parse(text: text, named: "the server's schema")
            }
            let context = try session.database.context()
            let stored = try context.environmentSchema()
            guard options.environment != .production else { return stored }
            return Self.merging(Self.schema(of: try context.recordTypes()), into: stored)
        }
        if let output {
            try schema.text.write(toFile: output, atomically: true, encoding: .utf8)
            Output.status("exported \(SchemaFile.summary(of: schema)) to \(output)\n")
        } else {
            Output.line(String(schema.text.dropLast()))
        }
    }

    /// `stored` (the environment's schema) with the record types and fields of `database`
    /// (a development database's just-in-time schema) it lacks: those saved before the
    /// environment kept a schema (decision 0020).
    static func merging(_ database: CloudKitSchema, into stored: CloudKitSchema) -> CloudKitSchema {
        var merged = stored
        for (name, type) in database.recordTypes {
            var target = merged.recordTypes[name] ?? SchemaRecordType(name: name)
            for (fieldName, field) in type.fields where target.fields[fieldName] == nil {
                target.fields[fieldName] = field
            }
            merged.recordTypes[name] = target
        }
        return merged
    }

    /// The schema of `summaries`: every field just-in-time, with development's indexes.
    static func schema(of summaries: [RecordTypeSummary]) -> CloudKitSchema {
        CloudKitSchema(
            recordTypes: summaries.map { summary in
                SchemaRecordType(
                    name: summary.name,
                    fields: summary.fields.compactMap { field in
                        guard let type = field.typeName.flatMap(fieldType) else {
                            Output.warning("\(summary.name).\(field.name): no type known yet (only empty lists saved)")
                            return nil
                        }
                        return SchemaField.justInTime(name: field.name, type: type)
                    })
            })
    }

    /// The schema language's type for an engine type name (`LIST<STRING>`).
    static func fieldType(_ name: String) -> SchemaFieldType? {
        if name.hasPrefix("LIST<"), name.hasSuffix(">") {
            return fieldType(String(name.dropFirst(5).dropLast())).map { .list($0) }
        }
        switch name {
        case "STRING": return .string
        case "NUMBER": return .number(preferredAs: nil)
        case "TIMESTAMP": return .timestamp
        case "BYTES": return .bytes
        case "REFERENCE": return .reference
        case "LOCATION": return .location
        case "ASSET": return .asset
        default: return nil
        }
    }
}
