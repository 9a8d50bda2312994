import Foundation
import Stratus
import Synchronization

/// A "device" as an app builds it on CKSyncEngine: a local model of notes (name → text) in one
/// zone, the system fields of the records it last saw, and the last state serialization the
/// engine gave it — what the app would persist. Its engine can be dropped and started again
/// from that serialization (a restart).
final class Device: CKSyncEngineDelegate, Sendable {
    struct Model {
        var notes: [String: String] = [:]
        var systemFields: [String: CKRecord] = [:]
        var events: [String] = []
        var serialization: CKSyncEngine.State.Serialization?
        var conflictServerTexts: [String] = []
        var persistsState = true
        var pendingAtBatchRequests: [[CKSyncEngine.PendingRecordZoneChange]] = []
        var pendingAtSentEvents: [[CKSyncEngine.PendingRecordZoneChange]] = []
        var editAfterNextBatch: (note: String, text: String)?
        var failedSaveCodes: [CKError.Code] = []
        var accountChanges: [String] = []
        var fetchScope: CKSyncEngine.FetchChangesOptions.Scope?
    }

    let name: String
    let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
    private let model = Mutex(Model())
    private let engineBox = Mutex<CKSyncEngine?>(nil)

    init(_ name: String) {
        self.name = name
    }

    /// Starts an engine on `database` from the last persisted serialization.
    func start(_ database: CKDatabase, automaticallySync: Bool = false, subscriptionID: CKSubscription.ID? = nil) {
        var configuration = CKSyncEngine.Configuration(
            database: database, stateSerialization: model.withLock { $0.serialization }, delegate: self)
        configuration.automaticallySync = automaticallySync
        configuration.subscriptionID = subscriptionID
        let engine = CKSyncEngine(configuration)
        engineBox.withLock { $0 = engine }
    }

    /// Drops the engine, as a process that ends.
    func stop() {
        engineBox.withLock { $0 = nil }
    }

    var engine: CKSyncEngine { engineBox.withLock { $0! } }
    var notes: [String: String] { model.withLock { $0.notes } }
    var events: [String] { model.withLock { $0.events } }
    var conflictServerTexts: [String] { model.withLock { $0.conflictServerTexts } }
    var serialization: CKSyncEngine.State.Serialization? { model.withLock { $0.serialization } }
    var pendingAtBatchRequests: [[CKSyncEngine.PendingRecordZoneChange]] {
        model.withLock { $0.pendingAtBatchRequests }
    }
    var pendingAtSentEvents: [[CKSyncEngine.PendingRecordZoneChange]] { model.withLock { $0.pendingAtSentEvents } }
    var failedSaveCodes: [CKError.Code] { model.withLock { $0.failedSaveCodes } }
    /// The account changes posted, as `signIn(user)` or `switchAccounts(previous→current)`.
    var accountChanges: [String] { model.withLock { $0.accountChanges } }

    /// Stops keeping state updates (a process about to crash), or starts again.
    func persistStateUpdates(_ persist: Bool) {
        model.withLock { $0.persistsState = persist }
    }

    /// Edits `note` just after the next batch is handed to the engine, while it is being sent.
    func editAfterNextBatch(_ note: String, _ text: String) {
        model.withLock { $0.editAfterNextBatch = (note, text) }
    }

    /// Makes the delegate's `nextFetchChangesOptions` answer `scope` (`nil`: the options asked).
    func fetchOnly(_ scope: CKSyncEngine.FetchChangesOptions.Scope?) {
        model.withLock { $0.fetchScope = scope }
    }

    /// How many `willFetchChanges` events were posted.
    var fetchCount: Int { events.filter { $0 == "willFetchChanges" }.count }

    func clearEvents() {
        model.withLock { $0.events = [] }
    }

