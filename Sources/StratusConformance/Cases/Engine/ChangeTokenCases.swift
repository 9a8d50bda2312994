import Foundation
import Stratus

/// Change tokens and change fetching: invariants 1–20 of `cloudkit-semantics.md` §11 A.
enum ChangeTokenCases {
    static var all: [ConformanceCase] {
        [
            nilTokenReturnsEveryLiveRecord, latestTokenReturnsNothing, modifiedRecordOnceInLatestState,
            deletionReportedOnce, smallBatchesMatchOneFetch, intermediateTokensResume, zonesAreIsolated,
            purgedHistoryExpiresTokens,
            foreignTokensRejected, deletedZoneNotFound, databaseChanges,
            tokensSurviveReopen.reachingStorage(
                "closes and reopens the backend handle under the container; a server keeps its own handle (tokens across a stratusd restart are checked by the server's restart tests)"
            ),
            clientChangeTokenDataReturned, publicAndDefaultZoneRefused,
        ]
    }

    private static func names(_ records: [CKRecord]) -> [String] { records.map(\.recordID.recordName).sorted() }

    static let nilTokenReturnsEveryLiveRecord = ConformanceCase(
        "changeTokens.nilTokenReturnsEveryLiveRecord", invariants: [1, 15],
        "A nil-token fetch returns every live record exactly once, and no record that never existed."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone and 5 records, delete one")
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, (1...5).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        let deleted = Ops.modify(db, delete: [CKRecord.ID(recordName: "r3", zoneID: zone)])
        try context.expect(deleted.error == nil, "delete succeeds", actual: "\(String(describing: deleted.error))")
        context.step("fetch with nil token")
        let changes = Ops.zoneChanges(db, zone, since: nil)
        try context.expect(
            changes.error == nil && changes.zoneError == nil, "fetch succeeds",
            actual: "\(String(describing: changes.zoneError ?? changes.error))")
        try context.expectEqual(names(changes.changed), ["r1", "r2", "r4", "r5"], "changed records")
        try context.expect(
            changes.deleted.allSatisfy { $0.0.recordName == "r3" }, "only deletions of records that existed",
            actual: "\(changes.deleted)")
        try context.expect(changes.token != nil, "a token")
    }

