import Stratus
import StratusBackend
import StratusTestSupport
import Synchronization
import Testing

/// Every `will…` event is followed by its `did…` event, also when the fetch or send fails or is
/// cancelled ("You should receive one CKSyncEngineDidFetchChangesEvent for each
/// CKSyncEngineWillFetchChangesEvent"; the same for record zones and sends). The error then
/// reaches the caller of `fetchChanges()` / `sendChanges()` after the `did…` event.
@Suite struct EventPairingTests {
    /// A backend whose reads and writes fail with `unavailable` while `failing()` is true.
    static func failingBackend(
        _ base: any DatabaseBackend, _ failing: @escaping @Sendable () -> Bool
    ) -> WrappingBackend {
        var hooks = BackendHooks()
        hooks.read = { base, body in
            if failing() {
                throw BackendError(.unavailable, "the test made the store unavailable")
            }
            try base.read(body)
        }
        hooks.write = { base, body in
            if failing() {
                throw BackendError(.unavailable, "the test made the store unavailable")
            }
            try base.write(body)
        }
        return WrappingBackend(base: base, hooks: hooks)
    }

    /// Runs `body` with an engine (and its recording delegate) that has fetched once, over a
    /// store whose reads and writes fail from then on.
    static func withFailingStore(_ body: (CKSyncEngine, HoldingRecorder) async throws -> Void) async throws {
        try await SyncBackend.memory.withBackends { open in
            let failing = Atomic<Bool>(false)
            let container = CKContainer(
                identifier: "iCloud.sync-engine",
                backend: Self.failingBackend(try open()) { failing.load(ordering: .sequentiallyConsistent) })
            let delegate = HoldingRecorder()
            let engine = Self.engine(container.privateCloudDatabase, delegate)
            try await engine.fetchChanges()
            failing.store(true, ordering: .sequentiallyConsistent)
            try await body(engine, delegate)
        }
    }

    /// An engine on `database` with `delegate`, without automatic sync.
    static func engine(_ database: CKDatabase, _ delegate: HoldingRecorder) -> CKSyncEngine {
        var configuration = CKSyncEngine.Configuration(
            database: database, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        return CKSyncEngine(configuration)
    }

    @Test func aFailedDatabaseFetchStillPostsDidFetchChanges() async throws {
        try await Self.withFailingStore { engine, delegate in
            await #expect(throws: CKError.self) { try await engine.fetchChanges() }
            #expect(
                delegate.pairEvents == ["willFetchChanges", "didFetchChanges", "willFetchChanges", "didFetchChanges"])
        }
    }

    @Test func aCancelledZoneFetchPostsBothDidEvents() async throws {
        try await SyncBackend.memory.withStore { open in
            let database = try open().privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            _ = try await database.save(
                CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1", zoneID: zoneID)))
            let delegate = HoldingRecorder(holdAt: "willFetchRecordZoneChanges")
            let engine = Self.engine(try open().privateCloudDatabase, delegate)
            let fetch = Task { try await engine.fetchChanges() }
            try await eventually { delegate.held }
            fetch.cancel()
            delegate.release()
            let result = await fetch.result
            #expect(throws: CKError.self) { try result.get() }
            #expect(
                delegate.pairEvents == [
                    "willFetchChanges", "willFetchRecordZoneChanges", "didFetchRecordZoneChanges", "didFetchChanges",
                ])
            #expect(delegate.zoneErrors == [.operationCancelled])
        }
    }

    @Test func aFailedZoneSendStillPostsDidSendChanges() async throws {
        try await Self.withFailingStore { engine, delegate in
            let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
            engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
            await #expect(throws: CKError.self) { try await engine.sendChanges() }
            #expect(
                delegate.pairEvents == ["willFetchChanges", "didFetchChanges", "willSendChanges", "didSendChanges"])
        }
    }

    @Test func aCancelledSendPostsDidSendChanges() async throws {
        try await SyncBackend.memory.withStore { open in
            let delegate = HoldingRecorder(holdAt: "willSendChanges")
            let engine = Self.engine(try open().privateCloudDatabase, delegate)
            let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
            engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
            let send = Task { try await engine.sendChanges() }
            try await eventually { delegate.held }
            send.cancel()
            delegate.release()
            let result = await send.result
            #expect(throws: CKError.self) { try result.get() }
            #expect(delegate.pairEvents == ["willSendChanges", "didSendChanges"])
        }
    }
}
