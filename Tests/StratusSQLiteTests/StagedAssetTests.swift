import Foundation
import StratusTestSupport
import Testing

@testable import Stratus

/// stratusd's staged asset content (decision 0012.8) on every backend: a save adopts staged
/// content in its transaction, a second record of the same request gets its own copy, a later
/// request cannot use the upload again, deleting a record removes its content, and content no save adopted is purged once it is old enough, in every database.
@Suite struct StagedAssetTests {
    typealias Backend = NamespaceTests.Backend

    static let namespace = Namespace(container: "iCloud.com.example.app", environment: .development)
    static let bytes: [UInt8] = Array("staged asset content".utf8)

    func withDatabase(_ backend: Backend, _ body: (Engine, DatabaseContext) throws -> Void) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        let engine = try Engine(backend: try storage.open())
        try body(engine, try engine.database(namespace: Self.namespace, scope: .public))
    }

    /// Saves a record named `name` whose `file` field holds staged content `contentID`; returns
    /// the saved record's asset, or throws the item's error.
    func save(_ name: String, contentID: String, in database: DatabaseContext) throws -> CKAsset {
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
        record["file"] = CKAsset(stagedContentID: contentID, size: Int64(Self.bytes.count))
        let outcome = try database.modifyRecords(
            ModifyRequest(records: [record], deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
        let saved = try outcome.saveResults[0].1.get()
        return try #require(saved["file"] as? CKAsset)
    }

    @Test(arguments: Backend.allCases)
    func aSaveAdoptsStagedContentAndASecondRecordGetsItsOwnCopy(backend: Backend) async throws {
        try await withDatabase(backend) { engine, database in
            let staged = try database.stageAsset(Self.bytes, label: "checksum")
            #expect(staged.hasPrefix("checksum."))
            #expect(try database.isStagedAsset(staged))

            let first = try save("first", contentID: staged, in: database)
            #expect(first.contentID == staged, "adopted under its own ID")
            #expect(first.contentSize == Int64(Self.bytes.count))
            #expect(try !database.isStagedAsset(staged))
            #expect(try engine.purgeStagedAssets(stagedBefore: Date().addingTimeInterval(3600)) == 0)
            #expect(try database.assetContent(staged) == Self.bytes, "adopted content is never purged")

            // The upload was adopted: a later request cannot use it again (it would copy it).
            #expect {
                _ = try save("again", contentID: staged, in: database)
            } throws: { error in
                let error = error as? CKError
                return error?.code == .invalidArguments
                    && error?.localizedDescription.contains("already saved in a record by an earlier request") == true
            }

            // Within one request, a second record using an upload gets its own copy.
            let another = try database.stageAsset(Self.bytes, label: "checksum")
            let pair = ["second", "third"].map { name in
                let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
                record["file"] = CKAsset(stagedContentID: another, size: Int64(Self.bytes.count))
                return record
            }
            let both = try database.modifyRecords(
                ModifyRequest(records: pair, deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
            let adopted = try #require(try both.saveResults[0].1.get()["file"] as? CKAsset)
            let third = try #require(try both.saveResults[1].1.get()["file"] as? CKAsset)
            #expect(adopted.contentID == another)
            let copy = try #require(third.contentID)
            #expect(copy != another && copy.hasPrefix("checksum."), "a copy keeps the label: \(copy)")
            #expect(try database.assetContent(copy) == Self.bytes)

            _ = try database.modifyRecords(
                ModifyRequest(
                    records: [], deletes: [CKRecord.ID(recordName: "first")], policy: .allKeys, atomic: true,
                    clientChangeTokenData: nil))
            #expect(try database.assetContent(staged) == nil, "deleting the record removes its content")
            #expect(try database.assetContent(copy) == Self.bytes, "the copy is the other record's")
            _ = try database.modifyRecords(
                ModifyRequest(
                    records: [], deletes: [CKRecord.ID(recordName: "second")], policy: .allKeys, atomic: true,
                    clientChangeTokenData: nil))
            #expect(try database.assetContent(another) == nil)
            #expect(try database.assetContent(copy) == Self.bytes, "the copy is the third record's")
        }
    }

    @Test(arguments: Backend.allCases)
    func contentNoSaveAdoptedIsPurgedOnceOldEnoughInEveryDatabase(backend: Backend) async throws {
        try await withDatabase(backend) { engine, database in
            let now = Date()
            let other = try engine.database(
                namespace: Namespace(container: "iCloud.com.example.app", environment: .development, owner: "_u1"),
                scope: .private)
            let old = try database.stageAsset(Self.bytes, now: now.addingTimeInterval(-25 * 3600))
            let oldElsewhere = try other.stageAsset(Self.bytes, now: now.addingTimeInterval(-25 * 3600))
            let recent = try database.stageAsset(Self.bytes, now: now.addingTimeInterval(-3600))

            let removed = try engine.purgeStagedAssets(stagedBefore: now.addingTimeInterval(-24 * 3600), limit: 1)
            #expect(removed == 2)
            #expect(try database.assetContent(old) == nil)
            #expect(try other.assetContent(oldElsewhere) == nil)
            #expect(try database.assetContent(recent) == Self.bytes)
            #expect(try database.isStagedAsset(recent))
            #expect(try engine.purgeStagedAssets(stagedBefore: now.addingTimeInterval(-24 * 3600)) == 0)

            #expect {
                _ = try save("late", contentID: old, in: database)
            } throws: { ($0 as? CKError)?.code == .assetFileNotFound }
        }
    }

    @Test func aLabelWithADotIsRefused() async throws {
        try await withDatabase(.memory) { _, database in
            #expect {
                _ = try database.stageAsset(Self.bytes, label: "a.b")
            } throws: { ($0 as? CKError)?.code == .invalidArguments }
        }
    }
}
