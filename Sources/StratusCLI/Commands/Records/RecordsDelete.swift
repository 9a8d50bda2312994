import ArgumentParser
import Stratus

extension RecordsCommand {
    /// `stratus records delete NAME…`
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete records by name.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: "The records' names.") var names: [String]

        func validate() throws {
            if names.isEmpty { throw ValidationError("name at least one record") }
        }

        func run() async throws {
            try await Session.with(options) { session in
                let ids = names.map { CKRecord.ID(recordName: $0, zoneID: zone.zoneID) }
                let results = try await session.database.modifyRecords(
                    saving: [], deleting: ids, atomically: false)
                var deleted: [String] = []
                var failure: CLIError?
                for id in ids {
                    switch results.deleteResults[id] {
                    case .success: deleted.append(id.recordName)
                    case .failure(let error): failure = failure ?? CLIError(CLIError.describe(error))
                    case nil: break
                    }
                }
                if options.json {
                    try Output.json(deleted)
                } else {
                    for name in deleted { Output.line("deleted record \(name)") }
                }
                if let failure { throw failure }
            }
        }
    }
}
