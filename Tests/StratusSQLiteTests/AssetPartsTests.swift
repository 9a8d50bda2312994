import Foundation
import StratusTestSupport
import Testing

@testable import Stratus

/// Asset content in 512 KiB parts (decision 0015) on every backend: staged multi-part content
/// is adopted, copied, read part by part and purged whole; content stored as one value before
/// parts existed still reads back whole.
@Suite struct AssetPartsTests {
    typealias Backend = NamespaceTests.Backend

    static let namespace = Namespace(container: "iCloud.com.example.app", environment: .development)
    /// Three full parts and a 3-byte last one.
    static let bytes: [UInt8] = (0..<(3 * AssetParts.partSize + 3)).map { UInt8(truncatingIfNeeded: $0 &* 7 >> 3) }

    func withDatabase(_ backend: Backend, _ body: (Engine, DatabaseContext) throws -> Void) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        let engine = try Engine(backend: try storage.open())
        try body(engine, try engine.database(namespace: Self.namespace, scope: .public))
    }

    /// Every part of `contentID` read one at a time, as stratusd's download does.
    func partByPart(_ contentID: String, in database: DatabaseContext) throws -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var index: Int64 = 0
        while let part = try database.assetContentPart(contentID, index: index) {
            parts.append(part.bytes)
            guard part.more else { break }
            index += 1
        }
        return parts
    }

    @Test(arguments: Backend.allCases)
    func multiPartContentIsAdoptedCopiedAndReadPartByPart(backend: Backend) async throws {
        try await withDatabase(backend) { _, database in
            let staged = try database.stageAsset(Self.bytes, label: "sum")
            #expect(try database.assetContent(staged) == Self.bytes)
            let parts = try partByPart(staged, in: database)
            #expect(parts.map(\.count) == [AssetParts.partSize, AssetParts.partSize, AssetParts.partSize, 3])
            #expect(Array(parts.joined()) == Self.bytes)

            // Two records of one request: the first adopts the upload, the second gets a copy.
            let records = ["first", "second"].map { name in
                let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
                record["file"] = CKAsset(stagedContentID: staged, size: Int64(Self.bytes.count))
                return record
            }
            let outcome = try database.modifyRecords(
                ModifyRequest(
                    records: records, deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
            var contentIDs: [String] = []
            for (id, result) in outcome.saveResults {
                let saved = try #require(try result.get()["file"] as? CKAsset)
                let contentID = try #require(saved.contentID)
                contentIDs.append(contentID)
                #expect(saved.contentSize == Int64(Self.bytes.count))
                #expect(try database.assetContent(contentID) == Self.bytes, "\(id.recordName): \(contentID)")
            }
            #expect(contentIDs.first == staged && Set(contentIDs).count == 2)
        }
    }

    @Test(arguments: Backend.allCases)
    func purgedMultiPartContentLeavesNoPart(backend: Backend) async throws {
        try await withDatabase(backend) { engine, database in
            let old = try database.stageAsset(Self.bytes, now: Date().addingTimeInterval(-25 * 3600))
            #expect(try engine.purgeStagedAssets(stagedBefore: Date().addingTimeInterval(-24 * 3600)) == 1)
            for index: Int64 in 0...3 {
                #expect(try database.assetContentPart(old, index: index) == nil, "part \(index)")
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func contentStoredAsOneValueBeforePartsStillReadsWhole(backend: Backend) async throws {
        try await withDatabase(backend) { engine, database in
            // A store written before decision 0015: 2 MiB + 1 in one value at the asset key.
            let legacy: [UInt8] = (0..<(2 << 20 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let contentID = UUID().uuidString
            try engine.writeLeavingGeneration { txn in try txn.set(database.keys.asset(contentID), legacy) }
            #expect(try database.assetContent(contentID) == legacy)
            #expect(try partByPart(contentID, in: database) == [legacy], "one part, with nothing after it")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID())")
            defer { try? FileManager.default.removeItem(at: file) }
            let copied = try engine.read { txn in try database.assetParts.copy(contentID, to: file, txn) }
            #expect(copied)
            #expect(try Data(contentsOf: file) == Data(legacy))
        }
    }
}
