import Foundation
import Stratus
import StratusSQLite

/// `long-lived-writer <store path> <mode> <zone> <count> [<hold>]`: runs one long-lived
/// operation on a SQLite store and reports every callback on standard output, so that a test
/// can kill it with `SIGKILL` between the operation's persistence and its completion, then
/// reopen the store and replay the operation through its proxy.
///
/// Modes:
/// - `modify`: a long-lived `CKModifyRecordsOperation` saving records `m0`…`m<count-1>` in the
///   zone (created first); with `<hold>`, the program stops after `<hold>` save results
///   (`HOLD`) and waits to be killed. Without it, it runs to the end (`FINAL`) and exits.
/// - `modify-before-work`: the same modify, stopped in its persisted block (`HOLD`), before
///   any work.
/// - `zone-changes`: seeds the zone with `<count>` records `r0`… (ordinary
///   saves, then `SEEDED`), then runs a long-lived `CKFetchRecordZoneChangesOperation` with
///   `resultsLimit` 10 from a nil token; with `<hold>`, it stops after `<hold>` token updates.
///
/// Output, one line per event, each with one unbuffered write:
/// `PERSISTED <operation ID>` when the persisted block runs; `SAVE <name> <change tag>` per
/// saved record; `CHANGED <name> <change tag>` per changed record; `TOKENS <token>` per token
/// update (the token's description); `FINAL ok|<error>` at the end; `HOLD` when the program
/// stops to wait for the kill (it exits by itself only once its parent has ended).
enum LongLivedWriterCommand {
    static let name = "long-lived-writer"
    static let usage = "long-lived-writer <store path> modify|modify-before-work|zone-changes <zone> <count> [<hold>]"

    /// The container the program uses; a test reopening the store must use the same one.
    static let containerIdentifier = "iCloud.stratus.long-lived-writer"
    /// The page size of the zone-changes mode.
    static let changesBatch = 10

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 4 || arguments.count == 5, let count = Int(arguments[3]),
            ["modify", "modify-before-work", "zone-changes"].contains(arguments[1])
        else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let hold = arguments.count == 5 ? Int(arguments[4]) : nil
        let backend = try SQLiteBackend(configuration: .init(location: .file(path: arguments[0])))
        let database = CKContainer(identifier: containerIdentifier, backend: backend).privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: arguments[2], ownerName: CKCurrentUserDefaultName)
        try createZone(zoneID, in: database)

        let operation: CKDatabaseOperation
        let holdPoint = HoldPoint(after: hold)
        switch arguments[1] {
        case "zone-changes":
            try seed(zoneID, count: count, in: database)
            emit("SEEDED")
            let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(resultsLimit: changesBatch)
            let fetch = CKFetchRecordZoneChangesOperation(
                recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
            fetch.recordWasChangedBlock = { id, result in
                emit("CHANGED \(id.recordName) \((try? result.get())?.recordChangeTag ?? "error")")
            }
            fetch.recordZoneChangeTokensUpdatedBlock = { _, token, _ in
                emit("TOKENS \(token.map { "\($0)" } ?? "nil")")
                holdPoint.count()
            }
            fetch.fetchRecordZoneChangesResultBlock = { emit("FINAL \(describe($0))") }
            operation = fetch
        default:
            let modify = CKModifyRecordsOperation(
                recordsToSave: (0..<count).map { index in
                    let record = CKRecord(recordType: "Item", recordID: .init(recordName: "m\(index)", zoneID: zoneID))
                    record["n"] = index
                    return record
                })
            modify.perRecordSaveBlock = { id, result in
                emit("SAVE \(id.recordName) \((try? result.get())?.recordChangeTag ?? "error")")
                holdPoint.count()
            }
            modify.modifyRecordsResultBlock = { emit("FINAL \(describe($0))") }
            operation = modify
        }
        operation.configuration.isLongLived = true
        let stopBeforeWork = arguments[1] == "modify-before-work"
        operation.longLivedOperationWasPersistedBlock = { [id = operation.operationID] in
            emit("PERSISTED \(id)")
            if stopBeforeWork { HoldPoint.wait() }
        }
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
        try backend.close()
    }

    static func createZone(_ zoneID: CKRecordZone.ID, in database: CKDatabase) throws {
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zoneID)])
        let failure = ProbeBox<(any Error)?>(nil)
        operation.modifyRecordZonesResultBlock = { result in if case .failure(let error) = result { failure.set(error) }
        }
        run(operation, on: database)
        if let error = failure.value { throw error }
    }

    /// Saves records `r0`… into an empty zone, in batches of 200 (ordinary operations).
    static func seed(_ zoneID: CKRecordZone.ID, count: Int, in database: CKDatabase) throws {
        for start in stride(from: 0, to: count, by: 200) {
            let records = (start..<min(count, start + 200)).map { index in
                let record = CKRecord(recordType: "Item", recordID: .init(recordName: "r\(index)", zoneID: zoneID))
                record["n"] = index
                return record
            }
            let operation = CKModifyRecordsOperation(recordsToSave: records)
            let failure = ProbeBox<(any Error)?>(nil)
            operation.modifyRecordsResultBlock = { result in if case .failure(let error) = result { failure.set(error) }
            }
            run(operation, on: database)
            if let error = failure.value { throw error }
        }
    }

    static func run(_ operation: CKDatabaseOperation, on database: CKDatabase) {
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
    }

    static func describe(_ result: Result<Void, any Error>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(let error): return "\(error)"
        }
    }

    /// Writes `line` and a newline to standard output with one unbuffered write.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Where the writer stops to be killed: after a number of callbacks.
private final class HoldPoint: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int?

    init(after count: Int?) { remaining = count }

    /// Counts one callback; at the hold point, says `HOLD` and waits to be killed.
    func count() {
        let stop: Bool = lock.withLock {
            guard let left = remaining else { return false }
            remaining = left - 1
            return left - 1 == 0
        }
        if stop { HoldPoint.wait() }
    }

    /// Says `HOLD` and waits to be killed; it exits by itself only when its parent has ended
    /// (it is re-parented), so a test that died cannot leave it behind. No time limit: a
    /// parallel test run can hold the test off Swift concurrency's pool for minutes.
    static func wait() {
        let parent = getppid()
        LongLivedWriterCommand.emit("HOLD")
        while getppid() == parent { sleep(1) }
        exit(3)
    }
}

/// A value set from an operation's callback and read after the operation finished.
private final class ProbeBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T

    init(_ value: T) { stored = value }

    var value: T { lock.withLock { stored } }
    func set(_ value: T) { lock.withLock { stored = value } }
}
