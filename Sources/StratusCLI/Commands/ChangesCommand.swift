import ArgumentParser
import Stratus

/// `stratus changes zone|database [--token T]`
struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Fetch changes since a change token, and print the new token.",
        discussion: """
            Without --token, every change. Keep the printed token and pass it back with --token to \
            get only what changed since (incremental sync, as an app does with \
            CKFetchRecordZoneChangesOperation and CKFetchDatabaseChangesOperation).
            """,
        subcommands: [Zone.self, Database.self])

    /// `stratus changes zone [--zone Z] [--token T]`
    struct Zone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The records of a zone changed or deleted.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Option(help: ArgumentHelp("The token of an earlier fetch.", valueName: "base64")) var token: String?

        func run() async throws {
            var changeToken = try token.map(TokenText.decode)
            try await Session.with(options) { session in
                var changed: [CKRecord] = []
                var deleted: [RecordDeletion] = []
                while true {
                    let batch = try await session.database.recordZoneChanges(
                        inZoneWith: zone.zoneID, since: changeToken)
                    for (_, result) in batch.modificationResultsByID.sorted(by: {
                        $0.key.recordName < $1.key.recordName
                    }) {
                        changed.append(try result.get().record)
                    }
                    deleted += batch.deletions.map {
                        RecordDeletion(recordName: $0.recordID.recordName, recordType: $0.recordType)
                    }
                    changeToken = batch.changeToken
                    if !batch.moreComing { break }
                }
                let newToken = try changeToken.map(TokenText.encode) ?? ""
                if options.json {
                    try Output.json(ZoneChanges(changed: changed, deleted: deleted, token: newToken))
                } else {
                    for record in changed { Output.line("changed " + RecordText.render(record)) }
                    for deletion in deleted { Output.line("deleted \(deletion.recordType) \(deletion.recordName)") }
                    Output.line("token \(newToken)")
                }
            }
        }
    }

    /// `stratus changes database [--token T]`
    struct Database: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The zones changed or deleted.")

        @OptionGroup var options: GlobalOptions
        @Option(help: ArgumentHelp("The token of an earlier fetch.", valueName: "base64")) var token: String?

        func run() async throws {
            var changeToken = try token.map(TokenText.decode)
            try await Session.with(options) { session in
                var changed: [String] = []
                var deleted: [String] = []
                while true {
                    let batch = try await session.database.databaseChanges(since: changeToken)
                    changed += batch.modifications.map(\.zoneID.zoneName)
                    deleted += batch.deletions.map(\.zoneID.zoneName)
                    changeToken = batch.changeToken
                    if !batch.moreComing { break }
                }
                let newToken = try changeToken.map(TokenText.encode) ?? ""
                if options.json {
                    try Output.json(DatabaseChanges(changedZones: changed, deletedZones: deleted, token: newToken))
                } else {
                    for name in changed { Output.line("changed zone \(name)") }
                    for name in deleted { Output.line("deleted zone \(name)") }
                    Output.line("token \(newToken)")
                }
            }
        }
    }
}

/// A deleted record in `--json` output.
struct RecordDeletion: Encodable {
    var recordName: String
    var recordType: String
}

/// `stratus changes zone --json`.
struct ZoneChanges: Encodable {
    var changed: [CKRecord]
    var deleted: [RecordDeletion]
    var token: String
}

/// `stratus changes database --json`.
struct DatabaseChanges: Encodable {
    var changedZones: [String]
    var deletedZones: [String]
    var token: String
}
