import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// Many client processes on one store through `stratusd` (issue 12): four writer processes
/// (`StratusTestProbe remote-writer`, `ConcurrentSyncScenario`'s seeded random creates,
/// modifications and deletions, each under record names of its own) and two syncer processes
/// (`remote-syncer`, one-batch zone-change fetches following tokens) at once, the clients
/// spread over the servers given. When every writer has exited, each syncer syncs once more;
/// its mirror must then equal a fresh container's `nil`-token fetch of each zone, which must
/// equal what the writers last saved — nothing missed — and no syncer may have seen a record
/// twice in one fetch, a record version twice at all, or a token stay put under changes.
struct ManyClientsScenario {
    static let writers = 4
    static let syncers = 2

    /// The servers; client `i` talks to `servers[i % servers.count]`.
    let servers: [StratusDaemonProcess]
    let account: RemoteProbeAccount
    let apiToken: String
    let session: String
    let directory: TemporaryDirectory
    /// Creates, modifications and deletions per writer.
    var operations = 1_500
    /// The syncers' `resultsLimit`.
    var resultsLimit = 10
    /// The writers' seed: `STRATUS_SYNC_SEED` if set (to replay a failure), else fixed.
    var seed = ProcessInfo.processInfo.environment["STRATUS_SYNC_SEED"].flatMap { UInt64($0) } ?? 0x12C1_1E47

    /// What the run measured, for the log.
    struct Figures: CustomStringConvertible {
        var writerSeconds: [Double] = [], writerBatches: [Int] = [], syncerSeconds: [Double] = []
        var syncerFetches: [String] = [], records = 0, seconds = 0.0

        var description: String {
            "\(records) records at the end; writers \(zip(writerBatches, writerSeconds).map { "\($0) batches in \(String(format: "%.1f", $1)) s" }); "
                + "syncers \(zip(syncerFetches, syncerSeconds).map { "\($0) fetches in \(String(format: "%.1f", $1)) s" }); "
                + "all \(String(format: "%.1f", seconds)) s"
        }
    }

    var configuration: ConcurrentSyncScenario.Configuration {
        var configuration = ConcurrentSyncScenario.Configuration(seed: seed)
        configuration.containerIdentifier = account.container
        configuration.operations = operations
        configuration.resultsLimit = resultsLimit
        return configuration
    }

    /// A fresh remote container for the user, through `server`.
    func container(_ server: StratusDaemonProcess) -> CKContainer {
        CKContainer(
            identifier: account.container,
            server: RemoteServer(url: server.baseURL, credentials: .session(apiToken: apiToken, webAuthToken: session)))
    }

    /// Runs the clients and checks everything; returns the figures.
    func run() async throws -> Figures {
        let started = Date()
        let database = container(servers[0]).privateCloudDatabase
        for zoneName in configuration.zoneNames { _ = try await database.save(CKRecordZone(zoneName: zoneName)) }
        let doneFile = directory.appending("writers-done").path
        let syncers = try (0..<Self.syncers).map { i in
            try TestProbe.launch(
                ["remote-syncer"] + account.arguments(server: servers[i % servers.count].baseURL)
                    + [String(resultsLimit), doneFile, reportFile("syncer", i).path])
        }
        var figures = Figures()
        // Whatever happens to the writers, the syncers are told to finish, so none is left behind.
        var written: [ConcurrentSyncScenario.WriterReport] = []
        var writersFailure: (any Error)?
        do { written = try await runWriters(&figures) } catch { writersFailure = error }
        #expect(FileManager.default.createFile(atPath: doneFile, contents: nil), "the syncers' signal to finish")
        var synced: [SyncerReport] = []
        for (i, syncer) in syncers.enumerated() {
            let outcome = await syncer.finish()
            #expect(outcome.status == 0, "syncer \(i) failed with status \(outcome.status): \(outcome.errorOutput)")
            let report = try JSONDecoder().decode(SyncerReport.self, from: Data(contentsOf: reportFile("syncer", i)))
            synced.append(report)
            figures.syncerSeconds.append(report.seconds)
            figures.syncerFetches.append("\(report.fetchesDuringWrites)+\(report.finalFetches)")
        }
        if let writersFailure { throw writersFailure }
        figures.records = try await check(synced, written: written)
        figures.seconds = Date().timeIntervalSince(started)
        return figures
    }

    /// Runs the writers to their end; returns their reports.
    private func runWriters(_ figures: inout Figures) async throws -> [ConcurrentSyncScenario.WriterReport] {
        let writers = try (0..<Self.writers).map { i in
            try TestProbe.launch(
                ["remote-writer"] + account.arguments(server: servers[i % servers.count].baseURL)
                    + [String(seed &+ UInt64(i + 1)), "w\(i)-", String(operations), reportFile("writer", i).path])
        }
        var written: [ConcurrentSyncScenario.WriterReport] = []
        for (i, writer) in writers.enumerated() {
            let outcome = await writer.finish()
            #expect(outcome.status == 0, "writer \(i) failed with status \(outcome.status): \(outcome.errorOutput)")
            let report = try JSONDecoder().decode(
                ConcurrentSyncScenario.WriterReport.self, from: Data(contentsOf: reportFile("writer", i)))
            #expect(report.problems.isEmpty, "writer \(i): \(report.problems.prefix(5))")
            #expect(report.creates + report.modifications + report.deletions == operations)
            figures.writerSeconds.append(report.seconds)
            figures.writerBatches.append(report.batches)
            written.append(report)
        }
        return written
    }

    /// The report file of client `index` of `kind` (`writer`, `syncer`).
    private func reportFile(_ kind: String, _ index: Int) -> URL {
        directory.appending("\(kind)\(index).json")
    }

    /// Compares each syncer's mirror with a fresh container's view (through the last server)
    /// and with the writers' records; returns the number of records at the end.
    private func check(_ synced: [SyncerReport], written: [ConcurrentSyncScenario.WriterReport]) async throws -> Int {
        let fresh = container(servers[servers.count - 1]).privateCloudDatabase
        let saved = written.map(\.records)
        let configuration = configuration
        var records = 0
        for (i, report) in synced.enumerated() {
            #expect(report.problems.isEmpty, "syncer \(i), seed \(seed): \(report.problems)")
            #expect(report.fetchesDuringWrites > 0 && report.changesApplied > 0, "syncer \(i) followed the writes")
            let names = report.mirrors.values.flatMap(\.keys)
            for w in 0..<Self.writers {
                #expect(names.contains { $0.hasPrefix("w\(w)-") }, "syncer \(i) has writer \(w)'s records")
            }
            let compared = await onThread {
                ConcurrentSyncScenario.compare(configuration, store: fresh, mirrors: report.mirrors, saved: saved)
            }
            #expect(compared.problems.isEmpty, "syncer \(i), seed \(seed): \(compared.problems.prefix(10))")
            records = compared.records
        }
        let expected = written.map { $0.records.values.map(\.count).reduce(0, +) }.reduce(0, +)
        #expect(records == expected, "records at the end: \(records), the writers left \(expected)")
        return records
    }

    /// Runs a blocking `body` on a thread of its own (not Swift concurrency's pool).
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }
}
