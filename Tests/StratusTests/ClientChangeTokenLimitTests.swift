import Foundation
import Synchronization
import Testing

@testable import Stratus

/// A modify's `clientChangeTokenData` is kept in its zone's row, which every request in the
/// zone reads: it holds at most 16 KiB, and in the public database, which has no zone change
/// fetch to return it to, it is not kept at all.
@Suite struct ClientChangeTokenLimitTests {
    /// The final error of a one-record modify in `zone` carrying `token`.
    private static func save(_ name: String, token: Data, zone: CKRecordZone.ID, in database: CKDatabase) async
        -> (any Error)?
    {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        let operation = CKModifyRecordsOperation(recordsToSave: [record])
        operation.clientChangeTokenData = token
        let failure = Mutex<(any Error)?>(nil)
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { failure.withLock { $0 = error } }
        }
        await OpsTestKit.run(operation, on: database)
        return failure.withLock { $0 }
    }

    @Test func aTokenPastSixteenKibibytesIsRefusedAndNothingIsSaved() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let limit = Validation.maximumClientChangeTokenBytes
        let refused = await Self.save("a", token: Data(count: limit + 1), zone: zone, in: database)
        #expect(OpsTestKit.code(refused) == .limitExceeded)
        #expect((refused as? CKError)?.localizedDescription.contains("\(limit + 1) bytes") == true)
        await #expect(throws: CKError.self) {
            _ = try await database.record(for: CKRecord.ID(recordName: "a", zoneID: zone))
        }

        let kept = Data(repeating: 9, count: limit)
        #expect(await Self.save("b", token: kept, zone: zone, in: database) == nil)
        let context = try database.context()
        let row = try #require(try context.engine.read { try context.loadZone(zone, $0) })
        #expect(row.clientChangeTokenData == Array(kept))
    }

    @Test func thePublicDatabaseKeepsNoToken() async throws {
        let database = OpsTestKit.makeContainer().publicCloudDatabase
        let zone = CKRecordZone.ID.default
        #expect(await Self.save("p", token: Data(repeating: 1, count: 100), zone: zone, in: database) == nil)
        let context = try database.context()
        let row = try #require(try context.engine.read { try context.loadZone(zone, $0) })
        #expect(row.clientChangeTokenData == nil)

        // A token a store kept before goes with the next public write, whoever makes it.
        var old = row
        old.clientChangeTokenData = Array(repeating: 2, count: 1_000)
        try context.engine.write { try context.storeZone(old, zone, $0) }
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "q", zoneID: zone))
        _ = try await OpsTestKit.save([record], in: database)
        let after = try #require(try context.engine.read { try context.loadZone(zone, $0) })
        #expect(after.clientChangeTokenData == nil)
    }
}
