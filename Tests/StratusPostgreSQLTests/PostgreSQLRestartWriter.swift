import Foundation
import Stratus
import StratusTestSupport
import Synchronization

/// One writer client of the restart scenario: atomic `CKModifyRecordsOperation`s on one zone,
/// each creating three records of its own and overwriting up to three the writer was told
/// were saved, every record tagged with the attempt that wrote it (`batch`) and a value
/// (`count`). A failed attempt is not repeated: the next attempt writes new records, so an
/// attempt whose commit outcome was unknown stays visible in the store — whole or not at all.
struct PostgreSQLRestartWriter {
    /// One modify operation the writer ran.
    struct Attempt: Sendable {
        /// The attempt's number, the `batch` field of every record it wrote.
        var number: Int64
        /// Record name → the `count` it wrote.
        var values: [String: Int64]
        /// Whether the operation reported success.
        var acknowledged: Bool
    }

    /// What a writer did and saw.
    struct Log: Sendable {
        var attempts: [Attempt] = []
        /// Retryable failures by `CKError` code name.
        var retryable: [String: Int] = [:]
        /// Anything the scenario must report: a non-retryable error, a retryable one without a
        /// retry delay, an operation that both failed and reported records saved.
        var problems: [String] = []
    }

    /// Shared between the writers and whoever runs them.
    final class Progress: Sendable {
        /// Acknowledged attempts, per writer.
        let acknowledged: Mutex<[Int]>
        /// Set to make the writers stop after their current operation.
        let stop = Atomic<Bool>(false)
        /// Writers that have stopped.
        let finished = Atomic<Int>(0)

        init(writers: Int) {
            acknowledged = Mutex([Int](repeating: 0, count: writers))
        }
    }

    let database: CKDatabase
    let zoneID: CKRecordZone.ID
    let writer: Int

    /// Writes until `progress.stop` (or five problems).
    func run(_ progress: Progress) -> Log {
        defer { progress.finished.add(1, ordering: .releasing) }
        var generator = SeededGenerator(seed: 0x7e57_a770 + UInt64(writer))
        var log = Log()
        var known: [String] = []
        var number: Int64 = 0
        while !progress.stop.load(ordering: .acquiring) && log.problems.count < 5 {
            number += 1
            var values: [String: Int64] = [:]
            for index in 0..<3 {
                values["w\(writer)-a\(number)-\(index)"] = Int64.random(in: 0...1_000_000, using: &generator)
            }
            for _ in 0..<3 {
                guard let name = known.randomElement(using: &generator) else { break }
                values[name] = Int64.random(in: 0...1_000_000, using: &generator)
            }
            let records = values.map { name, value in
                let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
                record["batch"] = number
                record["count"] = value
                return record
            }
            // `.allKeys`: the records were made here, without the server's change tags.
            let outcome = TestClients.modify(database, saving: records, deleting: [], policy: .allKeys)
            let errors = outcome.errors
            let saved = outcome.saved.values.filter { if case .success = $0 { true } else { false } }.count
            if errors.isEmpty && saved == records.count {
                log.attempts.append(Attempt(number: number, values: values, acknowledged: true))
                known += values.keys.filter { $0.hasPrefix("w\(writer)-a\(number)-") }
                progress.acknowledged.withLock { $0[writer] += 1 }
                continue
            }
            log.attempts.append(Attempt(number: number, values: values, acknowledged: false))
            if errors.isEmpty {
                log.problems.append("attempt \(number): \(saved) of \(records.count) saved and no error")
            } else if saved > 0 {
                log.problems.append("attempt \(number): failed (\(errors[0])) yet reported \(saved) records saved")
            }
            for error in errors {
                if let problem = PostgreSQLRestartWriter.problem(with: error) {
                    log.problems.append("attempt \(number): \(problem)")
                } else if let error = error as? CKError {
                    log.retryable[error.code.name, default: 0] += 1
                }
            }
            // A real client waits `retryAfterSeconds`; the test only checks the delay is there.
            usleep(20_000)
        }
        return log
    }

    /// What is wrong with `error` as the failure of an operation interrupted by a server
    /// restart, or `nil` when it is right: a retryable `CKError`, with a retry delay where
    /// CloudKit gives one.
    static func problem(with error: any Error) -> String? {
        guard let error = error as? CKError else { return "not a CKError: \(error)" }
        switch error.code {
        case .serviceUnavailable, .zoneBusy, .requestRateLimited:
            guard let delay = error.retryAfterSeconds, delay > 0 else {
                return "\(error.code.name) without retryAfterSeconds: \(error)"
            }
            return nil
        case .networkFailure, .networkUnavailable:
            return nil
        default:
            return "not retryable: \(error.code.name): \(error)"
        }
    }
}
