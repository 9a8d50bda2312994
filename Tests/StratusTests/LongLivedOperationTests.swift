import Foundation
import Stratus
import StratusInMemory
import Testing

/// The long-lived API of `CKContainer` as apps call it: the seed documentation's re-attach
/// sample, the async forms, and the Stratus retention settings. (Invariants 55–60 are the
/// conformance suite's `longLived.*` cases, run on every backend.)
@Suite struct LongLivedOperationTests {
    /// A container over `store`, as one process of an app would make it.
    static func container(_ backend: InMemoryBackend) -> CKContainer {
        CKContainer(identifier: "iCloud.test.longLived", backend: backend)
    }

    /// Starts a long-lived modify saving `names` in the default zone of a container over
    /// `store`, and "kills" its process right after the operation was persisted: the backend
    /// is closed while the persisted block waits, so the work never reaches the store.
    static func persistThenKill(saving names: [String], in store: InMemoryStore) -> CKOperation.ID {
        let backend = InMemoryBackend(store: store)
        let op = CKModifyRecordsOperation(
            recordsToSave: names.map { CKRecord(recordType: "Note", recordID: .init(recordName: $0)) })
        op.configuration.isLongLived = true
        let persisted = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        op.longLivedOperationWasPersistedBlock = {
            persisted.signal()
            release.wait()
        }
        op.completionBlock = { finished.signal() }
        container(backend).privateCloudDatabase.add(op)
        persisted.wait()
        backend.close()
        release.signal()
        finished.wait()
        return op.operationID
    }

    @Test func theSeedSampleCompilesAndReattaches() async throws {
        let store = InMemoryStore()
        let persistedID = Self.persistThenKill(saving: ["a", "b"], in: store)
        let container = Self.container(InMemoryBackend(store: store))
        let saved = OpsLog<String>()
        let done = OpsLog<String>()

        // The sample of CloudKit's CKOperation documentation, as written (its elided
        // "Handle error" branches return), then what the app adds: callbacks and a database.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            container.fetchAllLongLivedOperationIDs(completionHandler: { (operationIDs, error) in
                if let error = error {
                    print("Error fetching long lived operations: \(error)")
                    // Handle error
                    continuation.resume()
                    return
                }
                guard let identifiers = operationIDs else { return }
                for operationID in identifiers {
                    container.fetchLongLivedOperation(
                        withID: operationID,
                        completionHandler: { (operation, error) in
                            if let error = error {
                                print("Error fetching operation: \(operationID)\n\(error)")
                                // Handle error
                                continuation.resume()
                                return
                            }
                            guard let operation = operation else { return }
                            // Add callback handlers to operation
                            guard let modify = operation as? CKModifyRecordsOperation else { return }
                            modify.perRecordSaveBlock = { id, result in
                                saved.append("\(id.recordName) \((try? result.get()) != nil)")
                            }
                            modify.modifyRecordsResultBlock = { result in
                                done.append("\(operationID) \((try? result.get()) != nil)")
                                continuation.resume()
                            }
                            container.privateCloudDatabase.add(modify)
                        })
                }
                if identifiers.isEmpty { continuation.resume() }  // (the test's own addition)
            })
        }
        #expect(saved.all == ["a true", "b true"])
        #expect(done.all == ["\(persistedID) true"])
        let stored = try await container.privateCloudDatabase.records(for: [
            .init(recordName: "a"), .init(recordName: "b"),
        ])
        #expect(stored.values.allSatisfy { (try? $0.get()) != nil })
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
    }

    @Test func theAsyncFormsListAndReturnAProxyOfTheOriginalClass() async throws {
        let store = InMemoryStore()
        let id = Self.persistThenKill(saving: ["x"], in: store)
        let container = Self.container(InMemoryBackend(store: store))
        #expect(try await container.allLongLivedOperationIDs() == [id])
        let proxy = try #require(try await container.longLivedOperation(for: id) as? CKModifyRecordsOperation)
        #expect(proxy.operationID == id)
        #expect(proxy.configuration.isLongLived)
        #expect(proxy.recordsToSave?.map(\.recordID.recordName) == ["x"])
        #expect(try await container.longLivedOperation(for: "no-such-operation") == nil)
    }

    @Test func anOrdinaryOperationIsNeverListed() async throws {
        let container = Self.container(InMemoryBackend())
        let op = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        await OpsTestKit.run(op, on: container.privateCloudDatabase)
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
        #expect(try await container.longLivedOperation(for: op.operationID) == nil)
    }

    @Test func retentionAndClockAreSettingsOfTheContainer() {
        let container = Self.container(InMemoryBackend())
        #expect(container.longLivedOperationRetention == 24 * 3600)
        container.longLivedOperationRetention = 60
        #expect(container.longLivedOperationRetention == 60)
        let fixed = Date(timeIntervalSince1970: 1_000)
        container.longLivedOperationClock = { fixed }
        #expect(container.longLivedOperationClock() == fixed)
        // Another container keeps the defaults.
        #expect(Self.container(InMemoryBackend()).longLivedOperationRetention == 24 * 3600)
    }
}
