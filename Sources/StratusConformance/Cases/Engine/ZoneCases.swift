import Foundation
import Stratus

/// Zones: invariants 33–38 of `cloudkit-semantics.md` §11 C.
///
/// Every ID starts with `zones.`. Each case makes its own zones and records in fresh storage.
enum ZoneCases {
    static var all: [ConformanceCase] {
        [
            recordInMissingZone, creationRejectedOutsidePrivate, deleteRemovesRecords, defaultZone, capabilities,
            recordNameValidation, fieldNameValidation,
        ]
    }

    /// The error code of a zone item: its own result, or the operation's error.
    private static func code<T>(_ result: Result<T, any Error>?, _ operationError: (any Error)?) -> CKError.Code? {
        Reads.errorCode(result) ?? ckCode(operationError)
    }

    static let recordInMissingZone = ConformanceCase(
        "zones.recordInMissingZone", invariants: [33],
        "Saving or deleting a record in a zone that does not exist fails per item with zoneNotFound and writes nothing."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let ghost = CKRecordZone.ID(zoneName: "Ghost")
        let (g1, g2) = (makeRecord("g1", zone: ghost, ["n": 1]), makeRecord("g2", zone: ghost, ["n": 2]))
        let fine = makeRecord("fine", zone: .default, ["n": 3])
        context.step("save g1, g2 in the missing zone Ghost and 'fine' in the default zone, delete g3 in Ghost")
        let result = Ops.modify(db, save: [g1, g2, fine], delete: [CKRecord.ID(recordName: "g3", zoneID: ghost)])
        try context.expect(
            result.error == nil, "the operation itself succeeds (errors are per item)",
            actual: Reads.describe(result.error))
        for id in [g1.recordID, g2.recordID] {
            try context.expectEqual(
                Reads.errorCode(result.saved[id]), .zoneNotFound,
                "error of saving \(id.recordName) (\(Reads.describe(result.saved[id])))")
        }
        let g3 = CKRecord.ID(recordName: "g3", zoneID: ghost)
        try context.expectEqual(
            Reads.errorCode(result.deleted[g3]), .zoneNotFound,
            "error of deleting g3 (\(Reads.describe(result.deleted[g3])))")
        try context.expect(
            result.record(fine.recordID) != nil, "the default-zone record of the same operation is saved",
            actual: Reads.describe(result.saved[fine.recordID]))

        context.step("fetch zone Ghost: still does not exist")
        let zones = Reads.zones(db, [ghost])
        try context.expectEqual(code(zones.results[ghost], zones.error), .zoneNotFound, "error of fetching zone Ghost")
        context.step("fetch g1: zoneNotFound")
        try Reads.expectAbsent(db, g1.recordID, code: .zoneNotFound, in: context)

        context.step("create zone Ghost: it holds no record")
        _ = try Ops.createZones(db, ["Ghost"], in: context)
        let changes = Ops.zoneChanges(db, ghost, since: nil)
        try context.expect(
            changes.zoneError == nil && changes.error == nil, "the change fetch succeeds",
            actual: Reads.describe(changes.zoneError ?? changes.error))
        try context.expectEqual(Reads.names(changes.changed), [], "records in the new zone Ghost")
        try Reads.expectAbsent(db, g1.recordID, code: .unknownItem, in: context)
    }

    static let creationRejectedOutsidePrivate = ConformanceCase(
        "zones.creationRejectedOutsidePrivate", invariants: [34],
        "Creating a custom zone in the public database, or any zone in the shared database, fails with badDatabase."
    ) { context in
        let container = try context.container()
        let id = CKRecordZone.ID(zoneName: "Custom")
        for (name, db) in [("public", container.publicCloudDatabase), ("shared", container.sharedCloudDatabase)] {
            context.step("create zone Custom in the \(name) database")
            let result = Ops.modifyZones(db, save: [CKRecordZone(zoneID: id)])
            try context.expectEqual(
                code(result.saved[id], result.error), .badDatabase,
                "error of creating a zone in the \(name) database (\(Reads.describe(result.saved[id])), operation: \(Reads.describe(result.error)))"
            )
            context.step("fetch zone Custom in the \(name) database: it does not exist")
            let fetched = Reads.zones(db, [id])
            try context.expect(
                code(fetched.results[id], fetched.error) != nil, "fetching the rejected zone fails",
                actual: Reads.describe(fetched.results[id]))
        }
        context.step("the same zone can be created in the private database")
        _ = try Ops.createZones(container.privateCloudDatabase, ["Custom"], in: context)
    }

