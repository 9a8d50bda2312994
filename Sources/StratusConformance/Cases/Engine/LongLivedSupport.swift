import Foundation
import Stratus
import StratusBackend

/// What the long-lived cases use: simulated processes over the case's storage, and synchronous
/// wrappers around the container's long-lived API.
///
/// A "process" is a backend handle and a `CKContainer` on it. Killing it closes the handle
/// while one of its operations is held in a callback (``CallbackLog``): from then on nothing
/// that operation does reaches the store, as if the process had died there (a closed handle
/// throws `.closed` without running bodies: `kv.lifecycle.closedHandleThrowsClosed`). The next
/// process opens a new handle and a new container, as a relaunched app would.
struct LongLivedProcess {
    static let containerIdentifier = "iCloud.conformance.longLived"

    let backend: any DatabaseBackend
    let container: CKContainer
    var database: CKDatabase { container.privateCloudDatabase }

    /// A new process: a new handle and container, with an optional clock and retention.
    static func start(
        _ context: ConformanceContext, clock: Date? = nil, retention: TimeInterval? = nil
    ) throws -> LongLivedProcess {
        let backend = try context.open()
        let container = CKContainer(identifier: containerIdentifier, backend: backend)
        if let clock { container.longLivedOperationClock = { clock } }
        if let retention { container.longLivedOperationRetention = retention }
        return LongLivedProcess(backend: backend, container: container)
    }

    /// Ends the process normally.
    func stop(_ context: ConformanceContext) throws {
        try context.close(backend)
    }

    /// Kills the process while `log`'s operation is held: closes the store under it, then lets
    /// the operation go on (it can no longer reach the store) and waits until it ended.
    func kill(holding log: CallbackLog, _ context: ConformanceContext) throws {
        try context.close(backend)
        log.release()
        try context.expect(log.waitUntilFinished(), "the killed process's operation ends", actual: "it hangs")
    }

    /// The outstanding long-lived operation IDs.
    func listed(_ context: ConformanceContext) throws -> [CKOperation.ID] {
        try LongLived.listed(container, context)
    }

    /// The journal status of `id`, or `nil`.
    func status(_ id: CKOperation.ID, _ context: ConformanceContext) throws -> LongLivedOperationStatus? {
        let box = Collector<Result<LongLivedOperationStatus?, any Error>>()
        let done = DispatchSemaphore(value: 0)
        container.fetchLongLivedOperationStatus(withID: id) { status, error in
            box.append(error.map { .failure($0) } ?? .success(status))
            done.signal()
        }
        done.wait()
        switch box.values.first {
        case .success(let status)?: return status
        case .failure(let error)?:
            throw context.failure(expected: "fetchLongLivedOperationStatus succeeds", actual: "\(error)")
        case nil: throw context.failure(expected: "an answer", actual: "none")
        }
    }

    /// The proxy of `id`, or `nil`.
    func proxy(_ id: CKOperation.ID, _ context: ConformanceContext) throws -> CKDatabaseOperation? {
        let box = Collector<Result<CKOperation?, any Error>>()
        let done = DispatchSemaphore(value: 0)
        container.fetchLongLivedOperation(withID: id) { operation, error in
            box.append(error.map { .failure($0) } ?? .success(operation))
            done.signal()
        }
        done.wait()
        switch box.values.first {
        case .success(let operation)?:
            guard let operation else { return nil }
            guard let database = operation as? CKDatabaseOperation else {
                throw context.failure(expected: "a database operation proxy", actual: "\(type(of: operation))")
            }
            return database
        case .failure(let error)?:
            throw context.failure(expected: "fetchLongLivedOperation succeeds", actual: "\(error)")
        case nil:
            throw context.failure(expected: "an answer", actual: "none")
        }
    }

    /// Runs `operation` on this process's private database with `log` attached, and waits.
    @discardableResult
    func run(_ operation: CKDatabaseOperation, _ log: CallbackLog = CallbackLog(), _ context: ConformanceContext)
        throws -> [String]
    {
        log.attach(to: operation)
        database.add(operation)
        try context.expect(log.waitUntilFinished(), "the operation finishes", actual: "it did not within 60 s")
        return log.all
    }

    /// Starts `operation` long-lived with `log` attached and waits until `log` holds it.
    func startHeld(_ operation: CKDatabaseOperation, _ log: CallbackLog, _ context: ConformanceContext) throws {
        operation.configuration.isLongLived = true
        log.attach(to: operation)
        database.add(operation)
        try context.expect(log.waitUntilHeld(), "the operation reaches its hold point", actual: "it did not")
    }
}

/// Synchronous wrappers and store inspection for the long-lived cases.
enum LongLived {
    /// The outstanding long-lived operation IDs of `container` (completion-handler API).
    static func listed(_ container: CKContainer, _ context: ConformanceContext) throws -> [CKOperation.ID] {
        let box = Collector<Result<[CKOperation.ID], any Error>>()
        let done = DispatchSemaphore(value: 0)
        container.fetchAllLongLivedOperationIDs { ids, error in
            box.append(error.map { .failure($0) } ?? .success(ids ?? []))
            done.signal()
        }
        done.wait()
        switch box.values.first {
        case .success(let ids)?: return ids
        case .failure(let error)?:
            throw context.failure(expected: "fetchAllLongLivedOperationIDs succeeds", actual: "\(error)")
        case nil: throw context.failure(expected: "an answer", actual: "none")
        }
    }

    /// Every key of the store's long-lived journal (tag `0x04`), through a handle of its own.
    static func journalKeys(_ context: ConformanceContext) throws -> [[UInt8]] {
        let backend = try context.open()
        defer { try? context.close(backend) }
        return try context.must("read the journal's keys") {
            try backend.read { txn in try txn.scan(KeyRange(prefix: [0x04]), limit: 100_000).map(\.key) }
        }
    }

    /// Whether any journal key mentions `operationID`.
    static func journalMentions(_ operationID: String, _ context: ConformanceContext) throws -> Bool {
        let needle = Array(operationID.utf8)
        return try journalKeys(context).contains { key in
            key.count >= needle.count
                && (0...(key.count - needle.count)).contains { Array(key[$0..<$0 + needle.count]) == needle }
        }
    }

    /// A custom zone `name` holding records `r0`…`r(count-1)` of type `Item` with a field `n`.
    @discardableResult
    static func seedZone(
        _ database: CKDatabase, _ name: String, records count: Int, in context: ConformanceContext
    ) throws -> CKRecordZone.ID {
        let zoneID = try Ops.createZones(database, [name], in: context)[0]
        if count > 0 {
            _ = try Ops.saveAll(
                database, (0..<count).map { makeRecord("r\($0)", zone: zoneID, ["n": $0]) }, in: context)
        }
        return zoneID
    }

    /// The zone's records by name with their change tags, and the final token, from a nil-token
    /// change fetch (a write between two calls changes the token).
    static func zoneState(_ database: CKDatabase, _ zoneID: CKRecordZone.ID, in context: ConformanceContext) throws
        -> (tags: [String: String], token: String)
    {
        let changes = Ops.zoneChanges(database, zoneID, since: nil)
        if let error = changes.error ?? changes.zoneError {
            throw context.failure(expected: "the zone's changes can be fetched", actual: "\(error)")
        }
        var tags: [String: String] = [:]
        for record in changes.changed { tags[record.recordID.recordName] = record.recordChangeTag ?? "-" }
        return (tags, changes.token.map { "\($0)" } ?? "nil")
    }
}