    static let latestTokenReturnsNothing = ConformanceCase(
        "changeTokens.latestTokenReturnsNothing", invariants: [2],
        "Fetching again with the token just returned, with no writes between, returns nothing."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, [makeRecord("a", zone: zone)], in: context)
        context.step("first fetch")
        let first = Ops.zoneChanges(db, zone, since: nil)
        context.step("second fetch from the returned token")
        let second = Ops.zoneChanges(db, zone, since: first.token)
        try context.expect(second.zoneError == nil, "fetch succeeds", actual: "\(String(describing: second.zoneError))")
        try context.expectEqual(second.changed.count, 0, "changed records")
        try context.expectEqual(second.deleted.count, 0, "deletions")
        try context.expectEqual(second.moreComing, false, "moreComing")
    }

    static let modifiedRecordOnceInLatestState = ConformanceCase(
        "changeTokens.modifiedRecordOnceInLatestState", invariants: [3, 4],
        "A record created or modified k times after a token is returned once, in its latest state and tag."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, [makeRecord("old", zone: zone)], in: context)
        let token = Ops.zoneChanges(db, zone, since: nil).token
        context.step("modify a record three times, create another")
        var record = try Ops.saveAll(db, [makeRecord("m", zone: zone, ["v": 0])], in: context)[0]
        for v in 1...3 {
            record["v"] = v
            record = try Ops.saveAll(db, [record], in: context)[0]
        }
        _ = try Ops.saveAll(db, [makeRecord("new", zone: zone)], in: context)
        context.step("fetch from the token")
        let changes = Ops.zoneChanges(db, zone, since: token)
        try context.expectEqual(names(changes.changed), ["m", "new"], "changed records")
        let m = changes.changed.first { $0.recordID.recordName == "m" }
        try context.expectEqual(m?["v"] as? Int, 3, "latest value of m")
        try context.expectEqual(m?.recordChangeTag, record.recordChangeTag, "latest change tag of m")
    }

    static let deletionReportedOnce = ConformanceCase(
        "changeTokens.deletionReportedOnce", invariants: [5],
        "A record deleted after a token is reported once as a deletion with its type, and not as changed."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, [makeRecord("d", type: "Note", zone: zone), makeRecord("k", zone: zone)], in: context)
        let token = Ops.zoneChanges(db, zone, since: nil).token
        context.step("delete d")
        _ = Ops.modify(db, delete: [CKRecord.ID(recordName: "d", zoneID: zone)])
        let changes = Ops.zoneChanges(db, zone, since: token)
        try context.expectEqual(changes.deleted.map(\.0.recordName), ["d"], "deleted record IDs")
        try context.expectEqual(changes.deleted.map(\.1), ["Note"], "deleted record types")
        try context.expectEqual(changes.changed.count, 0, "changed records")
    }

    static let smallBatchesMatchOneFetch = ConformanceCase(
        "changeTokens.smallBatchesMatchOneFetch", invariants: [7, 8, 10],
        "Walking a zone in small batches yields the final states of one unlimited fetch, with no change twice."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<23).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        let full = Ops.zoneChanges(db, zone, since: nil)
        context.step("fetchAllChanges = false, limit 5")
        var token: CKServerChangeToken?
        var seen: [String] = []
        var rounds = 0
        while true {
            let batch = Ops.zoneChanges(db, zone, since: token, limit: 5, fetchAll: false)
            try context.expect(
                batch.zoneError == nil, "batch succeeds", actual: "\(String(describing: batch.zoneError))")
            try context.expect(
                batch.changed.count <= 5, "at most 5 records per batch", actual: "\(batch.changed.count)")
            seen += batch.changed.map(\.recordID.recordName)
            token = batch.token
            rounds += 1
            if !batch.moreComing { break }
            try context.expect(rounds < 10, "the walk ends")
        }
        try context.expect(rounds > 1, "more than one batch with moreComing = true", actual: "\(rounds)")
        try context.expectEqual(seen.count, Set(seen).count, "no record delivered twice")
        try context.expectEqual(seen.sorted(), names(full.changed), "records of the walk")
        context.step("fetchAllChanges = true, limit 5")
        let all = Ops.zoneChanges(db, zone, since: nil, limit: 5, fetchAll: true)
        try context.expectEqual(all.moreComing, false, "moreComing with fetchAllChanges")
        try context.expectEqual(names(all.changed), names(full.changed), "records with fetchAllChanges")
        try context.expect(!all.tokensUpdated.isEmpty, "intermediate tokens were reported")
    }

    static let intermediateTokensResume = ConformanceCase(
        "changeTokens.intermediateTokensResume", invariants: [6, 9],
        "Every intermediate token is a resume point: resuming from it, after more writes, misses nothing."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<12).map { makeRecord("r\($0)", zone: zone) }, in: context)
        let walk = Ops.zoneChanges(db, zone, since: nil, limit: 4, fetchAll: true)
        try context.expect(
            walk.tokensUpdated.count >= 2, "at least two intermediate tokens", actual: "\(walk.tokensUpdated.count)")
        context.step("write more, then resume from the first intermediate token")
        _ = try Ops.saveAll(db, [makeRecord("late", zone: zone)], in: context)
        let resumed = Ops.zoneChanges(db, zone, since: walk.tokensUpdated[0])
        let resumedNames = Set(resumed.changed.map(\.recordID.recordName))
        let firstBatch = Set(walk.changed.prefix(4).map(\.recordID.recordName))
        let expected = Set((0..<12).map { "r\($0)" }).subtracting(firstBatch).union(["late"])
        try context.expectEqual(resumedNames, expected, "records after the first intermediate token")
    }

    static let zonesAreIsolated = ConformanceCase(
        "changeTokens.zonesAreIsolated", invariants: [11],
        "Changes of zone A never appear in zone B, nor changes of one database in another."
    ) { context in
        let container = try context.container()
        let db = container.privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        _ = try Ops.saveAll(db, [makeRecord("a", zone: zones[0])], in: context)
        _ = try Ops.saveAll(db, [makeRecord("b", zone: zones[1])], in: context)
        try context.expectEqual(names(Ops.zoneChanges(db, zones[0], since: nil).changed), ["a"], "zone A")
        try context.expectEqual(names(Ops.zoneChanges(db, zones[1], since: nil).changed), ["b"], "zone B")
        context.step("another container on the same store has its own databases")
        let other = try context.container(identifier: "iCloud.other").privateCloudDatabase
        let missing = Ops.zoneChanges(other, zones[0], since: nil)
        try context.expectEqual(ckCode(missing.zoneError), .zoneNotFound, "zone A seen from another container")
    }

    static let purgedHistoryExpiresTokens = ConformanceCase(
        "changeTokens.purgedHistoryExpiresTokens", invariants: [7, 9, 12],
        "A token older than the purged history yields changeTokenExpired; a nil-token walk after the purge, in small batches, reaches every record and its tokens resume."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<6).map { makeRecord("r\($0)", zone: zone) }, in: context)
        let token = Ops.zoneChanges(db, zone, since: nil).token
        let deleted = Ops.modify(db, delete: [CKRecord.ID(recordName: "r5", zoneID: zone)])
        try context.expect(deleted.error == nil, "delete succeeds", actual: "\(String(describing: deleted.error))")
        context.step("purge the zone's history")
        try context.must("purge succeeds") { try db.purgeChangeHistory(in: zone) }
        let stale = Ops.zoneChanges(db, zone, since: token)
        try context.expectEqual(ckCode(stale.zoneError), .changeTokenExpired, "error for a token before the purge")
        let fresh = Ops.zoneChanges(db, zone, since: nil)
        try context.expectEqual(names(fresh.changed), ["r0", "r1", "r2", "r3", "r4"], "records of a nil-token fetch")
        context.step("walk from nil in batches of 2 after the purge")
        // The surviving records keep their change-log entries from before the purge, so this
        // walk's intermediate tokens sit below the purge point and must still resume.
        let walk = Ops.zoneChanges(db, zone, since: nil, limit: 2, fetchAll: true)
        try context.expect(
            walk.zoneError == nil && walk.error == nil, "the paged walk succeeds",
            actual: "\(String(describing: walk.zoneError ?? walk.error))")
        try context.expectEqual(names(walk.changed), ["r0", "r1", "r2", "r3", "r4"], "records of the paged walk")
        try context.expect(!walk.tokensUpdated.isEmpty, "intermediate tokens", actual: "none")
        context.step("resume from the walk's first intermediate token after another save")
        _ = try Ops.saveAll(db, [makeRecord("late", zone: zone)], in: context)
        let resumed = Ops.zoneChanges(db, zone, since: walk.tokensUpdated[0])
        try context.expect(
            resumed.zoneError == nil, "resuming succeeds", actual: "\(String(describing: resumed.zoneError))")
        let expected = Set(["r0", "r1", "r2", "r3", "r4"]).subtracting(
            walk.changed.prefix(2).map(\.recordID.recordName)
        )
        .union(["late"])
        try context.expectEqual(Set(resumed.changed.map(\.recordID.recordName)), expected, "records after that token")
    }

    static let foreignTokensRejected = ConformanceCase(
        "changeTokens.foreignTokensRejected", invariants: [13],
        "A token of another zone, of a recreated zone, a database token, or altered bytes is rejected."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        _ = try Ops.saveAll(db, [makeRecord("a", zone: zones[0])], in: context)
        let tokenA = Ops.zoneChanges(db, zones[0], since: nil).token
        context.step("zone A's token for zone B")
        try context.expectEqual(
            ckCode(Ops.zoneChanges(db, zones[1], since: tokenA).zoneError), .changeTokenExpired, "error")
        context.step("a database token for a zone fetch")
        let dbToken = Ops.databaseChanges(db, since: nil).token
        try context.expectEqual(
            ckCode(Ops.zoneChanges(db, zones[0], since: dbToken).zoneError), .invalidArguments, "error")
        context.step("altered token bytes")
        let archived = try NSKeyedArchiver.archivedData(withRootObject: tokenA!, requiringSecureCoding: true)
        var bytes = [UInt8](archived)
        if let index = bytes.indices.last(where: { bytes[$0] != 0 && $0 > bytes.count / 2 }) { bytes[index] ^= 0x01 }
        if let altered = try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: Data(bytes)),
            altered != tokenA
        {
            let code = ckCode(Ops.zoneChanges(db, zones[0], since: altered).zoneError)
            try context.expect(
                code == .invalidArguments || code == .changeTokenExpired, "altered token rejected",
                actual: "\(String(describing: code))")
        }
        context.step("delete and recreate zone A; its old token is rejected")
        Ops.modifyZones(db, delete: [zones[0]])
        _ = try Ops.createZones(db, ["A"], in: context)
        try context.expectEqual(
            ckCode(Ops.zoneChanges(db, zones[0], since: tokenA).zoneError), .changeTokenExpired, "error")
        try context.expectEqual(
            Ops.zoneChanges(db, zones[0], since: nil).changed.count, 0, "records of the recreated zone")
    }

    static let deletedZoneNotFound = ConformanceCase(
        "changeTokens.deletedZoneNotFound", invariants: [14],
        "Fetching changes of a deleted zone fails with zoneNotFound."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        let token = Ops.zoneChanges(db, zone, since: nil).token
        Ops.modifyZones(db, delete: [zone])
        try context.expectEqual(
            ckCode(Ops.zoneChanges(db, zone, since: token).zoneError), .zoneNotFound, "error with a token")
        try context.expectEqual(
            ckCode(Ops.zoneChanges(db, zone, since: nil).zoneError), .zoneNotFound, "error with nil")
    }

    static let databaseChanges = ConformanceCase(
        "changeTokens.databaseChanges", invariants: [16, 17],
        "Database changes report created and changed zones, and deleted zones as deletions only."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let start = Ops.databaseChanges(db, since: nil)
        try context.expect(start.error == nil, "fetch succeeds", actual: "\(String(describing: start.error))")
        context.step("create A and B")
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        let created = Ops.databaseChanges(db, since: start.token)
        try context.expectEqual(Set(created.changed), Set(zones), "changed zones after creation")
        context.step("change a record in A")
        _ = try Ops.saveAll(db, [makeRecord("a", zone: zones[0])], in: context)
        let recordChange = Ops.databaseChanges(db, since: created.token)
        try context.expectEqual(recordChange.changed, [zones[0]], "changed zones after a record change")
        context.step("delete B")
        Ops.modifyZones(db, delete: [zones[1]])
        let deletion = Ops.databaseChanges(db, since: recordChange.token)
        try context.expectEqual(deletion.deleted, [zones[1]], "deleted zones")
        try context.expectEqual(deletion.changed, [], "changed zones after the deletion")
    }

    static let tokensSurviveReopen = ConformanceCase(
        "changeTokens.tokensSurviveReopen", invariants: [18],
        "An archived token still means the same after the backend is closed and reopened."
    ) { context in
        let backend = try context.open()
        var db = CKContainer(identifier: "iCloud.conformance", backend: backend).privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, [makeRecord("before", zone: zone)], in: context)
        let token = Ops.zoneChanges(db, zone, since: nil).token!
        let archived = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        context.step("close and reopen")
        try context.close(backend)
        db = CKContainer(identifier: "iCloud.conformance", backend: try context.open()).privateCloudDatabase
        _ = try Ops.saveAll(db, [makeRecord("after", zone: zone)], in: context)
        let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: archived)
        let changes = Ops.zoneChanges(db, zone, since: restored)
        try context.expectEqual(names(changes.changed), ["after"], "changes after the restored token")
    }

    static let clientChangeTokenDataReturned = ConformanceCase(
        "changeTokens.clientChangeTokenDataReturned", invariants: [19],
        "The clientChangeTokenData of the last modify in a zone is returned by its next change fetch."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        Ops.modify(db, save: [makeRecord("a", zone: zone)], clientChangeTokenData: Data([1, 2, 3]))
        Ops.modify(db, save: [makeRecord("b", zone: zone)], clientChangeTokenData: Data([4, 5]))
        try context.expectEqual(
            Ops.zoneChanges(db, zone, since: nil).clientChangeTokenData, Data([4, 5]), "clientChangeTokenData")
    }

    static let publicAndDefaultZoneRefused = ConformanceCase(
        "changeTokens.publicAndDefaultZoneRefused", invariants: [20],
        "Change fetches are refused in the public database and for the default zone."
    ) { context in
        let container = try context.container()
        let publicChanges = Ops.zoneChanges(container.publicCloudDatabase, .default, since: nil)
        try context.expectEqual(ckCode(publicChanges.error), .badDatabase, "zone changes in the public database")
        try context.expectEqual(
            ckCode(Ops.databaseChanges(container.publicCloudDatabase, since: nil).error), .badDatabase,
            "database changes in the public database")
        _ = try Ops.saveAll(container.privateCloudDatabase, [makeRecord("d", zone: .default)], in: context)
        let defaultZone = Ops.zoneChanges(container.privateCloudDatabase, .default, since: nil)
        try context.expectEqual(defaultZone.changed.count, 0, "records from the default zone")
        try context.expectEqual(ckCode(defaultZone.zoneError), .invalidArguments, "error for the default zone")
    }
}
