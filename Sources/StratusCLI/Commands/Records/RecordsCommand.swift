import ArgumentParser
import Foundation
import Stratus

/// `stratus records create|fetch|update|delete`.
struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records", abstract: "Create, fetch, update and delete records.",
        discussion: """
            Fields are name[:type]=value pairs: title=Hello count:int=3 when:date=2026-01-01T00:00:00Z \
            tags:string-list=a,b. Types: \(FieldSyntax.scalarTypes.joined(separator: ", ")), and TYPE-list \
            for lists. Or give --fields-json '{"title": "Hello", "count": 3}'. See Docs/CLI.md.
            """,
        subcommands: [Create.self, Fetch.self, Update.self, Delete.self])
}

/// Field arguments shared by `records create` and `records update`.
struct FieldArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("Fields as name[:type]=value.", valueName: "field"))
    var fields: [String] = []

    @Option(
        name: .customLong("fields-json"),
        help: ArgumentHelp("Fields as a JSON object (null removes a field).", valueName: "json"))
    var fieldsJSON: String?

    /// Every assignment: from the arguments, then from `--fields-json` (`nil` removes).
    func assignments(zoneID: CKRecordZone.ID) throws -> [(name: String, value: (any CKRecordValue)?)] {
        var result: [(name: String, value: (any CKRecordValue)?)] = try fields.map {
            let parsed = try FieldSyntax.parse($0, zoneID: zoneID)
            return (parsed.name, parsed.value)
        }
        if let fieldsJSON { result += try FieldsJSON.parse(fieldsJSON) }
        return result
    }
}

/// Prints records as text or, with `--json`, as one JSON value (`single`) or an array.
func printRecords(_ records: [CKRecord], json: Bool, single: Bool = false) throws {
    if json {
        if single, let record = records.first {
            Output.line(try RecordText.json(record))
        } else {
            try Output.json(records)
        }
    } else {
        for record in records { Output.line(RecordText.render(record)) }
    }
}
