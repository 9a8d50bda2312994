import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Synchronization
import Testing

/// Step 1 of decision 0016: the operations reach the engine through ``DatabaseService`` and
/// nowhere else. A container over one SQLite file (`own`) is given a service that forwards to
/// the engine of another SQLite file (`target`) and counts the requests; every standard
/// operation runs through it with the same results as on a plain container, the data lands in
/// `target`, and `own` is never written — an operation that went around the seam would have
/// used `own`.
@Suite struct DatabaseServiceSeamTests {
    static let identifier = "iCloud.com.example.seam"

    /// Three stores: a plain reference container, the service's target, and the seam
    /// container's own (which must stay empty).
    final class Setup: Sendable {
        let storages: [SQLiteFixtureStorage]
        let reference: CKContainer
        let target: CKContainer
        let seam: CKContainer
        /// The services the seam container's factory made, by scope.
        let services = Services()

        /// The services a factory made.
        final class Services: Sendable {
            let byScope = Mutex<[CKDatabase.Scope: CountingDatabaseService]>([:])
        }

        init(exposesLocalEngine: Bool = true) throws {
            storages = try (0..<3).map { _ in try SQLiteFixtureStorage() }
            reference = CKContainer(identifier: DatabaseServiceSeamTests.identifier, backend: try storages[0].open())
            target = CKContainer(identifier: DatabaseServiceSeamTests.identifier, backend: try storages[1].open())
            seam = CKContainer(identifier: DatabaseServiceSeamTests.identifier, backend: try storages[2].open())
            let services = self.services
            let target = self.target
            seam.useDatabaseService { database in
                let service = CountingDatabaseService(
                    base: try target.database(with: database.databaseScope).context(),
                    exposesLocalEngine: exposesLocalEngine)
                services.byScope.withLock { $0[database.databaseScope] = service }
                return service
            }
        }

        /// The requests the private database's service received.
        var privateCalls: [CountingDatabaseService.Call: Int] {
            services.byScope.withLock { $0[.private]?.calls ?? [:] }
        }

        func destroy() {
            for storage in storages { try? storage.destroy() }
        }
    }

    @Test func everyStandardOperationGoesThroughTheServiceWithTheSameResults() async throws {
        let setup = try Setup()
        defer { setup.destroy() }
        let expected = try await SeamScenario.run(setup.reference)
        let actual = try await SeamScenario.run(setup.seam)
        #expect(actual == expected)
        for line in ["query pages: 3", "deleted n6", "changed n7 note n7 7", "persisted", "long-lived true"] {
            #expect(expected.contains(line), "the scenario ran: \(line)")
        }

        let calls = setup.privateCalls
        for call in CountingDatabaseService.Call.allCases {
            #expect(calls[call, default: 0] > 0, "\(call) never went through the service")
        }
        #expect(calls[.query, default: 0] >= 3, "the query was walked with its cursor")
        #expect(calls[.fetchZoneChanges, default: 0] >= 4, "zone changes came in pages")

        // The service's target holds everything; the seam container's own store nothing.
        let targetZones = try await setup.target.privateCloudDatabase.allRecordZones()
        #expect(targetZones.map(\.zoneID.zoneName).sorted() == ["Notes", "_defaultZone"])
        let own = try setup.seam.privateCloudDatabase.context()
        #expect(try own.fetchZones(nil).map(\.0.zoneName) == ["_defaultZone"])
        #expect(try own.fetchDatabaseChanges(since: nil, limit: 0).changed.isEmpty)
        #expect(try own.fetchSubscriptions(nil).isEmpty)
    }

    @Test func withoutALocalEngineTheEngineOnlyFeaturesFailClearly() async throws {
        let setup = try Setup(exposesLocalEngine: false)
        defer { setup.destroy() }
        let database = setup.seam.privateCloudDatabase
        let zoneID = try await database.save(CKRecordZone(zoneName: "Notes")).zoneID
        try await SeamScenario.saveNotes(0..<5, in: zoneID, database)

        // Zone changes page through the service without the read-ahead (0009).
        let fetch = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: nil, resultsLimit: 2)
        #expect(fetch.error == nil)
        #expect(fetch.changes.map(\.recordName) == ["n0", "n1", "n2", "n3", "n4"])
        #expect(setup.privateCalls[.fetchZoneChanges] == 3)

        // The long-lived journal (0006) and purging history are the local engine's.
        let longLived = CKModifyRecordsOperation(recordsToSave: [SeamScenario.note("ll", in: zoneID, rank: 9)])
        longLived.configuration.isLongLived = true
        let persisted = Mutex(false)
        longLived.longLivedOperationWasPersistedBlock = { persisted.withLock { $0 = true } }
        let failure = Mutex<(any Error)?>(nil)
        longLived.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { failure.withLock { $0 = error } }
        }
        await SeamScenario.run(longLived, on: database)
        #expect((failure.withLock { $0 } as? CKError)?.code == .internalError)
        #expect(!persisted.withLock { $0 })
        #expect(setup.privateCalls[.modifyRecords] == 1, "only the five notes were saved")
        #expect(throws: CKError.self) { try database.purgeChangeHistory(in: zoneID) }
        await #expect(throws: CKError.self) { try await setup.seam.allLongLivedOperationIDs() }
    }

    @Test func aLongLivedProxyResumesThroughTheService() async throws {
        let setup = try Setup()
        defer { setup.destroy() }
        // Another process of the app persists a long-lived modify on the target's store and
        // dies before doing the work (its backend closes while the persisted block runs).
        let dying = try setup.storages[1].openSQLite()
        let operation = CKModifyRecordsOperation(recordsToSave: [
            CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "resumed"))
        ])
        operation.configuration.isLongLived = true
        operation.longLivedOperationWasPersistedBlock = { try? dying.close() }
        await SeamScenario.run(
            operation, on: CKContainer(identifier: Self.identifier, backend: dying).privateCloudDatabase)

        // The seam container lists it from the service's local journal, and its proxy does
        // the work through the service.
        #expect(try await setup.seam.allLongLivedOperationIDs() == [operation.operationID])
        let proxy = try #require(
            try await setup.seam.longLivedOperation(for: operation.operationID) as? CKModifyRecordsOperation)
        let saved = Mutex<[String]>([])
        proxy.perRecordSaveBlock = { id, result in
            saved.withLock { $0.append("\(id.recordName) \((try? result.get()) != nil)") }
        }
        await SeamScenario.run(proxy, on: setup.seam.privateCloudDatabase)
        #expect(saved.withLock { $0 } == ["resumed true"])
        #expect(setup.privateCalls[.modifyRecords] == 1)
        #expect(try await setup.seam.allLongLivedOperationIDs().isEmpty)
        let stored = try await setup.target.privateCloudDatabase.record(for: CKRecord.ID(recordName: "resumed"))
        #expect(stored.recordType == "Note")
    }
}
