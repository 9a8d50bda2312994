import Foundation
import Stratus

extension LongLivedCases {
    /// One operation of every database operation type, for `zoneID` (holding records `r0`,
    /// `r1`) in the private database, with a subscription `s1` saved by the first ones.
    static func everyType(zoneID: CKRecordZone.ID) -> [CKDatabaseOperation] {
        let query = CKQueryOperation(query: CKQuery(recordType: "Item", predicate: NSPredicate(value: true)))
        query.zoneID = zoneID
        query.resultsLimit = 1
        let databaseChanges = CKFetchDatabaseChangesOperation(previousServerChangeToken: nil)
        databaseChanges.resultsLimit = 1
        return [
            CKModifySubscriptionsOperation(
                subscriptionsToSave: [CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "s1")]),
            CKFetchRecordsOperation(recordIDs: [
                CKRecord.ID(recordName: "r0", zoneID: zoneID), CKRecord.ID(recordName: "missing", zoneID: zoneID),
            ]),
            query,
            CKFetchRecordZoneChangesOperation(
                recordZoneIDs: [zoneID],
                configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: nil, resultsLimit: 1)]),
            databaseChanges,
            CKFetchRecordZonesOperation(recordZoneIDs: [zoneID, CKRecordZone.ID(zoneName: "Missing")]),
            CKFetchSubscriptionsOperation(subscriptionIDs: ["s1", "missing"]),
            CKModifyRecordZonesOperation(
                recordZonesToSave: [CKRecordZone(zoneName: "Extra")],
                recordZoneIDsToDelete: [CKRecordZone.ID(zoneName: "Doomed")]),
            CKModifySubscriptionsOperation(
                subscriptionsToSave: [CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "s2")],
                subscriptionIDsToDelete: ["s1"]),
            CKModifyRecordsOperation(
                recordsToSave: [makeRecord("new", zone: zoneID, ["n": 9])],
                recordIDsToDelete: [CKRecord.ID(recordName: "r1", zoneID: zoneID)]),
        ]
    }

    static let replaysEveryOperationType = ConformanceCase(
        "longLived.replaysEveryOperationType", invariants: [56],
        "For every database operation type, a long-lived operation killed at its last callback is fetched after a restart as a proxy of its class, and replays exactly the callbacks it delivered — reads answer as a fresh run would, writes are not applied again."
    ) { context in
        var process = try LongLivedProcess.start(context)
        let zoneID = try LongLived.seedZone(process.database, "Every", records: 2, in: context)
        _ = try Ops.createZones(process.database, ["Doomed"], in: context)
        for make in everyType(zoneID: zoneID).indices.map({ index in { everyType(zoneID: zoneID)[index] } }) {
            let op = make()
            let kind = "\(type(of: op))"
            context.step("\(kind): run and kill at its last callback")
            let log = CallbackLog.holding(atFirst: "completion")
            try process.startHeld(op, log, context)
            try process.kill(holding: log, context)
            process = try LongLivedProcess.start(context)
            let databaseToken = "\(Ops.databaseChanges(process.database, since: nil).token.map { "\($0)" } ?? "nil")"

            context.step("\(kind): replay")
            guard let proxy = try process.proxy(op.operationID, context) else {
                throw context.failure(expected: "a proxy", actual: "nil")
            }
            try context.expectEqual("\(type(of: proxy))", kind, "the proxy's class")
            let replay = try process.run(proxy, CallbackLog(), context)
            try context.expectEqual(replay, log.all, "the replayed callbacks")
            try context.expectEqual(
                "\(Ops.databaseChanges(process.database, since: nil).token.map { "\($0)" } ?? "nil")", databaseToken,
                "the database's change token (nothing written by the replay)")
            try context.expect(!(try process.listed(context)).contains(op.operationID), "not listed after the replay")

            if !(op is CKModifyRecordsOperation || op is CKModifyRecordZonesOperation
                || op is CKModifySubscriptionsOperation)
            {
                context.step("\(kind): a fresh run answers the same")
                try context.expectEqual(
                    try process.run(make(), CallbackLog(), context), replay, "a fresh run's callbacks")
            }
        }
        try process.stop(context)
    }
}
