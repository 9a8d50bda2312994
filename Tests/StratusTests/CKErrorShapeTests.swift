import Foundation
import Stratus
import Testing

/// `CKError` has the shape CloudKit client code relies on.
@Suite struct CKErrorShapeTests {
    /// A `partialFailure` from a modify that saves one good record and one in a missing zone,
    /// taken from the deprecated completion block (the only place it is delivered).
    private func partialFailure() async throws -> (CKError, CKRecord.ID, CKRecord.ID) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let good = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "good", zoneID: zone))
        let bad = CKRecord(
            recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: CKRecordZone.ID(zoneName: "Missing")))
        let operation = CKModifyRecordsOperation(recordsToSave: [good, bad], recordIDsToDelete: nil)
        operation.isAtomic = false
        let errors = OpsLog<(any Error)?>()
        operation.modifyRecordsCompletionBlock = { _, _, error in errors.append(error) }
        await OpsTestKit.run(operation, on: database)
        let error = try #require(errors.all.first as? CKError)
        return (error, good.recordID, bad.recordID)
    }

    @Test func partialErrorsReadBackInEveryFormClientsUse() async throws {
        let (error, good, bad) = try await partialFailure()
        #expect(error.code == .partialFailure)
        #expect((error as NSError).domain == CKErrorDomain)
        #expect((error as NSError).code == CKError.Code.partialFailure.rawValue)
        let typed = try #require(error.partialErrorsByItemID)
        #expect((typed[bad] as? CKError)?.code == .zoneNotFound)
        #expect(typed[good] == nil)
        let anyHashable = try #require(error.userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: CKError])
        #expect(anyHashable[bad]?.code == .zoneNotFound)
        let byRecordID = try #require(error.userInfo[CKPartialErrorsByItemIDKey] as? [CKRecord.ID: any Error])
        #expect((byRecordID[bad] as? CKError)?.code == .zoneNotFound)
        let byObject = try #require(error.userInfo[CKPartialErrorsByItemIDKey] as? [NSObject: CKError])
        #expect(byObject.count == 1)
    }

    @Test func errorsMatchByCodeAsInCloudKit() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        do {
            _ = try await database.record(for: CKRecord.ID(recordName: "x", zoneID: CKRecordZone.ID(zoneName: "Nope")))
            Issue.record("expected zoneNotFound")
        } catch CKError.zoneNotFound {
            // matched by pattern, as CloudKit code does
        } catch {
            Issue.record("unexpected \(error)")
        }
        let error = CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: NSNumber(value: 2.5)])
        #expect(error.retryAfterSeconds == 2.5)
        #expect((error.userInfo[CKErrorRetryAfterKey] as? NSNumber)?.doubleValue == 2.5)
        #expect(CKError.Code.allCases.count == 37)
        #expect(CKError.Code.participantAlreadyInvited.rawValue == 37)
    }

    @Test func serverRecordChangedCarriesServerClientAndAncestorRecords() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let original = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zone))
        original["title"] = "v1"
        let saved = try await database.save(original)
        let stale = saved.copy() as! CKRecord
        saved["title"] = "v2"
        let current = try await database.save(saved)
        stale["title"] = "mine"
        do {
            _ = try await database.save(stale)
            Issue.record("expected serverRecordChanged")
        } catch let error as CKError where error.code == .serverRecordChanged {
            #expect(error.serverRecord?.recordChangeTag == current.recordChangeTag)
            #expect(error.serverRecord?["title"] as? String == "v2")
            #expect(error.clientRecord?["title"] as? String == "mine")
            #expect(error.ancestorRecord?.recordChangeTag == stale.recordChangeTag)
            #expect(error.localizedDescription.contains("n"))
        }
    }
}
