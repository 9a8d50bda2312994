import Foundation
import Stratus

/// A zone-changes fetch of many batches (`fetchAllChanges`), while the app writes and cancels
/// during its callbacks: invariants 6 and 9 of `cloudkit-semantics.md` §11 A, and the
/// read-ahead of decision 0009 (the next batch is read while the app handles this one).
enum PagedFetchCases {
    static var all: [ConformanceCase] { [writesDuringAPagedFetchConverge, cancelledPagedFetchStops] }

    static let writesDuringAPagedFetchConverge = ConformanceCase(
        "changeTokens.writesDuringAPagedFetchConverge", invariants: [6, 9],
        "Writes made from the callbacks of a paged fetch (to records delivered, not yet delivered, or perhaps already read ahead) are seen by the rest of the fetch: its client's copy ends equal to the store, and nothing follows its final token."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<30).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        let mirror = Mirror()
        let writes = Collector<String>()
        let op = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zone],
            configurationsByRecordZoneID: [zone: .init(previousServerChangeToken: nil, resultsLimit: 5)])
        op.fetchAllChanges = true
        op.recordWasChangedBlock = { _, result in
            guard let record = try? result.get() else { return }
            let first = mirror.apply(record)
            guard first else { return }
            // While the first batch is being handled: r0 was delivered, r7 is in the next
            // batch (perhaps read already), r20 is further on; r25 goes and `new` comes.
            let outcome = Ops.modify(
                db,
                save: [
                    makeRecord("r0", zone: zone, ["n": 100]), makeRecord("r7", zone: zone, ["n": 107]),
                    makeRecord("r20", zone: zone, ["n": 120]), makeRecord("new", zone: zone, ["n": 200]),
                ],
                delete: [CKRecord.ID(recordName: "r25", zoneID: zone)], policy: .changedKeys)
            writes.append(outcome.error.map { "\($0)" } ?? "ok")
        }
        op.recordWithIDWasDeletedBlock = { id, _ in mirror.remove(id.recordName) }
        let final = Collector<Result<CKServerChangeToken, any Error>>()
        op.recordZoneFetchResultBlock = { _, result in final.append(result.map(\.serverChangeToken)) }
        Ops.run(op, on: db)
        try context.expectEqual(writes.values, ["ok"], "the writes made from the first callback")
        guard case .success(let token)? = final.values.first else {
            throw context.failure(
                expected: "the paged fetch succeeds with a final token", actual: Reads.describe(final.values.first))
        }
        var expected: [String: Int] = [:]
        for n in 0..<30 where n != 25 { expected["r\(n)"] = n }
        expected["r0"] = 100
        expected["r7"] = 107
        expected["r20"] = 120
        expected["new"] = 200
        // Every batch after the writes is read after them (decision 0009), so the walk itself
        // ends with the writes: r0 again in its new state, r7 and r20 once, in theirs.
        try context.expectEqual(mirror.values, expected, "the client's copy at the end of the paged fetch")
        try context.expectEqual(mirror.deliveries("r0"), [0, 100], "values delivered for r0 (delivered, then written)")
        try context.expectEqual(mirror.deliveries("r7"), [107], "values delivered for r7 (written before its batch)")
        try context.expectEqual(mirror.deliveries("r20"), [120], "values delivered for r20")
        context.step("follow the final token")
        let after = Ops.zoneChanges(db, zone, since: token)
        try context.expect(
            after.zoneError == nil, "fetch after the final token", actual: Reads.describe(after.zoneError))
        try context.expectEqual(
            Reads.names(after.changed) + after.deleted.map(\.0.recordName), [], "changes after the final token")
    }

    static let cancelledPagedFetchStops = ConformanceCase(
        "changeTokens.cancelledPagedFetchStops", invariants: [],
        "A paged fetch cancelled from a record callback delivers no record after that one, reports operationCancelled, and the store takes writes and reads at once."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<40).map { makeRecord("r\($0)", zone: zone) }, in: context)
        let op = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zone],
            configurationsByRecordZoneID: [zone: .init(previousServerChangeToken: nil, resultsLimit: 5)])
        op.fetchAllChanges = true
        let delivered = Collector<String>()
        op.recordWasChangedBlock = { [unowned op] id, _ in
            delivered.append(id.recordName)
            if delivered.values.count == 7 { op.cancel() }
        }
        let final = Collector<(any Error)?>()
        op.fetchRecordZoneChangesResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: db)
        try context.expectEqual(delivered.values.count, 7, "records delivered, cancelling at the 7th")
        try context.expectEqual(final.values.count, 1, "final callbacks")
        try context.expectEqual(ckCode(final.values.first ?? nil), .operationCancelled, "the final callback's error")
        context.step("the store goes on at once")
        _ = try Ops.saveAll(db, [makeRecord("after", zone: zone)], in: context)
        let all = Ops.zoneChanges(db, zone, since: nil)
        try context.expectEqual(all.changed.count, 41, "records of a fetch after the cancelled one")
    }

    /// The client's copy of the zone: record name to field `n`, and every value delivered.
    private final class Mirror: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [String: Int] = [:]
        private var delivered: [String: [Int]] = [:]
        private var applied = 0

        /// Applies `record`; returns whether it was the first record applied.
        func apply(_ record: CKRecord) -> Bool {
            lock.withLock {
                let value = record["n"] as? Int ?? -1
                storage[record.recordID.recordName] = value
                delivered[record.recordID.recordName, default: []].append(value)
                applied += 1
                return applied == 1
            }
        }

        /// The values delivered for record `name`, in order.
        func deliveries(_ name: String) -> [Int] {
            lock.withLock { delivered[name] ?? [] }
        }

        func remove(_ name: String) {
            lock.withLock { _ = storage.removeValue(forKey: name) }
        }

        var values: [String: Int] { lock.withLock { storage } }
    }
}