    static let deleteRemovesRecords = ConformanceCase(
        "zones.deleteRemovesRecords", invariants: [35],
        "Deleting a zone removes its records: lookups fail with zoneNotFound, and a re-created zone of that name holds none of them."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zones Z and Keep, 5 records in each")
        let zones = try Ops.createZones(db, ["Z", "Keep"], in: context)
        let (z, keep) = (zones[0], zones[1])
        _ = try Ops.saveAll(
            db, (0..<5).map { makeRecord("r\($0)", zone: z, ["n": $0, "word": "doomed"]) }, in: context)
        _ = try Ops.saveAll(
            db, (0..<5).map { makeRecord("r\($0)", zone: keep, ["n": $0, "word": "doomed"]) }, in: context)

        context.step("delete zone Z")
        let deleted = Ops.modifyZones(db, delete: [z])
        try context.expect(
            deleted.error == nil && Reads.errorCode(deleted.deleted[z]) == nil && deleted.deleted[z] != nil,
            "the zone deletion succeeds",
            actual: "\(Reads.describe(deleted.deleted[z])); operation: \(Reads.describe(deleted.error))")

        context.step("look up Z's records and zone")
        let fetched = Reads.fetch(db, (0..<5).map { CKRecord.ID(recordName: "r\($0)", zoneID: z) })
        for (id, result) in fetched.results {
            try context.expectEqual(
                Reads.errorCode(result), .zoneNotFound, "error of fetching \(id.recordName) in the deleted zone")
        }
        try context.expectEqual(fetched.results.count, 5, "fetch results")
        let zoneFetch = Reads.zones(db, [z])
        try context.expectEqual(
            code(zoneFetch.results[z], zoneFetch.error), .zoneNotFound, "error of fetching the deleted zone")
        let query = Ops.query(db, CKQuery(recordType: "Item", predicate: NSPredicate(value: true)), zoneID: z)
        try context.expectEqual(
            ckCode(query.error), .zoneNotFound, "error of querying the deleted zone (\(Reads.describe(query.error)))")
        try context.expectEqual(query.records.count, 0, "records of a query in the deleted zone")

        context.step("zone Keep is untouched")
        let kept = Reads.fetch(db, (0..<5).map { CKRecord.ID(recordName: "r\($0)", zoneID: keep) })
        try context.expect(
            kept.results.count == 5 && kept.results.values.allSatisfy { (try? $0.get()) != nil },
            "every record of zone Keep still exists", actual: kept.results.mapValues { Reads.describe($0) }.description)

        context.step("re-create zone Z: none of the old records")
        _ = try Ops.createZones(db, ["Z"], in: context)
        for i in 0..<5 {
            try Reads.expectAbsent(db, CKRecord.ID(recordName: "r\(i)", zoneID: z), code: .unknownItem, in: context)
        }
        let requery = Ops.query(db, CKQuery(recordType: "Item", predicate: NSPredicate(value: true)), zoneID: z)
        try context.expect(
            requery.error == nil, "a query in the re-created zone succeeds", actual: Reads.describe(requery.error))
        try context.expectEqual(Reads.names(requery.records), [], "records found by a query in the re-created zone")
        let tokenSearch = Ops.query(
            db, CKQuery(recordType: "Item", predicate: NSPredicate(format: "self CONTAINS 'doomed'")))
        try context.expectEqual(
            Set(tokenSearch.records.map(\.recordID.zoneID)), [keep],
            "zones of the records a zone-less search still finds")
        let changes = Ops.zoneChanges(db, z, since: nil)
        try context.expect(
            changes.zoneError == nil && changes.error == nil, "the change fetch of the re-created zone succeeds",
            actual: Reads.describe(changes.zoneError ?? changes.error))
        try context.expectEqual(Reads.names(changes.changed), [], "changed records in the re-created zone")
        try context.expectEqual(
            changes.deleted.map(\.0.recordName), [], "deletions reported by the re-created zone's nil-token fetch")
    }

