import Foundation
import Stratus
import Synchronization
import Testing

/// `RecordZoneChangeBatch(pendingChanges:recordProvider:)`: the batch takes pending changes in
/// order and ends where the next one does not fit, as Apple documents.
@Suite struct RecordZoneChangeBatchTests {
    private let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)

    /// A record of `name` whose value takes `bytes` bytes.
    private func record(_ name: String, bytes: Int) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["data"] = Data(count: bytes)
        return record
    }

    /// a and b take about 1.5 MB each: the batch ends before b, so neither c nor the deletion
    /// of d goes with a, and the provider is never asked for c.
    @Test func theBatchEndsBeforeTheFirstSaveThatDoesNotFit() async throws {
        let records = [
            "a": record("a", bytes: 1_500_000), "b": record("b", bytes: 1_500_000), "c": record("c", bytes: 10),
        ]
        let asked = Mutex<[String]>([])
        let id = { (name: String) in CKRecord.ID(recordName: name, zoneID: zoneID) }
        let pending: [CKSyncEngine.PendingRecordZoneChange] = [
            .saveRecord(id("a")), .saveRecord(id("b")), .saveRecord(id("c")), .deleteRecord(id("d")),
        ]
        let batch = try #require(
            await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { recordID in
                asked.withLock { $0.append(recordID.recordName) }
                return records[recordID.recordName]
            })
        #expect(batch.recordsToSave.map(\.recordID.recordName) == ["a"])
        #expect(batch.recordIDsToDelete.isEmpty)
        #expect(asked.withLock { $0 } == ["a", "b"])
    }
}
