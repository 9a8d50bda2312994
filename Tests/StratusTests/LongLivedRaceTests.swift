import Foundation
import Stratus
import StratusInMemory
import Testing

/// An original long-lived operation and its proxy running at the same time, on two handles of
/// one store, with no pause anywhere: journal writes are compare-and-append, so whichever run
/// journals a batch first wins and the other replays it — both deliver the same callbacks and
/// the work is applied once. Repeated to let the two runs interleave differently.
@Suite struct LongLivedRaceTests {
    static let rounds = 25

    /// Two containers (two "processes") over one store.
    static func containers() -> (CKContainer, CKContainer) {
        let store = InMemoryStore()
        return (
            CKContainer(identifier: "iCloud.race", backend: InMemoryBackend(store: store)),
            CKContainer(identifier: "iCloud.race", backend: InMemoryBackend(store: store))
        )
    }

    /// Runs `original` long-lived on `first`; in its persisted block — before its work — fetches
    /// its proxy from `second` and adds it there, so the two runs do the work concurrently.
    /// `configure` sets both operations' callbacks.
    static func race(
        _ original: CKDatabaseOperation, _ first: CKContainer, _ second: CKContainer,
        configure: @escaping @Sendable (CKDatabaseOperation, OpsLog<String>) -> Void
    ) async throws -> (original: [String], proxy: [String]) {
        let originalLog = OpsLog<String>()
        let proxyLog = OpsLog<String>()
        let problems = OpsLog<String>()
        configure(original, originalLog)
        original.configuration.isLongLived = true
        let proxyDone = DispatchSemaphore(value: 0)
        original.longLivedOperationWasPersistedBlock = { [id = original.operationID] in
            let fetched = DispatchSemaphore(value: 0)
            second.fetchLongLivedOperation(withID: id) { operation, error in
                if let proxy = operation as? CKDatabaseOperation {
                    configure(proxy, proxyLog)
                    proxy.completionBlock = { proxyDone.signal() }
                    second.privateCloudDatabase.add(proxy)
                } else {
                    problems.append("no proxy: \(String(describing: error))")
                    proxyDone.signal()
                }
                fetched.signal()
            }
            fetched.wait()
        }
        await withCheckedContinuation { continuation in
            original.completionBlock = { continuation.resume() }
            first.privateCloudDatabase.add(original)
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                proxyDone.wait()
                continuation.resume()
            }
        }
        #expect(problems.all.isEmpty)
        return (originalLog.all, proxyLog.all)
    }

    @Test func aZoneChangesFetchAndItsProxyDeliverTheSameCallbacks() async throws {
        for round in 1...Self.rounds {
            let (first, second) = Self.containers()
            let zoneID = try await first.privateCloudDatabase.save(CKRecordZone(zoneName: "Z")).zoneID
            let records = (0..<40).map {
                CKRecord(recordType: "Item", recordID: .init(recordName: "r\($0)", zoneID: zoneID))
            }
            _ = try await first.privateCloudDatabase.modifyRecords(saving: records, deleting: [])
            let op = CKFetchRecordZoneChangesOperation(
                recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 3)])
            let (original, proxy) = try await Self.race(op, first, second) { operation, log in
                guard let fetch = operation as? CKFetchRecordZoneChangesOperation else { return }
                fetch.recordWasChangedBlock = { id, _ in log.append("changed \(id.recordName)") }
                fetch.recordZoneChangeTokensUpdatedBlock = { _, token, _ in
                    log.append("tokens \(token.map { "\($0)" } ?? "nil")")
                }
                fetch.fetchRecordZoneChangesResultBlock = { result in
                    log.append("final \((try? result.get()) != nil)")
                }
            }
            #expect(original == proxy, "round \(round)")
            #expect(original.filter { $0.hasPrefix("changed") }.count == 40, "round \(round)")
            #expect(original.last == "final true", "round \(round)")
            #expect(try await first.allLongLivedOperationIDs().isEmpty, "round \(round)")
        }
    }

    @Test func aModifyAndItsProxyApplyItOnce() async throws {
        for round in 1...Self.rounds {
            let (first, second) = Self.containers()
            let zoneID = try await first.privateCloudDatabase.save(CKRecordZone(zoneName: "Z")).zoneID
            let op = CKModifyRecordsOperation(
                recordsToSave: (0..<20).map {
                    CKRecord(recordType: "Item", recordID: .init(recordName: "m\($0)", zoneID: zoneID))
                })
            let (original, proxy) = try await Self.race(op, first, second) { operation, log in
                guard let modify = operation as? CKModifyRecordsOperation else { return }
                modify.perRecordSaveBlock = { id, result in
                    log.append("save \(id.recordName) \((try? result.get())?.recordChangeTag ?? "error")")
                }
                modify.modifyRecordsResultBlock = { result in
                    log.append("final \((try? result.get()) != nil)")
                }
            }
            #expect(original == proxy, "round \(round)")
            let changes = try await first.privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: nil)
            let stored = changes.modificationResultsByID.compactMapValues { try? $0.get().record.recordChangeTag }
            #expect(stored.count == 20, "round \(round)")
            for (id, tag) in stored { #expect(original.contains("save \(id.recordName) \(tag)"), "round \(round)") }
            // One write each: the zone's history holds 20 changes (positions 1…20).
            #expect(changes.moreComing == false)
        }
    }
}