    static let defaultZone = ConformanceCase(
        "zones.defaultZone", invariants: [36],
        "The default zone ID is (_defaultZone, __defaultOwner__) and the zone exists, and takes records, without being created."
    ) { context in
        context.step("the default zone ID")
        try context.expectEqual(CKRecordZone.ID.default.zoneName, "_defaultZone", "default zone name")
        try context.expectEqual(CKRecordZone.ID.default.ownerName, "__defaultOwner__", "default zone owner")
        try context.expectEqual(CKCurrentUserDefaultName, "__defaultOwner__", "CKCurrentUserDefaultName")
        try context.expectEqual(CKRecordZone.ID(), CKRecordZone.ID.default, "CKRecordZone.ID()")
        try context.expectEqual(CKRecordZone.default().zoneID, CKRecordZone.ID.default, "CKRecordZone.default().zoneID")
        try context.expectEqual(
            CKRecord.ID(recordName: "x").zoneID, CKRecordZone.ID.default, "zone of CKRecord.ID(recordName:)")

        let container = try context.container()
        for (name, db) in [("private", container.privateCloudDatabase), ("public", container.publicCloudDatabase)] {
            context.step("\(name) database: fetch the default zone without creating it")
            let fetched = Reads.zones(db, [.default])
            try context.expect(
                (try? fetched.results[.default]?.get()) != nil, "the default zone exists in the \(name) database",
                actual: "\(Reads.describe(fetched.results[.default])); operation: \(Reads.describe(fetched.error))")
            let every = Reads.zones(db, nil)
            try context.expect(
                (try? every.results[.default]?.get()) != nil,
                "fetching every zone of the \(name) database lists the default zone",
                actual: every.results.keys.map(\.zoneName).description)

            context.step("\(name) database: save and fetch a record in the default zone")
            let saved = try Ops.saveAll(db, [makeRecord("d", zone: .default, ["n": 1])], in: context)[0]
            try context.expectEqual(saved.recordID.zoneID, CKRecordZone.ID.default, "zone of the saved record")
            let record = try Reads.record(db, CKRecord.ID(recordName: "d"), in: context)
            try context.expectEqual(record["n"] as Int?, 1, "field n of the fetched record")
        }
    }

    static let capabilities = ConformanceCase(
        "zones.capabilities", invariants: [37],
        "A custom zone reports exactly fetchChanges and atomic, when created and when fetched; the default zone reports neither."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let expected: CKRecordZone.Capabilities = [.fetchChanges, .atomic]
        context.step("create zone C")
        let id = CKRecordZone.ID(zoneName: "C")
        let created = Ops.modifyZones(db, save: [CKRecordZone(zoneID: id)])
        guard case .success(let zone)? = created.saved[id] else {
            throw context.failure(expected: "zone C created", actual: Reads.describe(created.saved[id]))
        }
        try context.expectEqual(zone.capabilities, expected, "capabilities of the created zone (raw value)")

        context.step("fetch zone C and the default zone by ID")
        let fetched = Reads.zones(db, [id, .default])
        guard let custom = try? fetched.results[id]?.get(), let standard = try? fetched.results[.default]?.get() else {
            throw context.failure(
                expected: "both zones fetched",
                actual:
                    "C: \(Reads.describe(fetched.results[id])); default: \(Reads.describe(fetched.results[.default]))")
        }
        try context.expectEqual(custom.capabilities, expected, "capabilities of fetched zone C (raw value)")
        try context.expect(
            !standard.capabilities.contains(.fetchChanges) && !standard.capabilities.contains(.atomic),
            "the default zone reports neither fetchChanges nor atomic",
            actual: "raw capabilities \(standard.capabilities.rawValue)")

        context.step("fetch every zone")
        let every = Reads.zones(db, nil)
        try context.expectEqual(
            (try? every.results[id]?.get())?.capabilities, expected, "capabilities of zone C among all zones")
        try context.expectEqual(
            (try? every.results[.default]?.get())?.capabilities.intersection([.fetchChanges, .atomic]), [],
            "fetchChanges/atomic of the default zone among all zones")
    }

