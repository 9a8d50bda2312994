import Foundation
import Stratus
import StratusBackend
import StratusPostgreSQL
import StratusTestSupport

/// Server restarts under load, on a PostgreSQL server of the scenario's own: three writers share
/// one container (one backend, a pool of 2 connections) while a follower on a second backend
/// syncs with change tokens; the server is restarted with `pg_ctl restart -m fast`, `-m fast`,
/// `-m immediate` (a crash) and `-m fast`, each time after every writer was acknowledged five
/// more times.
/// Blocking throughout: run it on a test thread.
enum PostgreSQLRestartScenario {
    struct Report: Sendable, CustomStringConvertible {
        /// Why the scenario could not run at all (no server), or `nil`.
        var setupFailure: String?
        var restarts: [String] = []
        var acknowledged = 0
        var failed = 0
        /// Failed attempts whose records are in the store (the commit outcome was unknown).
        var failedButApplied = 0
        var retryable: [String: Int] = [:]
        var fetches = 0
        var fetchesRetried = 0
        var records = 0
        var seconds = 0.0
        var problems: [String] = []

        var description: String {
            let codes = retryable.keys.sorted().map { "\($0) \(retryable[$0]!)" }.joined(separator: ", ")
            return "\(restarts.count) restarts (\(restarts.joined(separator: ", "))), "
                + "\(acknowledged) modify operations acknowledged, \(failed) failed retryably (\(codes)), "
                + "\(failedButApplied) of those applied anyway, \(fetches) follower fetches (\(fetchesRetried) "
                + "failed retryably), \(records) records, \(String(format: "%.1f", seconds)) s, "
                + "\(problems.count) problems"
        }
    }

    static let writers = 3
    static let restartModes = ["fast", "fast", "immediate", "fast"]
    /// How many more acknowledgements every writer gets before each restart and after the last.
    static let acknowledgementsBetweenRestarts = 5
    /// How long the writers may go without an acknowledgement, or a thread without finishing,
    /// before the scenario calls it a hang.
    static let hangLimit = Duration.seconds(60)

