import Foundation
import Stratus
import Synchronization

/// `sync-engine-device <store> <state file> <count>`: a device on `CKSyncEngine` whose local
/// model is `count` notes (`note<i>` = `text <i>` in zone `Notes`), sending them to the store
/// (a SQLite path or an `lmdb:` URL), so that a test can kill it with `SIGKILL` in the middle of
/// the send and launch it again.
///
/// Every state update is written to `<state file>` (JSON, replaced atomically) before the event
/// returns. Without a state file the program adds the zone and every note as pending changes
/// and waits until a state holding them all is written; with one it starts from it. Then it sends
/// (without automatic sync). A save that conflicts — a note the killed launch saved but whose
/// removal from the pending changes was not persisted — is resolved as an app would: the local
/// text on the server's record, saved again.
///
/// Output, one line per event, each with a single `write(2)`: `SENT <saved> <failed>` after each
/// `sentRecordZoneChanges` event, and `DONE <pending>` at the end with the number of record
/// changes still pending.
enum SyncEngineDeviceCommand {
    static let name = "sync-engine-device"
    static let usage = "sync-engine-device <sqlite path | lmdb: URL> <state file> <count>"
    static let containerIdentifier = "iCloud.stratus.sync-engine-device"

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 3, let count = Int(arguments[2]) else { throw ProbeUsageError(message: usage) }
        let container = CKContainer(identifier: containerIdentifier, backend: try Probe.openStore(arguments[0]))
        let device = ProbeSyncDevice(stateFile: URL(fileURLWithPath: arguments[1]), count: count)
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Task {
            do {
                try await device.run(on: container.privateCloudDatabase)
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        done.wait()
        if let message = failure.withLock({ $0 }) { Probe.fail(message) }
    }
}

/// The device of ``SyncEngineDeviceCommand``.
final class ProbeSyncDevice: CKSyncEngineDelegate, Sendable {
    let stateFile: URL
    let count: Int
    let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
    private let lastWritten = Mutex<CKSyncEngine.State.Serialization?>(nil)

    init(stateFile: URL, count: Int) {
        self.stateFile = stateFile
        self.count = count
    }

    func run(on database: CKDatabase) async throws {
        let saved = try? JSONDecoder().decode(
            CKSyncEngine.State.Serialization.self, from: Data(contentsOf: stateFile))
        var configuration = CKSyncEngine.Configuration(database: database, stateSerialization: saved, delegate: self)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)
        if saved == nil {
            engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
            engine.state.add(pendingRecordZoneChanges: (0..<count).map { .saveRecord(recordID($0)) })
            while persistedPendingCount(database) < count { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await engine.sendChanges()
        emit("DONE \(engine.state.pendingRecordZoneChanges.count)")
    }

    /// How many record changes the last written state holds, read through a throw-away engine.
    private func persistedPendingCount(_ database: CKDatabase) -> Int {
        guard let state = lastWritten.withLock({ $0 }) else { return 0 }
        var configuration = CKSyncEngine.Configuration(database: database, stateSerialization: state, delegate: self)
        configuration.automaticallySync = false
        return CKSyncEngine(configuration).state.pendingRecordZoneChanges.count
    }

    private func recordID(_ index: Int) -> CKRecord.ID { CKRecord.ID(recordName: "note\(index)", zoneID: zoneID) }

    private func text(of id: CKRecord.ID) -> String? {
        guard id.recordName.hasPrefix("note"), let index = Int(id.recordName.dropFirst(4)), index < count else {
            return nil
        }
        return "text \(index)"
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let update):
            do {
                try JSONEncoder().encode(update.stateSerialization).write(to: stateFile, options: .atomic)
                lastWritten.withLock { $0 = update.stateSerialization }
            } catch {
                Probe.fail("writing the state: \(error)")
            }
        case .sentRecordZoneChanges(let sent):
            emit("SENT \(sent.savedRecords.count) \(sent.failedRecordSaves.count)")
            let conflicts = sent.failedRecordSaves.filter { $0.error.code == .serverRecordChanged }
            resolved.withLock { records in
                for failure in conflicts {
                    if let server = failure.error.serverRecord {
                        server["text"] = text(of: server.recordID)
                        records[server.recordID] = server
                    }
                }
            }
            syncEngine.state.add(pendingRecordZoneChanges: conflicts.map { .saveRecord($0.record.recordID) })
        default:
            break
        }
    }

    /// Server records of resolved conflicts, with the local text, to save again.
    private let resolved = Mutex<[CKRecord.ID: CKRecord]>([:])

    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.RecordZoneChangeBatch? {
        await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: syncEngine.state.pendingRecordZoneChanges) { id in
            if let record = self.resolved.withLock({ $0.removeValue(forKey: id) }) { return record }
            guard let text = self.text(of: id) else { return nil }
            let record = CKRecord(recordType: "Note", recordID: id)
            record["text"] = text
            return record
        }
    }

    private func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
