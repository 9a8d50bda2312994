import Foundation
import Stratus

/// Every callback of one operation, as text, in delivery order — so that an original long-lived
/// operation and its replayed proxy can be compared callback by callback (records with their
/// change tags, tokens and cursors with their bytes, errors with their codes).
///
/// A log can *hold* its operation: the callback for which `holdWhen` is true is recorded, then
/// the callback blocks until ``release()``, and nothing after it is recorded. A case holds an
/// operation, closes the store under it — a process killed at that callback — and reopens the
/// store as the next process would.
final class CallbackLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    private var frozen = false
    private var held = false
    private let holdWhen: @Sendable (Int, String) -> Bool
    private let freezes: Bool
    private let reached = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// A log that holds its operation at the first callback for which `holdWhen(index, entry)`
    /// is true (index from 0), or never. With `freezes` (the default) nothing after the hold
    /// point is recorded: the process is dead.
    init(freezes: Bool = true, holdWhen: @escaping @Sendable (Int, String) -> Bool = { _, _ in false }) {
        self.holdWhen = holdWhen
        self.freezes = freezes
    }

    /// A log that holds at the first entry starting with `prefix`.
    static func holding(atFirst prefix: String) -> CallbackLog {
        CallbackLog { _, entry in entry.hasPrefix(prefix) }
    }

    /// The entries recorded so far.
    var all: [String] { lock.withLock { entries } }

    /// Records `entry` (unless the log is frozen), and holds if it is the hold point.
    func record(_ entry: String) {
        let hold: Bool = lock.withLock {
            guard !frozen else { return false }
            entries.append(entry)
            if !held && holdWhen(entries.count - 1, entry) {
                held = true
                frozen = freezes
                return true
            }
            return false
        }
        if hold {
            reached.signal()
            released.wait()
        }
    }

    /// Holds the calling callback (the persisted block, say) as if it were the hold point.
    func holdHere(_ entry: String) {
        let first: Bool = lock.withLock {
            guard !held else { return false }
            entries.append(entry)
            held = true
            frozen = freezes
            return true
        }
        if first {
            reached.signal()
            released.wait()
        }
    }

    /// Waits until the operation is held; false after `seconds` without it.
    func waitUntilHeld(seconds: Double = 30) -> Bool {
        reached.wait(timeout: .now() + seconds) == .success
    }

    /// Lets the held operation go on (its later callbacks are not recorded).
    func release() { released.signal() }

    /// Signals that the operation finished (its `completionBlock`).
    func markFinished() { finished.signal() }

    /// Waits until the operation finished; false after `seconds`.
    func waitUntilFinished(seconds: Double = 60) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }

    // MARK: Attaching

    /// Sets every callback of `operation` (any concrete database operation) to record here,
    /// and its `completionBlock` to ``markFinished()``.
    func attach(to operation: CKOperation) {
        operation.completionBlock = { [self] in markFinished() }
        switch operation {
        case let op as CKModifyRecordsOperation: attachModify(op)
        case let op as CKFetchRecordsOperation: attachFetch(op)
        case let op as CKQueryOperation: attachQuery(op)
        case let op as CKFetchRecordZoneChangesOperation: attachZoneChanges(op)
        case let op as CKFetchDatabaseChangesOperation: attachDatabaseChanges(op)
        case let op as CKModifyRecordZonesOperation: attachModifyZones(op)
        case let op as CKFetchRecordZonesOperation: attachFetchZones(op)
        case let op as CKModifySubscriptionsOperation: attachModifySubscriptions(op)
        case let op as CKFetchSubscriptionsOperation: attachFetchSubscriptions(op)
        default: record("unsupported operation \(type(of: operation))")
        }
    }

    private func attachModify(_ op: CKModifyRecordsOperation) {
        op.perRecordProgressBlock = { [self] saved, progress in
            record("progress \(saved.recordID.recordName) \(progress)")
        }
        op.perRecordSaveBlock = { [self] id, result in record("save \(id.recordName) \(Self.describe(result))") }
        op.perRecordDeleteBlock = { [self] id, result in record("delete \(id.recordName) \(Self.describe(result))") }
        op.modifyRecordsResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.modifyRecordsCompletionBlock = { [self] saved, deleted, error in
            let names = (saved ?? []).map { "\($0.recordID.recordName)@\($0.recordChangeTag ?? "-")" }.sorted()
            let deletedNames = (deleted ?? []).map(\.recordName).sorted()
            record("completion saved=\(names) deleted=\(deletedNames) \(Self.describe(error))")
        }
    }

    private func attachFetch(_ op: CKFetchRecordsOperation) {
        op.perRecordProgressBlock = { [self] id, progress in record("progress \(id.recordName) \(progress)") }
        op.perRecordResultBlock = { [self] id, result in record("record \(id.recordName) \(Self.describe(result))") }
        op.fetchRecordsResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.fetchRecordsCompletionBlock = { [self] records, error in
            record("completion \((records ?? [:]).keys.map(\.recordName).sorted()) \(Self.describe(error))")
        }
    }

    private func attachQuery(_ op: CKQueryOperation) {
        op.recordMatchedBlock = { [self] id, result in record("match \(id.recordName) \(Self.describe(result))") }
        op.queryResultBlock = { [self] result in
            switch result {
            case .success(let cursor): record("final cursor=\(cursor.map { "\($0)" } ?? "nil")")
            case .failure(let error): record("final \(Self.describe(error))")
            }
        }
        op.queryCompletionBlock = { [self] cursor, error in
            record("completion cursor=\(cursor.map { "\($0)" } ?? "nil") \(Self.describe(error))")
        }
    }

    private func attachZoneChanges(_ op: CKFetchRecordZoneChangesOperation) {
        op.recordWasChangedBlock = { [self] id, result in record("changed \(id.recordName) \(Self.describe(result))") }
        op.recordWithIDWasDeletedBlock = { [self] id, type in record("deleted \(id.recordName) \(type)") }
        op.recordZoneChangeTokensUpdatedBlock = { [self] zoneID, token, data in
            record("tokens \(zoneID.zoneName) \(token.map { "\($0)" } ?? "nil") \(data?.count ?? -1)")
        }
        op.recordZoneFetchResultBlock = { [self] zoneID, result in
            switch result {
            case .success(let value):
                record(
                    "zone \(zoneID.zoneName) \(value.serverChangeToken) \(value.clientChangeTokenData?.count ?? -1) more=\(value.moreComing)"
                )
            case .failure(let error): record("zone \(zoneID.zoneName) \(Self.describe(error))")
            }
        }
        op.fetchRecordZoneChangesResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.fetchRecordZoneChangesCompletionBlock = { [self] error in record("completion \(Self.describe(error))") }
    }

    private func attachDatabaseChanges(_ op: CKFetchDatabaseChangesOperation) {
        op.recordZoneWithIDChangedBlock = { [self] id in record("changed \(id.zoneName)") }
        op.recordZoneWithIDWasDeletedBlock = { [self] id in record("deleted \(id.zoneName)") }
        op.changeTokenUpdatedBlock = { [self] token in record("token \(token)") }
        op.fetchDatabaseChangesResultBlock = { [self] result in
            switch result {
            case .success(let value): record("final \(value.serverChangeToken) more=\(value.moreComing)")
            case .failure(let error): record("final \(Self.describe(error))")
            }
        }
        op.fetchDatabaseChangesCompletionBlock = { [self] token, more, error in
            record("completion \(token.map { "\($0)" } ?? "nil") more=\(more) \(Self.describe(error))")
        }
    }

    private func attachModifyZones(_ op: CKModifyRecordZonesOperation) {
        op.perRecordZoneSaveBlock = { [self] id, result in
            record("save \(id.zoneName) \(Self.describe(result.map { $0.capabilities.rawValue }))")
        }
        op.perRecordZoneDeleteBlock = { [self] id, result in record("delete \(id.zoneName) \(Self.describe(result))") }
        op.modifyRecordZonesResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.modifyRecordZonesCompletionBlock = { [self] saved, deleted, error in
            let names = (saved ?? []).map(\.zoneID.zoneName).sorted()
            record(
                "completion saved=\(names) deleted=\((deleted ?? []).map(\.zoneName).sorted()) \(Self.describe(error))")
        }
    }

    private func attachFetchZones(_ op: CKFetchRecordZonesOperation) {
        op.perRecordZoneResultBlock = { [self] id, result in
            record("zone \(id.zoneName) \(Self.describe(result.map { $0.capabilities.rawValue }))")
        }
        op.fetchRecordZonesResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.fetchRecordZonesCompletionBlock = { [self] zones, error in
            record("completion \((zones ?? [:]).keys.map(\.zoneName).sorted()) \(Self.describe(error))")
        }
    }

    private func attachModifySubscriptions(_ op: CKModifySubscriptionsOperation) {
        op.perSubscriptionSaveBlock = { [self] id, result in
            record("save \(id) \(Self.describe(result.map { "\(type(of: $0))" }))")
        }
        op.perSubscriptionDeleteBlock = { [self] id, result in record("delete \(id) \(Self.describe(result))") }
        op.modifySubscriptionsResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.modifySubscriptionsCompletionBlock = { [self] saved, deleted, error in
            let ids = (saved ?? []).map(\.subscriptionID).sorted()
            record("completion saved=\(ids) deleted=\((deleted ?? []).sorted()) \(Self.describe(error))")
        }
    }

    private func attachFetchSubscriptions(_ op: CKFetchSubscriptionsOperation) {
        op.perSubscriptionResultBlock = { [self] id, result in
            record("subscription \(id) \(Self.describe(result.map { "\(type(of: $0))" }))")
        }
        op.fetchSubscriptionsResultBlock = { [self] result in record("final \(Self.describe(result))") }
        op.fetchSubscriptionCompletionBlock = { [self] subscriptions, error in
            record("completion \((subscriptions ?? [:]).keys.sorted()) \(Self.describe(error))")
        }
    }

    // MARK: Describing

    /// A record as `name@tag`, with its fields.
    static func describe(_ record: CKRecord) -> String {
        let fields = record.allKeys().map { "\($0)=\(record[$0].map { "\($0)" } ?? "nil")" }
        return "\(record.recordID.recordName)@\(record.recordChangeTag ?? "-")\(fields)"
    }

    static func describe(_ error: (any Error)?) -> String {
        guard let error else { return "ok" }
        guard let ckError = error as? CKError else { return "error \(error)" }
        var text = "error \(ckError.code.name)"
        if let server = ckError.serverRecord { text += " server=\(describe(server))" }
        if let partial = ckError.partialErrorsByItemID {
            text += " partial=\(partial.map { "\($0.key):\(((($0.value) as? CKError)?.code.name) ?? "?")" }.sorted())"
        }
        return text
    }

    static func describe(_ result: Result<CKRecord, any Error>) -> String {
        switch result {
        case .success(let record): return "ok \(describe(record))"
        case .failure(let error): return describe(error)
        }
    }

    static func describe<T>(_ result: Result<T, any Error>) -> String {
        switch result {
        case .success(let value): return value is Void ? "ok" : "ok \(value)"
        case .failure(let error): return describe(error)
        }
    }
}
