import Foundation
import Stratus
import StratusTestSupport

/// `remote-syncer <options> <results-limit> <done-file> <report-file>`: follows the zones of
/// `ConcurrentSyncScenario` (`SyncA`, `SyncB`) through a remote container with one-batch
/// `CKFetchRecordZoneChangesOperation`s of `results-limit` changes, each from the token the
/// previous one returned, applying every change to a mirror, until `done-file` exists (the test
/// creates it when every writer has exited); then it syncs each zone once more until nothing
/// more is coming, and writes its ``SyncerReport`` as JSON to `report-file`.
enum RemoteSyncerCommand {
    static let name = "remote-syncer"
    static let usage = "remote-syncer \(RemoteProbeOptions.usage) <results-limit> <done-file> <report-file>"

    static func run(_ arguments: [String]) throws {
        let (options, positional) = try RemoteProbeOptions.parse(arguments)
        guard positional.count == 3, let limit = Int(positional[0]), limit > 0 else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let zoneNames = ConcurrentSyncScenario.Configuration(seed: 0).zoneNames
        var syncer = TokenSyncer(
            database: options.container().privateCloudDatabase, resultsLimit: limit,
            zoneIDs: zoneNames.map { CKRecordZone.ID(zoneName: $0, ownerName: CKCurrentUserDefaultName) })
        let started = Date()
        syncer.follow { FileManager.default.fileExists(atPath: positional[1]) }
        syncer.report.seconds = Date().timeIntervalSince(started)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(syncer.report).write(to: URL(fileURLWithPath: positional[2]))
        print(
            "ok \(syncer.report.fetchesDuringWrites)+\(syncer.report.finalFetches) fetches, "
                + "\(syncer.report.problems.count) problems")
    }
}

/// The syncer's state: a mirror and a token per zone, and every record version seen.
private struct TokenSyncer {
    let database: CKDatabase
    let resultsLimit: Int
    let zoneIDs: [CKRecordZone.ID]
    var tokens: [CKRecordZone.ID: CKServerChangeToken] = [:]
    var mirrors: [CKRecordZone.ID: [String: RecordSnapshot]] = [:]
    /// Every (zone, record name, change tag) delivered: each save makes a new change tag, so a
    /// version delivered again means a token went back.
    var versions = Set<[String]>()
    var report = SyncerReport()

    init(database: CKDatabase, resultsLimit: Int, zoneIDs: [CKRecordZone.ID]) {
        self.database = database
        self.resultsLimit = resultsLimit
        self.zoneIDs = zoneIDs
    }

    /// Follows every zone until `writersFinished()`, then drains each.
    mutating func follow(until writersFinished: () -> Bool) {
        while !writersFinished() && report.problems.count < 10 {
            var caughtUp = true
            for zoneID in zoneIDs {
                report.fetchesDuringWrites += 1
                if fetchOnce(zoneID) { caughtUp = false }
            }
            if caughtUp { usleep(5_000) }
        }
        for zoneID in zoneIDs {
            var rounds = 0
            while report.problems.count < 10 {
                report.finalFetches += 1
                rounds += 1
                if !fetchOnce(zoneID) { break }
                if rounds > 100_000 {
                    report.problems.append("zone \(zoneID.zoneName): the final sync never ended")
                    break
                }
            }
        }
        report.mirrors = Dictionary(uniqueKeysWithValues: mirrors.map { ($0.key.zoneName, $0.value) })
    }

    /// Fetches one batch of `zoneID` and applies it; returns whether more is coming (or the
    /// fetch failed, to try again).
    mutating func fetchOnce(_ zoneID: CKRecordZone.ID) -> Bool {
        let zone = zoneID.zoneName
        let previous = tokens[zoneID]
        let fetch = ZoneChangeFetch.run(
            database, zoneID: zoneID, since: previous, resultsLimit: resultsLimit, fetchAllChanges: false)
        if let error = fetch.error {
            report.problems.append("zone \(zone): fetch failed: \(error)")
            return true
        }
        report.problems += fetch.failures.map { "zone \(zone): a fetch delivered an error: \($0)" }
        if !fetch.repeatedNames.isEmpty {
            report.problems.append("zone \(zone): one fetch delivered \(fetch.repeatedNames) more than once")
        }
        if fetch.changes.count > resultsLimit {
            report.problems.append("zone \(zone): one fetch delivered \(fetch.changes.count) > \(resultsLimit)")
        }
        guard let token = fetch.token else {
            report.problems.append("zone \(zone): a fetch returned no token")
            return true
        }
        if !fetch.changes.isEmpty && token == previous {
            report.problems.append("zone \(zone): a fetch delivered changes but returned the token it was given")
        }
        account(fetch.changes, zone: zone)
        fetch.apply(to: &mirrors[zoneID, default: [:]])
        tokens[zoneID] = token
        return fetch.moreComing
    }

    /// Counts the changes and checks that no record version comes twice.
    mutating func account(_ changes: [ZoneChangeFetch.Change], zone: String) {
        for change in changes {
            switch change {
            case .changed(let record):
                report.changesApplied += 1
                let version = [zone, record.recordID.recordName, record.recordChangeTag ?? ""]
                if !versions.insert(version).inserted {
                    report.problems.append(
                        "zone \(zone): \(version[1]) at change tag \(version[2]) delivered again: a token went back")
                }
            case .deleted: report.deletionsApplied += 1
            case .failed: break
            }
        }
    }
}
