import ArgumentParser
import Foundation
import Stratus

/// `stratus export [--zone Z] [--output FILE]`
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write a zone's records as JSON lines.",
        discussion: """
            One record per line, in CKRecord's Codable form: {"recordName", "recordType", "zoneName", \
            "fields": {"name": {"type", "value"}}, …}. Every value keeps its exact type (Int vs Int64 vs \
            Double, dates to the microsecond), so `stratus import` brings the same records back. Records \
            come in the order of the zone's changes, so a child may come before its parent. Asset fields \
            refer to content in this store; their files are not exported. The summary goes to standard \
            error (as JSON with --json).
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var zone: ZoneOption
    @Option(help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
    var output: String?

    func run() async throws {
        let handle: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else {
                throw CLIError("cannot create '\(output)'")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        } else {
            handle = FileHandle.standardOutput
        }
        let progress = TransferProgress(verb: "exported")
        let count = try await Session.with(options) { session in
            try await Self.export(zone.zoneID, of: session.database, to: handle, progress: progress)
        }
        if output != nil { try handle.close() }
        progress.finish()
        let summary = TransferSummary(verb: "exported", records: count, zone: zone.zone, seconds: progress.seconds)
        Output.status((options.json ? try Output.jsonLine(summary) : summary.text) + "\n")
    }

    /// Writes every record of `zoneID` to `handle`, one JSON line each, as the zone's changes
    /// arrive, and returns how many.
    static func export(
        _ zoneID: CKRecordZone.ID, of database: CKDatabase, to handle: FileHandle, progress: TransferProgress
    ) async throws -> Int {
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: nil)])
        operation.fetchAllChanges = true
        let state = ExportState()
        operation.recordWasChangedBlock = { _, result in
            state.write(result.flatMap(Self.line), to: handle)
            progress.update(records: state.count)
        }
        operation.recordZoneFetchResultBlock = { _, result in
            if case .failure(let error) = result { state.fail(error) }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            operation.fetchRecordZoneChangesResultBlock = { result in
                continuation.resume(with: result.flatMap { state.error.map { .failure($0) } ?? .success(()) })
            }
            database.add(operation)
        }
        return state.count
    }
}

extension ExportCommand {
    /// `record`'s export line, or an error naming the record when it has no JSON form (a
    /// double that is not finite): never a blank line, which an import would skip in silence.
    static func line(_ record: CKRecord) -> Result<String, any Error> {
        do {
            return .success(try RecordText.json(record))
        } catch {
            let reason: String
            if case EncodingError.invalidValue(_, let context) = error {
                reason = context.debugDescription
            } else {
                reason = "\(error)"
            }
            return .failure(
                CLIError("record '\(record.recordID.recordName)' cannot be exported: \(reason)"))
        }
    }
}

/// What an export has written so far; touched only from the operation's serial callbacks.
private final class ExportState: @unchecked Sendable {
    private(set) var count = 0
    private(set) var error: (any Error)?

    func write(_ line: Result<String, any Error>, to handle: FileHandle) {
        switch line {
        case .success(let text):
            handle.write(Data((text + "\n").utf8))
            count += 1
        case .failure(let error):
            fail(error)
        }
    }

    func fail(_ error: any Error) {
        if self.error == nil { self.error = error }
    }
}
