import ArgumentParser
import Stratus

extension RecordsCommand {
    /// `stratus records update NAME FIELD… [--remove F]…`
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change fields of a record.",
            discussion: """
                Fetches the record, sets and removes the fields, and saves it only if nobody changed it in \
                between (serverRecordChanged otherwise), as an app does.
                """)

        @OptionGroup var options: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Option(name: [.customLong("name"), .customLong("record-name")], help: "The record name.")
        var name: String

        @Option(help: ArgumentHelp("A field to remove (repeatable).", valueName: "field"))
        var remove: [String] = []

        @OptionGroup var fields: FieldArguments

        func validate() throws {
            if fields.fields.isEmpty && fields.fieldsJSON == nil && remove.isEmpty {
                throw ValidationError("give fields to set (name[:type]=value or --fields-json) or --remove")
            }
        }

        func run() async throws {
            let assignments = try fields.assignments(zoneID: zone.zoneID)
            try await Session.with(options) { session in
                let record = try await session.database.record(
                    for: CKRecord.ID(recordName: name, zoneID: zone.zoneID))
                for (field, value) in assignments { record[field] = value }
                for field in remove { record[field] = nil }
                let saved = try await session.database.save(record)
                try printRecords([saved], json: options.json, single: true)
            }
        }
    }
}
