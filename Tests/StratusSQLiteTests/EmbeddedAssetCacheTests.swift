import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Testing

/// An embedded container's materialized assets stay bounded (decision 0022, "Embedded too"), on
/// a real SQLite store: the files fetched assets' `fileURL`s name are a cache trimmed to its
/// size, least recently used first, never a file in use.
@Suite("Embedded containers: the materialized asset cache stays bounded")
struct EmbeddedAssetCacheTests {
    static let assetBytes = 100_000

    /// A container on a new SQLite store whose asset cache keeps `limit` bytes, a file in use
    /// for `interval` after it is handed out; `body` gets its private database.
    static func withDatabase(
        limit: Int64, interval: Duration, _ body: (CKDatabase) async throws -> Void
    ) async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let backend = try storage.openSQLite()
        defer { try? backend.close() }
        let container = CKContainer(
            identifier: "iCloud.embedded.asset-cache", backend: backend,
            assetCache: AssetCachePolicy(maximumBytes: limit, inUseInterval: interval))
        try await body(container.privateCloudDatabase)
    }

    @Test func savingAndFetchingMoreThanTheLimitKeepsTheCacheUnderIt() async throws {
        try await Self.withDatabase(limit: 250_000, interval: .zero) { database in
            // Eight 100 kB assets saved one by one (a save hands out its record's file too).
            var files: [URL] = []
            defer {
                if let file = files.first { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            }
            for index in 0..<8 {
                files += try await EmbeddedAssetCache.save(1, from: index, in: database)
                #expect(try Data(contentsOf: files[index]) == EmbeddedAssetCache.content(index))
                #expect(try EmbeddedAssetCache.bytes(in: files[index]) <= 250_000, "after save \(index)")
            }
            // Then fetched one by one, newest first: the asset just returned is whole, the cache
            // stays at or under the limit, and the files the saves evicted (all but a6 and a7)
            // are materialized again.
            for index in (0..<8).reversed() {
                let wasCached = FileManager.default.fileExists(atPath: files[index].path)
                let file = try #require(try await EmbeddedAssetCache.fetch(index, from: database).first)
                #expect(file == files[index])
                #expect(wasCached == (index >= 6), "a\(index)")
                #expect(try Data(contentsOf: file) == EmbeddedAssetCache.content(index))
                #expect(try EmbeddedAssetCache.bytes(in: file) <= 250_000, "after fetch \(index)")
            }
            let directory = files[0].deletingLastPathComponent()
            #expect(try EmbeddedAssetCache.partialFiles(in: directory).isEmpty)
        }
    }

    @Test func theAssetsOfOneRecordStayTogetherOverTheLimit() async throws {
        try await Self.withDatabase(limit: 250_000, interval: .zero) { database in
            // Records of three 100 kB assets each, over the limit together: a record's second
            // and third assets never evict its first.
            let cache = try await EmbeddedAssetCache.save(1, fields: 3, in: database)[0].deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: cache) }
            try await EmbeddedAssetCache.save(1, from: 1, fields: 3, in: database)
            for index in [0, 1, 0] {
                let files = try await EmbeddedAssetCache.fetch(index, fields: 3, from: database)
                for (field, file) in files.enumerated() {
                    #expect(try Data(contentsOf: file) == EmbeddedAssetCache.content(index * 3 + field))
                }
                // Only the record just fetched is left: the other's three files were evicted.
                #expect(try EmbeddedAssetCache.bytes(in: cache) == 300_000)
            }
        }
    }

    @Test func filesHandedOutRecentlyStayUntilTheyAgeOut() async throws {
        try await Self.withDatabase(limit: 250_000, interval: AssetCachePolicy.defaultInUseInterval) { database in
            let cache = try await EmbeddedAssetCache.save(4, in: database)[0].deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: cache) }
            // Every file was handed out by the save just now: in use, kept over the limit.
            #expect(try EmbeddedAssetCache.bytes(in: cache) == 400_000)
            var files: [URL] = []
            for index in 0..<4 { files += try await EmbeddedAssetCache.fetch(index, from: database) }
            // An hour later (what five minutes would do), a1 is fetched again, then a new asset
            // is added: the trim evicts the aged files but a1.
            for file in files {
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: file.path)
            }
            _ = try await EmbeddedAssetCache.fetch(1, from: database)
            try await EmbeddedAssetCache.save(1, from: 4, in: database)
            #expect(try EmbeddedAssetCache.bytes(in: cache) == 200_000)
            #expect(files.map { FileManager.default.fileExists(atPath: $0.path) } == [false, true, false, false])
            #expect(try Data(contentsOf: files[1]) == EmbeddedAssetCache.content(1))
        }
    }
}
