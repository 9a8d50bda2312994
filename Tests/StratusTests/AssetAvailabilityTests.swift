import Foundation
import Testing

@testable import Stratus

/// A fetched asset whose content cannot be copied to a local file has a `nil` `fileURL`
/// (CloudKit's mark of content not available locally), never a URL of a missing file; the
/// record can still be saved again.
@Suite struct AssetAvailabilityTests {
    @Test func anAssetWhoseContentIsGoneHasNoFileURL() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("asset-\(UUID().uuidString)")
        try Data("content".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p", zoneID: zoneID))
        record["image"] = CKAsset(fileURL: file)
        record["title"] = "first"
        try await OpsTestKit.save([record], in: database)

        let fetched = try await database.record(for: record.recordID)
        let asset = try #require(fetched["image"] as? CKAsset)
        let cached = try #require(asset.fileURL)
        #expect(try Data(contentsOf: cached) == Data("content".utf8))
        let contentID = try #require(asset.storedContent?.contentID)

        // The content leaves the store (damage, or a store restored without it) and the local
        // copy is gone.
        let context = try database.context()
        try context.engine.write { txn in try txn.clear(context.keys.asset(contentID)) }
        try FileManager.default.removeItem(at: cached)

        let again = try await database.record(for: record.recordID)
        let unavailable = try #require(again["image"] as? CKAsset)
        #expect(unavailable.fileURL == nil)

        // Saving the record again (every key) keeps the asset field as it was.
        again["title"] = "second"
        let results = await AdversarialKit.modify(database, saving: [again], policy: .allKeys)
        #expect(OpsTestKit.code(results.saves[record.recordID]) == nil)
        let saved = try await database.record(for: record.recordID)
        #expect(saved["title"] as? String == "second")
        #expect((saved["image"] as? CKAsset)?.storedContent?.contentID == contentID)
    }
}
