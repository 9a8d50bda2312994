import Foundation
import Stratus
import Testing

/// A delegate written the way Apple's CKSyncEngine sample writes one — an actor that creates its
/// engine lazily, switches over every event with `@unknown default`, filters pending changes
/// with the send scope, and removes a pending save whose record is gone — compiled unchanged but
/// for `import Stratus`, and run against a second such database.
actor SampleSyncedDatabase: CKSyncEngineDelegate {
    struct Contact {
        var name: String
        var lastKnownRecord: CKRecord?
    }

    let database: CKDatabase
    let zoneID = CKRecordZone.ID(zoneName: "Contacts")
    var contacts: [String: Contact] = [:]
    var stateSerialization: CKSyncEngine.State.Serialization?
    private var _syncEngine: CKSyncEngine?

    init(database: CKDatabase) {
        self.database = database
    }

    var syncEngine: CKSyncEngine {
        if _syncEngine == nil { initializeSyncEngine() }
        return _syncEngine!
    }

    private func initializeSyncEngine() {
        var configuration = CKSyncEngine.Configuration(
            database: database, stateSerialization: stateSerialization, delegate: self)
        configuration.automaticallySync = false
        _syncEngine = CKSyncEngine(configuration)
    }

    func save(_ name: String, id: String) {
        contacts[id, default: Contact(name: name)].name = name
        let recordID = CKRecord.ID(recordName: id, zoneID: zoneID)
        syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
        syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(recordID)])
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let event):
            stateSerialization = event.stateSerialization
        case .accountChange(let event):
            // As Apple's sample: keep and upload again the local data on a sign-in, delete it
            // when the account went away or changed.
            switch event.changeType {
            case .signIn:
                let saves: [CKSyncEngine.PendingRecordZoneChange] = contacts.keys.map {
                    .saveRecord(CKRecord.ID(recordName: $0, zoneID: zoneID))
                }
                if !saves.isEmpty {
                    syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
                    syncEngine.state.add(pendingRecordZoneChanges: saves)
                }
            case .switchAccounts, .signOut: contacts = [:]
            @unknown default: break
            }
        case .fetchedDatabaseChanges(let event):
            for deletion in event.deletions where deletion.zoneID == zoneID {
                contacts = [:]
            }
        case .fetchedRecordZoneChanges(let event):
            for modification in event.modifications {
                let record = modification.record
                contacts[record.recordID.recordName] = Contact(
                    name: record["name"] as? String ?? "", lastKnownRecord: record)
            }
            for deletion in event.deletions {
                contacts[deletion.recordID.recordName] = nil
            }
        case .sentRecordZoneChanges(let event):
            for record in event.savedRecords {
                contacts[record.recordID.recordName]?.lastKnownRecord = record
            }
            var newPendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange] = []
            for failedRecordSave in event.failedRecordSaves {
                let failedRecord = failedRecordSave.record
                switch failedRecordSave.error.code {
                case .serverRecordChanged:
                    guard let serverRecord = failedRecordSave.error.serverRecord else { continue }
                    contacts[failedRecord.recordID.recordName]?.lastKnownRecord = serverRecord
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .zoneNotFound:
                    syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .unknownItem:
                    contacts[failedRecord.recordID.recordName]?.lastKnownRecord = nil
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated,
                    .operationCancelled:
                    break
                default:
                    break
                }
            }
            syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)
        case .sentDatabaseChanges:
            break
        case .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges, .didFetchChanges,
            .willSendChanges, .didSendChanges:
            break
        @unknown default:
            print("Received unknown event: \(event)")
        }
    }

    func nextRecordZoneChangeBatch(
        _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
    ) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let contacts = self.contacts
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            if let contact = contacts[recordID.recordName] {
                let record = contact.lastKnownRecord ?? CKRecord(recordType: "Contact", recordID: recordID)
                record["name"] = contact.name
                return record
            } else {
                syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(recordID)])
                return nil
            }
        }
    }

    func names() -> [String: String] { contacts.mapValues(\.name) }
}

@Suite struct SampleStyleSyncTests {
    @Test func anActorDelegateAsInApplesSampleSyncsBothWays() async throws {
        try await SyncBackend.memory.withStore { open in
            let phone = SampleSyncedDatabase(database: try open().privateCloudDatabase)
            let laptop = SampleSyncedDatabase(database: try open().privateCloudDatabase)
            await phone.save("Ada", id: "c1")
            try await phone.syncEngine.sendChanges()
            try await laptop.syncEngine.fetchChanges()
            #expect(await laptop.names() == ["c1": "Ada"])
            await laptop.save("Ada Lovelace", id: "c1")
            try await laptop.syncEngine.sendChanges()
            try await phone.syncEngine.fetchChanges()
            #expect(await phone.names() == ["c1": "Ada Lovelace"])
        }
    }
}
