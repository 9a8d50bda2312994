import Foundation
import Stratus

/// `remote-long-lived start|resume <options> …`: the seed's long-lived life cycle through a
/// remote container, one process per step, so that a test can SIGKILL the app (and its
/// `stratusd`) in the middle.
///
/// - `start <options> <fetch-zone> <save-zone> <saves> <hold-after> [<freeze-pid>]`: adds a
///   long-lived `CKModifyRecordsOperation` saving records `m0`…`m<saves-1>` into `save-zone`,
///   and a long-lived `CKFetchRecordZoneChangesOperation` of `fetch-zone` from a `nil` token
///   with `resultsLimit` 1, both zones existing. Each operation's callbacks are printed; after
///   `hold-after` of them (0: never) the operation's callback stops (`HOLD <tag>`) and the
///   process waits to be killed — the fetch first sends SIGSTOP to `freeze-pid` when given, so
///   that its `stratusd` is frozen while the fetch is still running there.
/// - `resume <options>`: lists the outstanding operations (`LISTED <id>`), fetches a proxy of
///   each (`PROXY <tag> <id>`), adds them all with the same printing callbacks, waits until
///   every one finished, and lists again (`REMAINING <count>`).
///
/// Callback lines, each one unbuffered write: `PERSISTED <tag> <id>`; `<tag> SAVE <name>
/// <change tag|error>`; `<tag> CHANGED <name> <change tag|error>`; `<tag> DELETED <name>`;
/// `<tag> TOKENS <base64 token>`; `<tag> ZONE <ok moreComing|error>`; `<tag> FINAL ok|<error>`,
/// where the tag is `modify` or `fetch`.
enum RemoteLongLivedCommand {
    static let name = "remote-long-lived"
    static let usage =
        "remote-long-lived start \(RemoteProbeOptions.usage) <fetch-zone> <save-zone> <saves> <hold-after> [<freeze-pid>]"
        + " | resume \(RemoteProbeOptions.usage)"

    static func run(_ arguments: [String]) throws {
        guard let mode = arguments.first, ["start", "resume"].contains(mode) else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let (options, positional) = try RemoteProbeOptions.parse(Array(arguments.dropFirst()))
        let container = options.container()
        if mode == "resume" {
            guard positional.isEmpty else { throw ProbeUsageError(message: "usage: \(usage)") }
            try resume(container)
            return
        }
        guard [4, 5].contains(positional.count), let saves = Int(positional[2]), let hold = Int(positional[3]),
            positional.count == 4 || Int32(positional[4]) != nil
        else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let freeze = positional.count == 5 ? Int32(positional[4]) : nil
        start(
            container, fetchZone: zoneID(positional[0]), saveZone: zoneID(positional[1]), saves: saves,
            holdAfter: hold, freeze: freeze)
    }

    static func zoneID(_ name: String) -> CKRecordZone.ID {
        CKRecordZone.ID(zoneName: name, ownerName: CKCurrentUserDefaultName)
    }

    /// Adds both operations and waits for them (or to be killed at a hold point).
    static func start(
        _ container: CKContainer, fetchZone: CKRecordZone.ID, saveZone: CKRecordZone.ID, saves: Int, holdAfter: Int,
        freeze: Int32?
    ) {
        let modify = CKModifyRecordsOperation(
            recordsToSave: (0..<saves).map { index in
                let record = CKRecord(recordType: "Item", recordID: .init(recordName: "m\(index)", zoneID: saveZone))
                record["n"] = Int64(index)
                return record
            })
        RemoteCallbackPrinter(tag: "modify", holdAfter: holdAfter).attach(to: modify)
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(resultsLimit: 1)
        let fetch = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [fetchZone], configurationsByRecordZoneID: [fetchZone: configuration])
        RemoteCallbackPrinter(tag: "fetch", holdAfter: holdAfter, freeze: freeze).attach(to: fetch)
        // The modify is persisted (or failed) before the fetch starts: the fetch's hold point,
        // which may freeze the server, never comes before the server holds both.
        let group = DispatchGroup()
        for (tag, operation) in [("modify", modify), ("fetch", fetch)] as [(String, CKDatabaseOperation)] {
            let ready = DispatchSemaphore(value: 0)
            operation.configuration.isLongLived = true
            operation.longLivedOperationWasPersistedBlock = { [id = operation.operationID] in
                emit("PERSISTED \(tag) \(id)")
                ready.signal()
            }
            group.enter()
            operation.completionBlock = {
                ready.signal()
                group.leave()
            }
            container.privateCloudDatabase.add(operation)
            ready.wait()
        }
        group.wait()
    }

    /// Lists, fetches, re-adds and waits, as the seed's relaunched app does.
    static func resume(_ container: CKContainer) throws {
        let ids = try wait { done in container.fetchAllLongLivedOperationIDs { done($0, $1) } }
        for id in ids { emit("LISTED \(id)") }
        var proxies: [CKDatabaseOperation] = []
        for id in ids {
            let fetched = try wait { done in container.fetchLongLivedOperation(withID: id) { done($0, $1) } }
            switch fetched {
            case let modify as CKModifyRecordsOperation:
                RemoteCallbackPrinter(tag: "modify").attach(to: modify)
                emit("PROXY modify \(id)")
                proxies.append(modify)
            case let fetch as CKFetchRecordZoneChangesOperation:
                RemoteCallbackPrinter(tag: "fetch").attach(to: fetch)
                emit("PROXY fetch \(id)")
                proxies.append(fetch)
            default:
                throw ProbeUsageError(message: "operation \(id) is a \(type(of: fetched)), not a modify or a fetch")
            }
        }
        runAll(proxies, on: container.privateCloudDatabase)
        let remaining = try wait { done in container.fetchAllLongLivedOperationIDs { done($0, $1) } }
        emit("REMAINING \(remaining.count)")
    }

    /// Adds `operations` to `database` and waits until each has completed.
    static func runAll(_ operations: [CKDatabaseOperation], on database: CKDatabase) {
        let group = DispatchGroup()
        for operation in operations {
            group.enter()
            operation.completionBlock = { group.leave() }
            database.add(operation)
        }
        group.wait()
    }

    /// Calls `start` with a completion handler and waits for its value or error.
    static func wait<T: Sendable>(
        _ start: (@escaping @Sendable (T?, (any Error)?) -> Void) -> Void
    ) throws -> T {
        let box = RemoteProbeBox<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { value, error in
            if let value {
                box.set(.success(value))
            } else {
                box.set(
                    .failure(
                        error
                            ?? ProbeUsageError(
                                message: "the container answered no value (no such operation) and no error")))
            }
            done.signal()
        }
        done.wait()
        return try box.value!.get()
    }

    /// Writes `line` and a newline to standard output with one unbuffered write.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// A value set from a callback and read after it ran.
private final class RemoteProbeBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T

    init(_ value: T) { stored = value }

    var value: T { lock.withLock { stored } }
    func set(_ value: T) { lock.withLock { stored = value } }
}
