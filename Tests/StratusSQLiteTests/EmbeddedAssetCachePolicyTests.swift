import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Testing

/// The public set-up of an embedded container's asset cache (decision 0022, issue 12):
/// `CKContainer(identifier:backend:environment:logger:assetCache:)` with an
/// `AssetCachePolicy` bounds the files fetched assets' `fileURL`s name, on a real SQLite store.
@Suite("Embedded containers: the asset cache set in code")
struct EmbeddedAssetCachePolicyTests {
    @Test func theDefaultsAreDecision0022s() {
        let policy = AssetCachePolicy()
        #expect(policy.maximumBytes == 512 << 20)
        #expect(policy.inUseInterval == .seconds(300))
        // Nonsense sizes and times are clamped.
        let clamped = AssetCachePolicy(maximumBytes: -5, inUseInterval: .seconds(-1))
        #expect(clamped.maximumBytes == 1 && clamped.inUseInterval == .zero)
    }

    @Test func aContainerWithRoomForOneAssetKeepsOnlyTheLastOneFetched() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let backend = try storage.openSQLite()
        defer { try? backend.close() }
        // Room for one 100 kB asset, none kept for its in-use time.
        let container = CKContainer(
            identifier: "iCloud.embedded.asset-policy", backend: backend,
            assetCache: AssetCachePolicy(maximumBytes: 150_000, inUseInterval: .zero))
        let database = container.privateCloudDatabase
        var saved: [URL] = []
        defer {
            if let file = saved.first { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        }
        for index in 0..<3 {
            saved += try await EmbeddedAssetCache.save(1, from: index, in: database)
            #expect(try EmbeddedAssetCache.bytes(in: saved[index]) == 100_000, "after save \(index)")
        }
        let cache = saved[0].deletingLastPathComponent()
        for index in [0, 2, 1] {
            let file = try #require(try await EmbeddedAssetCache.fetch(index, from: database).first)
            #expect(try Data(contentsOf: file) == EmbeddedAssetCache.content(index))
            // Only the file just handed out is left: every other was evicted.
            #expect(try EmbeddedAssetCache.bytes(in: cache) == 100_000, "after fetch \(index)")
            for other in saved where other != file {
                #expect(!FileManager.default.fileExists(atPath: other.path), "a\(index)")
            }
        }
    }
}
