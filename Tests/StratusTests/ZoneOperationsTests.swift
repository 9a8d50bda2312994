import Foundation
import Stratus
import Testing

/// Zone operations and conveniences: create, fetch, delete; which databases allow them.
@Suite struct ZoneOperationsTests {
    @Test func modifyAndFetchZoneOperationsRoundTrip() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Projects")

        let create = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zoneID)])
        let saved = OpsLog<(CKRecordZone.ID, Result<CKRecordZone, any Error>)>()
        let final = OpsLog<Result<Void, any Error>>()
        create.perRecordZoneSaveBlock = { id, result in saved.append((id, result)) }
        create.modifyRecordZonesResultBlock = { final.append($0) }
        await OpsTestKit.run(create, on: database)
        #expect(saved.all.count == 1)
        let zone = try #require(try saved.all.first?.1.get())
        #expect(zone.zoneID == zoneID)
        #expect(zone.capabilities.contains(.fetchChanges))
        #expect(zone.capabilities.contains(.atomic))
        #expect(OpsTestKit.code(final.all.first) == nil && final.all.count == 1)

        let fetch = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID, CKRecordZone.ID(zoneName: "Missing")])
        let fetched = OpsLog<(CKRecordZone.ID, Result<CKRecordZone, any Error>)>()
        fetch.perRecordZoneResultBlock = { id, result in fetched.append((id, result)) }
        await OpsTestKit.run(fetch, on: database)
        #expect(fetched.all.map(\.0.zoneName) == ["Projects", "Missing"])
        #expect((try? fetched.all[0].1.get())?.capabilities.contains(.fetchChanges) == true)
        #expect(OpsTestKit.code(fetched.all[1].1) == .zoneNotFound)

        let all = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        #expect(all.recordZoneIDs == nil)
        let listed = OpsLog<CKRecordZone.ID>()
        all.perRecordZoneResultBlock = { id, _ in listed.append(id) }
        await OpsTestKit.run(all, on: database)
        #expect(Set(listed.all) == [CKRecordZone.ID.default, zoneID])

        let delete = CKModifyRecordZonesOperation(recordZoneIDsToDelete: [zoneID])
        let deleted = OpsLog<(CKRecordZone.ID, Result<Void, any Error>)>()
        delete.perRecordZoneDeleteBlock = { id, result in deleted.append((id, result)) }
        await OpsTestKit.run(delete, on: database)
        #expect(deleted.all.count == 1)
        #expect(OpsTestKit.code(deleted.all.first?.1) == nil)

        let error = await #expect(throws: CKError.self) { try await database.recordZone(for: zoneID) }
        #expect(error?.code == .zoneNotFound)
    }

    @Test func asyncZoneConveniencesRoundTrip() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let saved = try await database.save(CKRecordZone(zoneName: "A"))
        #expect(saved.zoneID.zoneName == "A")
        #expect(saved.capabilities.contains(.fetchChanges))
        #expect(try await database.recordZone(for: saved.zoneID).zoneID == saved.zoneID)

        let (saveResults, deleteResults) = try await database.modifyRecordZones(
            saving: [CKRecordZone(zoneName: "B"), CKRecordZone(zoneName: "C")], deleting: [saved.zoneID])
        #expect(saveResults.count == 2)
        #expect(deleteResults.count == 1)
        #expect((try? deleteResults[saved.zoneID]?.get()) != nil)

        let names = try await database.allRecordZones().map(\.zoneID.zoneName).sorted()
        #expect(names == ["B", "C", CKRecordZone.ID.defaultZoneName].sorted())

        let results = try await database.recordZones(for: [CKRecordZone.ID(zoneName: "B"), saved.zoneID])
        #expect((try? results[CKRecordZone.ID(zoneName: "B")]?.get()) != nil)
        #expect(OpsTestKit.code(results[saved.zoneID]) == .zoneNotFound)

        #expect(try await database.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "B")).zoneName == "B")
        let error = await #expect(throws: CKError.self) {
            try await database.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "B"))
        }
        #expect(error?.code == .zoneNotFound)
    }

    @Test func completionHandlerZoneConveniencesRoundTrip() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Callbacks")

        let (saved, saveError) = await withCheckedContinuation { continuation in
            database.save(CKRecordZone(zoneID: zoneID)) { zone, error in continuation.resume(returning: (zone, error)) }
        }
        #expect(saveError == nil)
        #expect(saved?.zoneID == zoneID)

        let (fetched, fetchError) = await withCheckedContinuation { continuation in
            database.fetch(withRecordZoneID: zoneID) { zone, error in continuation.resume(returning: (zone, error)) }
        }
        #expect(fetchError == nil)
        #expect(fetched?.zoneID == zoneID)

        let (all, allError) = await withCheckedContinuation { continuation in
            database.fetchAllRecordZones { zones, error in continuation.resume(returning: (zones, error)) }
        }
        #expect(allError == nil)
        #expect(Set(all?.map(\.zoneID) ?? []) == [CKRecordZone.ID.default, zoneID])

        let byID = await withCheckedContinuation { continuation in
            database.fetch(withRecordZoneIDs: [zoneID]) { continuation.resume(returning: $0) }
        }
        #expect((try? byID.get()[zoneID]?.get())?.zoneID == zoneID)

        let (deletedID, deleteError) = await withCheckedContinuation { continuation in
            database.delete(withRecordZoneID: zoneID) { id, error in continuation.resume(returning: (id, error)) }
        }
        #expect(deleteError == nil)
        #expect(deletedID == zoneID)

        let (missing, missingError) = await withCheckedContinuation { continuation in
            database.fetch(withRecordZoneID: zoneID) { zone, error in continuation.resume(returning: (zone, error)) }
        }
        #expect(missing == nil)
        #expect(OpsTestKit.code(missingError) == .zoneNotFound)
    }

    @Test func zonesCannotBeCreatedInThePublicOrSharedDatabase() async throws {
        let container = OpsTestKit.makeContainer()
        for database in [container.publicCloudDatabase, container.sharedCloudDatabase] {
            let error = await #expect(throws: CKError.self) { try await database.save(CKRecordZone(zoneName: "Nope")) }
            #expect(error?.code == .badDatabase)
        }
        let error = await #expect(throws: CKError.self) {
            try await container.publicCloudDatabase.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "Nope"))
        }
        #expect(error?.code == .badDatabase)
        // The public database has its default zone; the shared database has none.
        #expect(try await container.publicCloudDatabase.allRecordZones().map(\.zoneID) == [.default])
        #expect(try await container.sharedCloudDatabase.allRecordZones().isEmpty)
    }

    @Test func partialFailureGoesOnlyToTheDeprecatedZoneCompletionBlock() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let good = CKRecordZone(zoneName: "Good")
        let missing = CKRecordZone.ID(zoneName: "Missing")
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: [good], recordZoneIDsToDelete: [missing])
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?)>()
        operation.modifyRecordZonesResultBlock = { final.append($0) }
        operation.modifyRecordZonesCompletionBlock = { saved, deleted, error in
            completion.append((saved, deleted, error))
        }
        await OpsTestKit.run(operation, on: database)

        #expect(final.all.count == 1)
        #expect(OpsTestKit.code(final.all.first) == nil)
        let (saved, deleted, error) = try #require(completion.all.first)
        #expect(saved?.map(\.zoneID) == [good.zoneID])
        #expect(deleted == [])
        let partial = try #require(error as? CKError)
        #expect(partial.code == .partialFailure)
        let byItem = try #require(partial.userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: CKError])
        #expect(byItem.count == 1)
        #expect(byItem[missing]?.code == .zoneNotFound)
    }

    @Test func deprecatedFetchZonesCompletionBlockGetsZonesByIDAndPartialFailure() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Here", in: database)
        let missing = CKRecordZone.ID(zoneName: "Missing")
        let operation = CKFetchRecordZonesOperation(recordZoneIDs: [zoneID, missing])
        let completion = OpsLog<([CKRecordZone.ID: CKRecordZone]?, (any Error)?)>()
        operation.fetchRecordZonesCompletionBlock = { zones, error in completion.append((zones, error)) }
        await OpsTestKit.run(operation, on: database)
        let (zones, error) = try #require(completion.all.first)
        #expect(zones?.keys.map(\.zoneName) == ["Here"])
        #expect(OpsTestKit.code(error) == .partialFailure)
        #expect(((error as? CKError)?.partialErrorsByItemID?[missing] as? CKError)?.code == .zoneNotFound)
    }

    @Test func deletingAZoneDeletesItsRecords() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Temporary", in: database)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "inside", zoneID: zoneID))
        _ = try await database.save(record)
        _ = try await database.deleteRecordZone(withID: zoneID)

        // While the zone is gone the record's zone is missing; once re-created, the record is.
        let whileGone = try await database.records(for: [record.recordID])
        #expect(OpsTestKit.code(whileGone[record.recordID]) == .zoneNotFound)
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        let afterRecreate = try await database.records(for: [record.recordID])
        #expect(OpsTestKit.code(afterRecreate[record.recordID]) == .unknownItem)
    }

    @Test func aZoneListedTwiceFailsTheWholeRequest() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Twice")
        let error = await #expect(throws: CKError.self) {
            try await database.modifyRecordZones(saving: [zone], deleting: [zone.zoneID])
        }
        #expect(error?.code == .invalidArguments)
        #expect(try await database.allRecordZones().map(\.zoneID) == [.default])
    }

    @Test func cancellationBeforeStartGivesOperationCancelledToTheZoneResultBlocks() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneName: "Never")])
        let perZone = OpsLog<CKRecordZone.ID>()
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<(any Error)?>()
        operation.perRecordZoneSaveBlock = { id, _ in perZone.append(id) }
        operation.modifyRecordZonesResultBlock = { final.append($0) }
        operation.modifyRecordZonesCompletionBlock = { _, _, error in completion.append(error) }
        operation.cancel()
        await OpsTestKit.run(operation, on: database)
        #expect(perZone.all.isEmpty)
        #expect(OpsTestKit.code(final.all.first) == .operationCancelled)
        #expect(OpsTestKit.code(completion.all.first ?? nil) == .operationCancelled)
        #expect(try await database.allRecordZones().map(\.zoneID) == [.default])

        let fetch = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        let fetchFinal = OpsLog<Result<Void, any Error>>()
        fetch.fetchRecordZonesResultBlock = { fetchFinal.append($0) }
        fetch.cancel()
        await OpsTestKit.run(fetch, on: database)
        #expect(OpsTestKit.code(fetchFinal.all.first) == .operationCancelled)
    }
}
