import Foundation
import StratusInMemory
import Testing

@testable import Stratus

/// A batch of zone changes ends at 16 MiB of entries, not only at its count: 2,000 records of
/// 1 MB would otherwise be 2 GB held for one answer. Every record still comes, once, across
/// batches, and a batch holds at least one entry.
@Suite struct ChangesBatchBytesTests {
    @Test func aBatchEndsAtItsByteBudgetAndTheNextCarriesOn() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(
            namespace: Namespace(container: "iCloud.bytes", environment: .development, owner: "_u1"), scope: .private)
        let zone = CKRecordZone.ID(zoneName: "Large")
        _ = try database.modifyZones(saving: [CKRecordZone(zoneID: zone)], deleting: [])
        let count = 30
        let payload = Data(repeating: 7, count: 900_000)
        for n in 0..<count {
            let record = CKRecord(recordType: "Blob", recordID: CKRecord.ID(recordName: "b\(n)", zoneID: zone))
            record["data"] = payload
            let outcome = try database.modifyRecords(
                ModifyRequest(
                    records: [record], deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
            _ = try outcome.saveResults[0].1.get()
        }
        var names: [String] = []
        var sizes: [Int] = []
        var token: CKServerChangeToken?
        while true {
            let batch = try database.fetchZoneChanges(zone, since: token, limit: 2_000, desiredKeys: nil)
            sizes.append(batch.changes.count)
            for change in batch.changes {
                if case .changed(let record) = change { names.append(record.recordID.recordName) }
            }
            token = batch.token
            guard batch.moreComing else { break }
        }
        let budget = DatabaseContext.maximumChangesBatchBytes / 900_000
        #expect(sizes.count == 2 && sizes.allSatisfy { $0 <= budget + 1 }, "\(sizes)")
        #expect(names == (0..<count).map { "b\($0)" })
    }
}