    static let recordNameValidation = ConformanceCase(
        "zones.recordNameValidation", invariants: [38],
        "Record names that are empty, non-ASCII, longer than 255 characters or start with '_' are rejected with invalidArguments."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["V"], in: context)[0]
        let bad = ["", "héllo", String(repeating: "a", count: 256), "_private", "_"]
        let good = ["ok", String(repeating: "b", count: 255), "with-dash.and:colon", "trailing_"]
        context.step(
            "save records named \(bad.map { $0.count > 20 ? "<\($0.count) chars>" : "'\($0)'" }) and valid names, isAtomic = false"
        )
        let records = (bad + good).map { makeRecord($0, zone: zone, ["n": 1]) }
        let result = Ops.modify(db, save: records, atomic: false)
        try context.expect(
            result.error == nil, "the operation itself succeeds (errors are per item)",
            actual: Reads.describe(result.error))
        for name in bad {
            let id = CKRecord.ID(recordName: name, zoneID: zone)
            try context.expectEqual(
                Reads.errorCode(result.saved[id]), .invalidArguments,
                "error of record name '\(name.prefix(20))' (\(name.count) characters; \(Reads.describe(result.saved[id])))"
            )
        }
        for name in good {
            let id = CKRecord.ID(recordName: name, zoneID: zone)
            try context.expect(
                result.record(id) != nil, "record name '\(name.prefix(20))' (\(name.count) characters) is accepted",
                actual: Reads.describe(result.saved[id]))
        }
        context.step("the zone holds only the valid names")
        let changes = Ops.zoneChanges(db, zone, since: nil)
        try context.expectEqual(Reads.names(changes.changed), good.sorted(), "records stored in the zone")
    }

    static let fieldNameValidation = ConformanceCase(
        "zones.fieldNameValidation", invariants: [38],
        "Field names that start with '_', do not start with a letter, or are longer than 255 characters are rejected with invalidArguments."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["V"], in: context)[0]
        let bad = ["_secret", "1abc", "-dash", String(repeating: "f", count: 256), "_"]
        let good = ["a", "camelCase", "with_underscore", "x1", String(repeating: "g", count: 255)]
        context.step("save one record per field name, isAtomic = false")
        var records: [CKRecord] = []
        for (index, field) in (bad + good).enumerated() {
            records.append(makeRecord("f\(index)", zone: zone, [field: "v"]))
        }
        let result = Ops.modify(db, save: records, atomic: false)
        try context.expect(
            result.error == nil, "the operation itself succeeds (errors are per item)",
            actual: Reads.describe(result.error))
        for (index, field) in (bad + good).enumerated() {
            let id = CKRecord.ID(recordName: "f\(index)", zoneID: zone)
            if index < bad.count {
                try context.expectEqual(
                    Reads.errorCode(result.saved[id]), .invalidArguments,
                    "error of field name '\(field.prefix(20))' (\(field.count) characters; \(Reads.describe(result.saved[id])))"
                )
            } else {
                try context.expect(
                    result.record(id)?[field] as String? == "v",
                    "field name '\(field.prefix(20))' (\(field.count) characters) is accepted",
                    actual: Reads.describe(result.saved[id]))
            }
        }
        context.step("the zone holds only the records with valid field names")
        let changes = Ops.zoneChanges(db, zone, since: nil)
        try context.expectEqual(
            Reads.names(changes.changed), (bad.count..<(bad.count + good.count)).map { "f\($0)" }.sorted(),
            "records stored in the zone")
    }
}
