import Foundation
public import Stratus
import Synchronization

/// One `CKFetchRecordZoneChangesOperation` on one zone, with everything its callbacks
/// delivered, in order.
public struct ZoneChangeFetch: Sendable {
    /// One change as the operation delivered it.
    public enum Change: Sendable {
        /// A changed (or created) record, in its latest state.
        case changed(CKRecord)
        /// A deleted record, by name.
        case deleted(String)
        /// A per-record failure.
        case failed(String, any Error)

        /// The record name the change is about.
        public var recordName: String {
            switch self {
            case .changed(let record): return record.recordID.recordName
            case .deleted(let name), .failed(let name, _): return name
            }
        }
    }

    /// The changes, in delivery order.
    public var changes: [Change] = []
    /// The zone's final token, or `nil` if the zone failed.
    public var token: CKServerChangeToken?
    /// Whether the zone has more changes (only with `fetchAllChanges == false`).
    public var moreComing = false
    /// The zone's error, or the operation's.
    public var error: (any Error)?

    /// Applies the changes to `state` (record name → snapshot) in delivery order.
    public func apply(to state: inout [String: RecordSnapshot]) {
        for change in changes {
            switch change {
            case .changed(let record): state[record.recordID.recordName] = RecordSnapshot(record)
            case .deleted(let name): state[name] = nil
            case .failed: break
            }
        }
    }

    /// The names delivered more than once by this fetch.
    public var repeatedNames: [String] {
        var seen = Set<String>()
        return changes.map(\.recordName).filter { !seen.insert($0).inserted }
    }

    /// The per-record failures, described.
    public var failures: [String] {
        changes.compactMap {
            if case .failed(let name, let error) = $0 { return "\(name): \(error)" }
            return nil
        }
    }

    /// Builds the operation; `finish` gets the result after the operation's last callback.
    static func operation(
        zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, resultsLimit: Int, fetchAllChanges: Bool,
        finish: @escaping @Sendable (ZoneChangeFetch) -> Void
    ) -> CKFetchRecordZoneChangesOperation {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(
            previousServerChangeToken: token, resultsLimit: resultsLimit)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        operation.fetchAllChanges = fetchAllChanges
        // Callbacks of one operation run serially, but not on the caller's thread.
        let result = Mutex(ZoneChangeFetch())
        operation.recordWasChangedBlock = { id, outcome in
            result.withLock {
                switch outcome {
                case .success(let record): $0.changes.append(.changed(record))
                case .failure(let error): $0.changes.append(.failed(id.recordName, error))
                }
            }
        }
        operation.recordWithIDWasDeletedBlock = { id, _ in
            result.withLock { $0.changes.append(.deleted(id.recordName)) }
        }
        operation.recordZoneFetchResultBlock = { _, outcome in
            result.withLock {
                switch outcome {
                case .success(let value):
                    $0.token = value.serverChangeToken
                    $0.moreComing = value.moreComing
                case .failure(let error):
                    $0.error = error
                }
            }
        }
        operation.fetchRecordZoneChangesResultBlock = { outcome in
            if case .failure(let error) = outcome { result.withLock { $0.error = $0.error ?? error } }
            finish(result.withLock { $0 })
        }
        return operation
    }

    /// Runs one fetch of `zoneID`'s changes since `token` on `database` and waits for it,
    /// blocking the calling thread (call it from a thread of your own, not from Swift
    /// concurrency's pool).
    public static func run(
        _ database: CKDatabase, zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, resultsLimit: Int = 0,
        fetchAllChanges: Bool = true
    ) -> ZoneChangeFetch {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<ZoneChangeFetch?>(nil)
        database.add(
            operation(zoneID: zoneID, since: token, resultsLimit: resultsLimit, fetchAllChanges: fetchAllChanges) {
                fetch in
                box.withLock { $0 = fetch }
                done.signal()
            })
        done.wait()
        return box.withLock { $0! }
    }

    /// Runs one fetch of `zoneID`'s changes since `token` on `database`, suspending until it
    /// finished.
    public static func fetch(
        _ database: CKDatabase, zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, resultsLimit: Int = 0,
        fetchAllChanges: Bool = true
    ) async -> ZoneChangeFetch {
        await withCheckedContinuation { continuation in
            database.add(
                operation(zoneID: zoneID, since: token, resultsLimit: resultsLimit, fetchAllChanges: fetchAllChanges) {
                    continuation.resume(returning: $0)
                })
        }
    }
}
