import ArgumentParser
import Stratus

extension RecordsCommand {
    /// `stratus records fetch NAME…`
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch records by name.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: "The records' names.") var names: [String]

        func validate() throws {
            if names.isEmpty { throw ValidationError("name at least one record") }
        }

        func run() async throws {
            try await Session.with(options) { session in
                let ids = names.map { CKRecord.ID(recordName: $0, zoneID: zone.zoneID) }
                let results = try await session.database.records(for: ids)
                var records: [CKRecord] = []
                var failure: CLIError?
                for id in ids {
                    switch results[id] {
                    case .success(let record): records.append(record)
                    case .failure(let error):
                        failure = failure ?? CLIError(CLIError.describe(error))
                        if !options.json { Output.error(CLIError.describe(error)) }
                    case nil: break
                    }
                }
                try printRecords(records, json: options.json, single: false)
                if let failure {
                    // Each failure was reported; exit non-zero without repeating it.
                    if !options.json { throw ExitCode(CLIError.failure) }
                    throw failure
                }
            }
        }
    }
}
