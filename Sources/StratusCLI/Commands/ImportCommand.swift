import ArgumentParser
import Foundation
import Stratus

/// `stratus import [--zone Z] [--input FILE]`
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Save records from JSON lines (as export writes them) into a zone.",
        discussion: """
            Each record keeps its name, type, fields (with their exact types) and parent; the zone is \
            --zone's, created if it does not exist, and references to records of the exported zone are \
            moved along. Records are saved with the allKeys policy, so importing twice changes nothing \
            but the change tags. Parents are saved before their children.
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var zone: ZoneOption
    @Option(help: ArgumentHelp("The file to read (default: standard input).", valueName: "file"))
    var input: String?

    func run() async throws {
        let data: Data
        if let input {
            guard let contents = FileManager.default.contents(atPath: input) else {
                throw CLIError("cannot read '\(input)'", exitCode: CLIError.noInput)
            }
            data = contents
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        let records = try RecordLines.decode(data, into: zone.zoneID)
        let saved = try await Session.with(options) { session in
            try await Self.ensureZone(zone.zoneID, in: session.database)
            return try await Self.save(RecordLines.parentsFirst(records), to: session.database)
        }
        if options.json {
            try Output.json(["imported": saved])
        } else {
            Output.line("imported \(saved) record\(saved == 1 ? "" : "s") into zone \(zone.zone)")
        }
    }

    /// Creates `zoneID` unless it exists (the default zone always does).
    static func ensureZone(_ zoneID: CKRecordZone.ID, in database: CKDatabase) async throws {
        guard zoneID.zoneName != CKRecordZone.ID.defaultZoneName else { return }
        do {
            _ = try await database.recordZone(for: zoneID)
        } catch let error as CKError where error.code == .zoneNotFound {
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            Output.status("created zone \(zoneID.zoneName)\n")
        }
    }

    /// Saves `records` in batches of 400 (CloudKit's limit per request) and returns how many
    /// were saved; reports every failure and throws if there was one.
    static func save(_ records: [CKRecord], to database: CKDatabase) async throws -> Int {
        var saved = 0
        var failures = 0
        var start = 0
        while start < records.count {
            let batch = Array(records[start..<min(start + 400, records.count)])
            let results = try await database.modifyRecords(
                saving: batch, deleting: [], savePolicy: .allKeys, atomically: false)
            for record in batch {
                switch results.saveResults[record.recordID] {
                case .success: saved += 1
                case .failure(let error):
                    failures += 1
                    Output.error("record '\(record.recordID.recordName)': \(CLIError.describe(error))")
                case nil: break
                }
            }
            start += batch.count
        }
        if failures > 0 {
            throw CLIError("\(failures) of \(records.count) records were not imported (\(saved) were)")
        }
        return saved
    }
}
