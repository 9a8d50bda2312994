import ArgumentParser
import Stratus

/// `stratus zones create|list|delete`.
struct ZonesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zones", abstract: "Create, list and delete record zones.",
        subcommands: [Create.self, List.self, Delete.self])

    /// `stratus zones create NAME…`
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create zones (saving an existing zone is harmless).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The zones' names.") var names: [String]

        func validate() throws {
            if names.isEmpty { throw ValidationError("name at least one zone") }
        }

        func run() async throws {
            try await Session.with(options) { session in
                let zones = names.map { CKRecordZone(zoneID: CKRecordZone.ID(zoneName: $0)) }
                let results = try await session.database.modifyRecordZones(saving: zones, deleting: [])
                var saved: [String] = []
                var failure: CLIError?
                for name in names {
                    switch results.saveResults[CKRecordZone.ID(zoneName: name)] {
                    case .success: saved.append(name)
                    case .failure(let error): failure = CLIError(CLIError.describe(error))
                    case nil: break
                    }
                }
                if options.json {
                    try Output.json(saved)
                } else {
                    for name in saved { Output.line("created zone \(name)") }
                }
                if let failure { throw failure }
            }
        }
    }

    /// `stratus zones list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the database's zones.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Session.with(options) { session in
                let zones = try await session.database.allRecordZones()
                    .map(\.zoneID.zoneName).sorted()
                if options.json {
                    try Output.json(zones)
                } else {
                    for name in zones { Output.line(name) }
                }
            }
        }
    }

    /// `stratus zones delete NAME…`
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete zones and every record in them.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The zones' names.") var names: [String]

        func validate() throws {
            if names.isEmpty { throw ValidationError("name at least one zone") }
        }

        func run() async throws {
            try await Session.with(options) { session in
                let ids = names.map { CKRecordZone.ID(zoneName: $0) }
                let results = try await session.database.modifyRecordZones(saving: [], deleting: ids)
                var deleted: [String] = []
                var failure: CLIError?
                for id in ids {
                    switch results.deleteResults[id] {
                    case .success: deleted.append(id.zoneName)
                    case .failure(let error): failure = CLIError(CLIError.describe(error))
                    case nil: break
                    }
                }
                if options.json {
                    try Output.json(deleted)
                } else {
                    for name in deleted { Output.line("deleted zone \(name)") }
                }
                if let failure { throw failure }
            }
        }
    }
}
