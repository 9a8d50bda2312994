import Foundation
import Stratus
import StratusTestSupport

/// `remote-writer <options> <seed> <record-name-prefix> <operations> <report-file>`: the writer
/// of `ConcurrentSyncScenario` (seeded random creates, modifications and deletions in batches of
/// `CKModifyRecordsOperation`) through a remote container, in a process of its own, so that
/// several processes write through one or more `stratusd` while others sync with tokens. The
/// zones (`SyncA`, `SyncB`) must exist; records are only created under names beginning with
/// `record-name-prefix`. The report (`ConcurrentSyncScenario.WriterReport`: every record as
/// last saved) is written as JSON to `report-file`.
enum RemoteWriterCommand {
    static let name = "remote-writer"
    static let usage =
        "remote-writer \(RemoteProbeOptions.usage) <seed> <record-name-prefix> <operations> <report-file>"

    static func run(_ arguments: [String]) throws {
        let (options, positional) = try RemoteProbeOptions.parse(arguments)
        guard positional.count == 4, let seed = UInt64(positional[0]), let operations = Int(positional[2]),
            operations > 0
        else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        var configuration = ConcurrentSyncScenario.Configuration(seed: seed)
        configuration.operations = operations
        configuration.recordNamePrefix = positional[1]
        configuration.containerIdentifier = options.containerIdentifier
        let report = ConcurrentSyncScenario.write(configuration, to: options.container().privateCloudDatabase)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: positional[3]))
        print(
            "ok \(report.batches) batches in \(String(format: "%.2f", report.seconds)) s, \(report.problems.count) problems"
        )
    }
}
