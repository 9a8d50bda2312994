import Foundation
import Stratus
import StratusTestSupport

/// `sync-writer <store> <seed> <record-name-prefix> <operations> <report-file>`: the writer of
/// `ConcurrentSyncScenario` in a process of its own, so that several processes write one store
/// while a test follows it with change tokens. It opens the store (``Probe/openStore(_:)``),
/// whose zones the test has created, writes `operations` seeded random creates,
/// modifications and deletions in batches, creating only records whose names begin with
/// `record-name-prefix` (so that writers never touch each other's records), and writes its
/// report (`ConcurrentSyncScenario.WriterReport`: every record as last saved) as JSON to
/// `report-file` — a file, because it is larger than a pipe holds.
enum SyncWriterCommand {
    static let name = "sync-writer"
    static let usage = "sync-writer <sqlite path | lmdb: URL> <seed> <record-name-prefix> <operations> <report-file>"

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 5, let seed = UInt64(arguments[1]), let operations = Int(arguments[3]),
            operations > 0
        else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let backend = try Probe.openStore(arguments[0])
        var configuration = ConcurrentSyncScenario.Configuration(seed: seed)
        configuration.operations = operations
        configuration.recordNamePrefix = arguments[2]
        let database = CKContainer(identifier: configuration.containerIdentifier, backend: backend)
            .privateCloudDatabase
        let report = ConcurrentSyncScenario.write(configuration, to: database)
        try backend.close()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: arguments[4]))
        print("ok \(report.batches) batches, \(report.problems.count) problems")
    }
}
