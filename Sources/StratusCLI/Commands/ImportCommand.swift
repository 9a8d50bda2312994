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
            moved along. The input is read as it comes and saved in requests of up to 400 records with \
            the allKeys policy, so importing twice changes nothing but the change tags. A record whose \
            parent is not saved yet waits until its parent is (at most 100,000 records wait). A line that \
            is not a record stops the import at once; the records saved before it stay.
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var zone: ZoneOption
    @Option(help: ArgumentHelp("The file to read (default: standard input).", valueName: "file"))
    var input: String?

    func run() async throws {
        let lines = try InputLines(path: input)
        let progress = TransferProgress(verb: "imported")
        let saved = try await Session.with(options) { session in
            try await Self.run(lines, into: zone.zoneID, of: session.database, progress: progress)
        }
        progress.finish()
        let summary = TransferSummary(verb: "imported", records: saved, zone: zone.zone, seconds: progress.seconds)
        if options.json {
            try Output.json(summary)
        } else {
            Output.line(summary.text)
        }
    }

    /// Reads, decodes and saves `lines` into `zoneID`, a request at a time, decoding the next
    /// request's lines while the previous one is saved; returns how many records were saved.
    static func run(
        _ lines: InputLines, into zoneID: CKRecordZone.ID, of database: CKDatabase, progress: TransferProgress
    ) async throws -> Int {
        let importer = RecordImporter(database: database)
        var decoding = decodeTask(try lines.next(RecordImporter.requestSize), into: zoneID)
        var zoneReady = false
        while let task = decoding {
            let records: [CKRecord]
            do {
                records = try await task.value
            } catch let error as CLIError {
                throw CLIError(
                    error.message + "; " + RecordImporter.imported(importer.saved, before: "before it"),
                    exitCode: error.exitCode)
            }
            decoding = decodeTask(try lines.next(RecordImporter.requestSize), into: zoneID)
            if !zoneReady {
                try await ensureZone(zoneID, in: database)
                zoneReady = true
            }
            try await importer.save(records)
            progress.update(
                records: importer.saved, fraction: lines.size.map { Double(lines.bytesRead) / Double(max(1, $0)) })
        }
        try await importer.finish()
        if importer.failed > 0 {
            let total = importer.saved + importer.failed
            throw CLIError("\(importer.failed) of \(total) records were not imported (\(importer.saved) were)")
        }
        return importer.saved
    }

    /// A task decoding `lines`, or `nil` when there are none.
    private static func decodeTask(_ lines: [InputLine], into zoneID: CKRecordZone.ID) -> Task<[CKRecord], any Error>? {
        guard !lines.isEmpty else { return nil }
        return Task { try RecordLines(into: zoneID).decode(lines) }
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
}
