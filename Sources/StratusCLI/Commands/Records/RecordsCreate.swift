import ArgumentParser
import Foundation
import Stratus

extension RecordsCommand {
    /// `stratus records create --type T [--name N] FIELD…`
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a record (an existing record of the same name is an error).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var zone: ZoneOption

        @Option(name: [.customLong("type"), .customLong("record-type")], help: "The record type.")
        var type: String

        @Option(
            name: [.customLong("name"), .customLong("record-name")],
            help: "The record name (default: a new UUID).")
        var name: String?

        @OptionGroup var fields: FieldArguments

        func run() async throws {
            let recordID = CKRecord.ID(recordName: name ?? UUID().uuidString, zoneID: zone.zoneID)
            let record = CKRecord(recordType: type, recordID: recordID)
            for (field, value) in try fields.assignments(zoneID: zone.zoneID) {
                record[field] = value
            }
            try await Session.with(options) { session in
                let saved = try await session.database.save(record)
                try printRecords([saved], json: options.json, single: true)
            }
        }
    }
}