    static func run() -> Report {
        let started = Date()
        var report = Report()
        let server: PostgreSQLPrivateServer
        do {
            server = try PostgreSQLPrivateServer()
        } catch {
            report.setupFailure = "\(error)"
            return report
        }
        defer { server.stop() }
        do {
            try run(on: server, &report)
        } catch {
            report.problems.append("the scenario failed: \(error)")
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    private static func run(on server: PostgreSQLPrivateServer, _ report: inout Report) throws {
        var configuration = try PostgreSQLBackendProvider().configuration(for: server.url)
        configuration.poolSize = 2
        let writerBackend = try PostgreSQLBackend(configuration: configuration)
        configuration.poolSize = 1
        let followerBackend = try PostgreSQLBackend(configuration: configuration)
        defer {
            try? writerBackend.close()
            try? followerBackend.close()
        }
        let identifier = "iCloud.stratus.pg-restarts"
        let database = CKContainer(identifier: identifier, backend: writerBackend).privateCloudDatabase
        let followerDatabase = CKContainer(identifier: identifier, backend: followerBackend).privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Restarts", ownerName: CKCurrentUserDefaultName)
        try TestClients.createZones([zoneID], in: database)

        let progress = PostgreSQLRestartWriter.Progress(writers: writers)
        let writerThreads = (0..<writers).map { writer in
            TestThread { PostgreSQLRestartWriter(database: database, zoneID: zoneID, writer: writer).run(progress) }
        }
        let followerThread = TestThread {
            TestClients.follow(followerDatabase, zoneIDs: [zoneID]) {
                progress.finished.load(ordering: .acquiring) == writers
            }
        }
        var progressing = true
        for mode in restartModes {
            progressing = awaitAcknowledgements(progress, &report)
            guard progressing else { break }
            do {
                try server.restart(immediate: mode == "immediate")
                report.restarts.append(mode)
            } catch {
                report.problems.append("restart -m \(mode): \(error)")
                break
            }
        }
        // Every writer is acknowledged again after the last restart: the same backend works.
        if progressing { _ = awaitAcknowledgements(progress, &report) }
        progress.stop.store(true, ordering: .releasing)

        var logs: [PostgreSQLRestartWriter.Log] = []
        for (writer, thread) in writerThreads.enumerated() {
            guard let log = thread.join(timeout: hangLimit) else {
                report.problems.append("writer \(writer) hung: its operation did not finish in \(hangLimit)")
                return
            }
            logs.append(log)
            report.acknowledged += log.attempts.filter(\.acknowledged).count
            report.failed += log.attempts.filter { !$0.acknowledged }.count
            report.retryable.merge(log.retryable, uniquingKeysWith: +)
            report.problems += log.problems.map { "writer \(writer): \($0)" }
        }
        guard let followed = followerThread.join(timeout: hangLimit) else {
            report.problems.append("the follower hung: it did not finish in \(hangLimit)")
            return
        }
        report.fetches = followed.fetches
        report.fetchesRetried = followed.retried
        report.problems += followed.problems.map { "follower: \($0)" }

        // The store as the writers' own backend reads it after the restarts.
        let store = try TestClients.store(database, zoneID: zoneID)
        report.records = store.count
        for (writer, log) in logs.enumerated() {
            check(log, writer: writer, against: store, &report)
        }
        let written = Set(logs.flatMap { $0.attempts.flatMap(\.values.keys) })
        for name in store.keys.sorted() where !written.contains(name) {
            report.problems.append("\(name) is in the store but no writer wrote it")
        }
        for line in RecordSnapshot.differences(followed.mirrors[zoneID] ?? [:], expected: store) {
            report.problems.append("follower's mirror vs store: \(line)")
        }
    }

    /// Waits until every writer was acknowledged `acknowledgementsBetweenRestarts` more times
    /// (a hang after `hangLimit`).
    private static func awaitAcknowledgements(
        _ progress: PostgreSQLRestartWriter.Progress, _ report: inout Report
    ) -> Bool {
        let start = progress.acknowledged.withLock { $0 }
        let deadline = Date().addingTimeInterval(Double(hangLimit.components.seconds))
        while true {
            let now = progress.acknowledged.withLock { $0 }
            if zip(now, start).allSatisfy({ $0 >= $1 + acknowledgementsBetweenRestarts }) { return true }
            if Date() > deadline {
                report.problems.append(
                    "no progress for \(hangLimit) after \(report.restarts.count) restarts: acknowledged \(start) then \(now)"
                )
                return false
            }
            usleep(10_000)
        }
    }

    /// One writer's attempts against the final store: every acknowledged value is there (or
    /// overwritten by a later attempt of the same writer), and every attempt — acknowledged or
    /// failed — is there whole or not at all.
    private static func check(
        _ log: PostgreSQLRestartWriter.Log, writer: Int, against store: [String: RecordSnapshot],
        _ report: inout Report
    ) {
        let values = Dictionary(uniqueKeysWithValues: log.attempts.map { ($0.number, $0.values) })
        /// The attempt that wrote `name`'s stored state, and whether its value is the one it wrote.
        func stored(_ name: String) -> (attempt: Int64, intact: Bool)? {
            guard let snapshot = store[name], let batch = snapshot.fields["batch"].flatMap(integer),
                let count = snapshot.fields["count"].flatMap(integer)
            else { return nil }
            return (batch, values[batch]?[name] == count)
        }
        for attempt in log.attempts {
            let names = attempt.values.keys.sorted()
            let states = names.map(stored)
            let applied = states.contains { $0?.attempt == attempt.number }
            if !attempt.acknowledged && applied { report.failedButApplied += 1 }
            guard attempt.acknowledged || applied else {
                // Not applied: none of the records it created may exist.
                for name in names where name.hasPrefix("w\(writer)-a\(attempt.number)-") && store[name] != nil {
                    report.problems.append("writer \(writer) attempt \(attempt.number) half applied: \(name) exists")
                }
                continue
            }
            for (name, state) in zip(names, states) {
                let what = attempt.acknowledged ? "acknowledged" : "applied"
                guard let state else {
                    report.problems.append("writer \(writer) attempt \(attempt.number) (\(what)): \(name) is missing")
                    continue
                }
                if state.attempt < attempt.number {
                    report.problems.append(
                        "writer \(writer) attempt \(attempt.number) (\(what)): \(name) holds attempt \(state.attempt)")
                } else if !state.intact {
                    report.problems.append(
                        "writer \(writer) attempt \(attempt.number) (\(what)): \(name) does not hold what attempt \(state.attempt) wrote"
                    )
                }
            }
        }
    }

    /// The value of a ``RecordSnapshot`` integer field (`i:42`).
    private static func integer(_ field: String) -> Int64? {
        field.hasPrefix("i:") ? Int64(field.dropFirst(2)) : nil
    }
}