    func recordID(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: zoneID) }

    // MARK: Local edits

    func createZone() {
        engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
    }

    func deleteZone() {
        model.withLock {
            $0.notes = [:]
            $0.systemFields = [:]
        }
        engine.state.add(pendingDatabaseChanges: [.deleteZone(zoneID)])
    }

    func write(_ note: String, _ text: String) {
        model.withLock { $0.notes[note] = text }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(recordID(note))])
    }

    func delete(_ note: String) {
        model.withLock {
            $0.notes[note] = nil
            $0.systemFields[note] = nil
        }
        engine.state.add(pendingRecordZoneChanges: [.deleteRecord(recordID(note))])
    }

    // MARK: CKSyncEngineDelegate

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        model.withLock { $0.events.append(Self.name(of: event)) }
        switch event {
        case .stateUpdate(let update):
            model.withLock { if $0.persistsState { $0.serialization = update.stateSerialization } }
        case .accountChange(let change):
            model.withLock { model in
                switch change.changeType {
                case .signIn(let user): model.accountChanges.append("signIn(\(user.recordName))")
                case .signOut(let user): model.accountChanges.append("signOut(\(user.recordName))")
                case .switchAccounts(let previous, let current):
                    // Apple's sample drops the previous account's local data.
                    model.notes = [:]
                    model.systemFields = [:]
                    model.accountChanges.append("switchAccounts(\(previous.recordName)→\(current.recordName))")
                }
            }
        case .fetchedDatabaseChanges(let changes):
            if changes.deletions.contains(where: { $0.zoneID == zoneID }) {
                model.withLock {
                    $0.notes = [:]
                    $0.systemFields = [:]
                }
            }
        case .fetchedRecordZoneChanges(let changes):
            apply(changes, syncEngine)
        case .sentRecordZoneChanges(let sent):
            let pending = syncEngine.state.pendingRecordZoneChanges
            model.withLock { $0.pendingAtSentEvents.append(pending) }
            settle(sent, syncEngine)
        default:
            break
        }
    }

    func nextFetchChangesOptions(
        _ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.FetchChangesOptions {
        guard let scope = model.withLock({ $0.fetchScope }) else { return context.options }
        var options = context.options
        options.scope = scope
        return options
    }

    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let pending = syncEngine.state.pendingRecordZoneChanges.filter {
            switch $0 {
            case .saveRecord(let id), .deleteRecord(let id): return context.options.scope.contains(id)
            }
        }
        model.withLock { $0.pendingAtBatchRequests.append(pending) }
        let batch = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { self.recordToSave($0) }
        if let edit = model.withLock({ model in
            defer { model.editAfterNextBatch = nil }
            return model.editAfterNextBatch
        }) {
            write(edit.note, edit.text)
        }
        return batch
    }

    private func recordToSave(_ id: CKRecord.ID) -> CKRecord? {
        model.withLock { model in
            guard let text = model.notes[id.recordName] else { return nil }
            let record =
                model.systemFields[id.recordName]?.copy() as? CKRecord ?? CKRecord(recordType: "Note", recordID: id)
            record["text"] = text
            return record
        }
    }

    /// Fetched changes win over the local model; a note deleted on the server drops its pending
    /// save.
    private func apply(_ changes: CKSyncEngine.Event.FetchedRecordZoneChanges, _ engine: CKSyncEngine) {
        model.withLock { model in
            for modification in changes.modifications where modification.record.recordID.zoneID == zoneID {
                let record = modification.record
                model.notes[record.recordID.recordName] = record["text"] as String?
                model.systemFields[record.recordID.recordName] = record
            }
            for deletion in changes.deletions where deletion.recordID.zoneID == zoneID {
                model.notes[deletion.recordID.recordName] = nil
                model.systemFields[deletion.recordID.recordName] = nil
            }
        }
        engine.state.remove(pendingRecordZoneChanges: changes.deletions.map { .saveRecord($0.recordID) })
    }

    /// Keeps saved records' system fields; resolves a conflict by putting the local text on the
    /// server's record and saving again; saves again as new a note deleted on the server.
    private func settle(_ sent: CKSyncEngine.Event.SentRecordZoneChanges, _ engine: CKSyncEngine) {
        var again: [CKSyncEngine.PendingRecordZoneChange] = []
        model.withLock { model in
            for record in sent.savedRecords {
                model.systemFields[record.recordID.recordName] = record
            }
            for failure in sent.failedRecordSaves {
                model.failedSaveCodes.append(failure.error.code)
                let name = failure.record.recordID.recordName
                switch failure.error.code {
                case .serverRecordChanged:
                    if let server = failure.error.serverRecord {
                        model.conflictServerTexts.append(server["text"] as String? ?? "")
                        model.systemFields[name] = server
                    }
                    again.append(.saveRecord(failure.record.recordID))
                case .unknownItem:
                    model.systemFields[name] = nil
                    again.append(.saveRecord(failure.record.recordID))
                default:
                    break
                }
            }
        }
        if !again.isEmpty { engine.state.add(pendingRecordZoneChanges: again) }
    }

    private static func name(of event: CKSyncEngine.Event) -> String {
        String(describing: event).prefix { $0 != "(" }.description
    }
}
