import Foundation
import StratusBackend
import Synchronization
import Testing

@testable import Stratus

/// An engine over a fresh SQLite file whose journal clock a test moves, and the journal of one
/// user in it.
struct JournalTestStore {
    static let owner = Namespace(container: "iCloud.com.example.journal", environment: .development, owner: "_alice")

    let storage: SQLiteFixtureStorage
    let engine: Engine
    let clock = JournalTestClock()

    init() throws {
        storage = try SQLiteFixtureStorage()
        engine = try Engine(backend: try storage.openSQLite())
        let clock = self.clock
        engine.journalState.settings.withLock { settings in
            settings.clock = { Date(timeIntervalSince1970: clock.seconds.withLock { $0 }) }
        }
    }

    func advance(by seconds: Double) { clock.seconds.withLock { $0 += seconds } }

    func journal() throws -> HostedJournal {
        try HostedJournal(engine: engine, owner: JournalTestStore.owner)
    }

    /// Submits a delete of record `id` as operation `id`, its lease held by `holder` until
    /// `expiry`.
    @discardableResult
    func submit(
        _ id: String, listed: Bool = true, holder: String = "elsewhere", expiry: Double = 2_000_000,
        maximumRunning: Int = HostedJournal.maximumRunningPerUser
    ) throws -> HostedJournal.Submitted {
        let operation = CKModifyRecordsOperation(
            recordsToSave: nil, recordIDsToDelete: [CKRecord.ID(recordName: id)])
        return try journal().submit(
            try LongLivedSubmission(encoding: operation), id: id,
            target: JournalTarget(
                namespace: JournalTestStore.owner,
                caller: Caller(userRecordName: "_alice", role: .user)),
            scope: .private, listed: listed, holder: holder, leaseExpiry: expiry, maximumRunning: maximumRunning)
    }

    /// Whether the journal still has an entry for `id`.
    func has(_ id: String) throws -> Bool { try journal().status(id) != nil }

    func destroy() { try? storage.destroy() }
}

/// A journal clock a test moves forward.
final class JournalTestClock: Sendable {
    let seconds = Mutex<Double>(1_000_000)
}
