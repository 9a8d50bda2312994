import Foundation
import Stratus
import StratusTestSupport
import Synchronization

/// Blocking CloudKit calls for test threads (never the cooperative pool, which blocking
/// waits would starve), and a thread joined for its result.
enum TestClients {
    /// The outcome of one `CKModifyRecordsOperation`.
    struct Modify {
        var saved: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        var deleted: [CKRecord.ID: Result<Void, any Error>] = [:]
        var failure: (any Error)?

        /// Every error the operation reported, the operation's own first.
        var errors: [any Error] {
            [failure].compactMap { $0 }
                + saved.values.compactMap { if case .failure(let e) = $0 { return e } else { return nil } }
                + deleted.values.compactMap { if case .failure(let e) = $0 { return e } else { return nil } }
        }
    }

    /// Runs one `CKModifyRecordsOperation` and waits for it.
    static func modify(
        _ database: CKDatabase, saving: [CKRecord], deleting: [CKRecord.ID],
        policy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged
    ) -> Modify {
        let operation = CKModifyRecordsOperation(recordsToSave: saving, recordIDsToDelete: deleting)
        operation.savePolicy = policy
        let box = Mutex(Modify())
        let done = DispatchSemaphore(value: 0)
        operation.perRecordSaveBlock = { id, result in box.withLock { $0.saved[id] = result } }
        operation.perRecordDeleteBlock = { id, result in box.withLock { $0.deleted[id] = result } }
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { box.withLock { $0.failure = error } }
        }
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
        return box.withLock { $0 }
    }

    /// Creates `zoneIDs`.
    static func createZones(_ zoneIDs: [CKRecordZone.ID], in database: CKDatabase) throws {
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: zoneIDs.map { CKRecordZone(zoneID: $0) })
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        operation.modifyRecordZonesResultBlock = { result in
            if case .failure(let error) = result { failure.withLock { $0 = error } }
        }
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Whether `error` says "try again later".
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? CKError else { return false }
        return [.zoneBusy, .serviceUnavailable, .requestRateLimited, .networkFailure, .networkUnavailable]
            .contains(error.code)
    }

    /// A follower: fetches `zoneIDs` with change tokens in small batches until `stop()`, then
    /// drains them; returns the mirrors, the problems, and how many fetches there were and
    /// failed retryably (those are retried).
    static func follow(
        _ database: CKDatabase, zoneIDs: [CKRecordZone.ID], resultsLimit: Int = 9, stop: () -> Bool
    ) -> (mirrors: [CKRecordZone.ID: [String: RecordSnapshot]], problems: [String], fetches: Int, retried: Int) {
        var mirrors: [CKRecordZone.ID: [String: RecordSnapshot]] = [:]
        var tokens: [CKRecordZone.ID: CKServerChangeToken] = [:]
        var problems: [String] = []
        var fetches = 0
        var retried = 0
        func once(_ zoneID: CKRecordZone.ID) -> Bool {
            fetches += 1
            let fetch = ZoneChangeFetch.run(
                database, zoneID: zoneID, since: tokens[zoneID], resultsLimit: resultsLimit, fetchAllChanges: false)
            if let error = fetch.error {
                if isRetryable(error) {
                    retried += 1
                } else {
                    problems.append("\(zoneID.zoneName): fetch failed: \(error)")
                }
                usleep(2_000)
                return true
            }
            guard let token = fetch.token else {
                problems.append("\(zoneID.zoneName): no token")
                return true
            }
            fetch.apply(to: &mirrors[zoneID, default: [:]])
            tokens[zoneID] = token
            return fetch.moreComing
        }
        while !stop() && problems.count < 10 {
            for zoneID in zoneIDs { _ = once(zoneID) }
            usleep(500)
        }
        for zoneID in zoneIDs {
            var rounds = 0
            while once(zoneID) && problems.count < 10 && rounds < 100_000 { rounds += 1 }
        }
        return (mirrors, problems, fetches, retried)
    }

    /// Every record of `zoneID`, by a nil-token fetch.
    static func store(_ database: CKDatabase, zoneID: CKRecordZone.ID) throws -> [String: RecordSnapshot] {
        let fetch = ZoneChangeFetch.run(database, zoneID: zoneID, since: nil)
        if let error = fetch.error { throw error }
        var store: [String: RecordSnapshot] = [:]
        fetch.apply(to: &store)
        return store
    }
}

/// A body on a thread of its own, joined for its result.
final class TestThread<T: Sendable>: Sendable {
    private let result = Mutex<T?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            let value = body()
            self.result.withLock { $0 = value }
            self.done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Waits at most `timeout` for the body, blocking this thread (call it from a test
    /// thread); `nil` when the body has not finished by then.
    func join(timeout: Duration) -> T? {
        let (seconds, attoseconds) = timeout.components
        let deadline =
            DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        guard done.wait(timeout: deadline) == .success else { return nil }
        done.signal()  // later joins and `value()` see it finished too
        return result.withLock { $0 }
    }

    /// Waits for the body, without blocking the cooperative pool.
    func value() async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            DispatchQueue.global().async { [self] in
                self.done.wait()
                continuation.resume(returning: self.result.withLock { $0! })
            }
        }
    }
}
