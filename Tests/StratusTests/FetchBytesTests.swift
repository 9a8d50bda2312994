import Foundation
import Synchronization
import Testing

@testable import Stratus

/// A fetch by ID whose records hold more than `DatabaseContext.maximumFetchBytes` (16 MiB) of
/// fields is refused by the engine with `limitExceeded`, having read little more than that;
/// `CKFetchRecordsOperation` asks again in halves, so the app still gets every record.
@Suite struct FetchBytesTests {
    /// 40 records `b00`… of 900,000 bytes each (36 MB) in one zone of a store that counts the
    /// keys it reads: `blob` holds the record's number in every byte, `n` the number.
    private static func store() async throws -> (ReadCountingBackend, CKDatabase, [CKRecord.ID]) {
        let backend = ReadCountingBackend()
        let database = CKContainer(identifier: "iCloud.fetchbytes", backend: backend).privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        var ids: [CKRecord.ID] = []
        for start in stride(from: 0, to: 40, by: 10) {
            let records = (start..<start + 10).map { n in
                let record = CKRecord(
                    recordType: "T", recordID: CKRecord.ID(recordName: String(format: "b%02d", n), zoneID: zone))
                record["n"] = n
                record["blob"] = Data(repeating: UInt8(n), count: 900_000)
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
            ids += records.map(\.recordID)
        }
        return (backend, database, ids)
    }

    @Test func theEngineRefusesAFetchPastItsBytesHavingReadOneSlice() async throws {
        let (backend, database, ids) = try await Self.store()
        let context = try database.context()
        backend.reset()
        #expect {
            _ = try context.fetchRecords(ids, desiredKeys: nil)
        } throws: { error in
            let error = error as? CKError
            return error?.code == .limitExceeded && error?.localizedDescription.contains("16 MiB") == true
                && error?.localizedDescription.contains("the first 19 hold") == true
        }
        // The zone row and 40 pointers, then one slice of 32 entries: not the 40 entries.
        #expect(backend.keysRead <= 1 + 40 + DatabaseContext.firstFetchSlice, "\(backend.keysRead) keys read")

        // 18 records (16.2 MB) are within the budget, and so are 40 without their blobs.
        let fitting = try context.fetchRecords(Array(ids.prefix(18)), desiredKeys: nil)
        #expect(fitting.count == 18 && fitting.allSatisfy { (try? $0.1.get()) != nil })
        let small = try context.fetchRecords(ids, desiredKeys: ["n"])
        #expect(small.map { (try? $0.1.get())?["n"] as? Int } == Array(0..<40))
    }

    @Test func theOperationFetchesEveryRecordInParts() async throws {
        let (_, database, ids) = try await Self.store()
        // Twice each, and a missing one: every ID answered once, in the engine's order.
        let missing = CKRecord.ID(recordName: "missing", zoneID: ids[0].zoneID)
        let asked = ids + [missing] + ids.reversed()
        let results = try await database.records(for: asked)
        #expect(results.count == 41)
        for (n, id) in ids.enumerated() {
            let record = try results[id]?.get()
            #expect(record?["blob"] as? Data == Data(repeating: UInt8(n), count: 900_000), "\(id.recordName)")
        }
        #expect(OpsTestKit.code(results[missing]) == .unknownItem)

        // Per-record callbacks: each ID once, in request order (first occurrences).
        let operation = CKFetchRecordsOperation(recordIDs: asked)
        let order = Collected<CKRecord.ID>()
        operation.perRecordResultBlock = { id, _ in order.append(id) }
        await OpsTestKit.run(operation, on: database)
        #expect(order.values == ids + [missing])
    }

    /// Each part is delivered as it comes, not once every part is read: the first record's
    /// callback comes before the last parts are read. After the first part that fits, the next
    /// ones are sized from its bytes per record, so the 40 records take one refusal of the whole
    /// and one of a half, and then no more.
    @Test func theOperationDeliversEachPartAsItComes() async throws {
        let (backend, database, ids) = try await Self.store()
        backend.reset()
        let operation = CKFetchRecordsOperation(recordIDs: ids)
        let readAtFirst = Mutex<Int?>(nil)
        let order = Collected<CKRecord.ID>()
        operation.perRecordResultBlock = { id, _ in
            readAtFirst.withLock { $0 = $0 ?? backend.keysRead }
            order.append(id)
        }
        await OpsTestKit.run(operation, on: database)
        let first = try #require(readAtFirst.withLock { $0 })
        #expect(order.values == ids)
        // The 30 entries of the records after the first part are read after its callbacks.
        #expect(backend.keysRead - first >= 30, "\(first) keys read at the first callback, \(backend.keysRead) in all")
        // A zone row, the part's pointers and its entries per call: 1 + 40 + 32 for the refused
        // whole, 1 + 20 + 20 for the refused half, then 1 + 10 + 10, 1 + 16 + 16 and 1 + 14 + 14:
        // 196 (halving each refused part again, as before, read 239).
        #expect(backend.keysRead <= 200, "\(backend.keysRead) keys read")
    }
}

/// Values appended from callbacks.
private final class Collected<T: Sendable>: Sendable {
    private let storage = Mutex<[T]>([])
    func append(_ value: T) { storage.withLock { $0.append(value) } }
    var values: [T] { storage.withLock { $0 } }
}
