import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// A remote container's asset cache stays bounded (decision 0022), against a `stratusd` on
/// loopback: least recently used files go first, never a file in use.
@Suite("Remote containers: the asset cache stays bounded")
struct RemoteAssetCacheTests {
    let fixture: RemoteFixture
    let cache: TemporaryDirectory
    static let assetBytes = 100_000

    init() async throws {
        fixture = try await offPool { try RemoteFixture() }
        cache = try TemporaryDirectory(prefix: "remote-asset-cache")
    }

    /// Alice's private database, its fetched assets cached in ``cache`` by `limit` and `interval`.
    func database(limit: Int64, interval: Duration) -> CKDatabase {
        var server = fixture.remoteServer(.session(apiToken: fixture.apiToken, webAuthToken: fixture.aliceSession))
        server.assetCache = RemoteAssetCachePolicy(directory: cache.url, maximumBytes: limit, inUseInterval: interval)
        return CKContainer(identifier: RemoteFixture.container, server: server).privateCloudDatabase
    }

    /// Distinct content number `seed`, ``assetBytes`` long.
    static func content(_ seed: Int) -> Data {
        Data((0..<assetBytes).map { UInt8(truncatingIfNeeded: $0 &* (2 * seed + 3) &+ seed) })
    }

    /// Saves records `a0`… with `fields` assets each, of content `seed` = record × fields + field.
    func save(_ count: Int, fields: Int = 1, in database: CKDatabase) async throws {
        let files = try TemporaryDirectory(prefix: "remote-asset-files")
        defer { try? files.remove() }
        var records: [CKRecord] = []
        for index in 0..<count {
            let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "a\(index)"))
            for field in 0..<fields {
                let file = files.appending("\(index)-\(field).bin")
                try Self.content(index * fields + field).write(to: file)
                record["f\(field)"] = CKAsset(fileURL: file)
            }
            records.append(record)
        }
        let saved = try await database.modifyRecords(saving: records, deleting: [])
        for (_, result) in saved.saveResults { _ = try result.get() }
    }

    /// Fetches record `a<index>` and answers its assets' files, in field order.
    func fetch(_ index: Int, fields: Int = 1, from database: CKDatabase) async throws -> [URL] {
        let record = try await database.record(for: CKRecord.ID(recordName: "a\(index)"))
        return try (0..<fields).map { try #require((record["f\($0)"] as? CKAsset)?.fileURL) }
    }

    /// The cached files (not the lock, not partial files), by name, with their sizes.
    func cached() throws -> [String: Int] {
        var sizes: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: cache.path) where !name.hasPrefix(".") {
            let attributes = try FileManager.default.attributesOfItem(atPath: cache.appending(name).path)
            sizes[name] = (attributes[.size] as? NSNumber)?.intValue ?? 0
        }
        return sizes
    }

    @Test func fetchingMoreThanTheLimitKeepsTheCacheUnderItAndTheReturnedFileReadable() async throws {
        defer { try? cache.remove() }
        let database = database(limit: 250_000, interval: .zero)
        try await save(8, in: database)
        var evictedSome = false
        for index in 0..<8 {
            let file = try #require(try await fetch(index, from: database).first)
            #expect(try Data(contentsOf: file) == Self.content(index), "a\(index)'s file holds its content")
            let sizes = try cached()
            #expect(sizes.values.reduce(0, +) <= 250_000, "after a\(index): \(sizes.values.reduce(0, +)) bytes")
            #expect(sizes[file.lastPathComponent] != nil, "a\(index)'s file is still cached")
            evictedSome = evictedSome || sizes.count < index + 1
        }
        #expect(evictedSome, "800 kB were fetched into a 250 kB cache")
        #expect(try cached().count == 2)
    }

    @Test func theAssetsOfOneAnswerAreKeptTogetherEvenOverTheLimit() async throws {
        defer { try? cache.remove() }
        let database = database(limit: 250_000, interval: .zero)
        try await save(2, fields: 3, in: database)
        let files = try await fetch(0, fields: 3, from: database)
        for (field, file) in files.enumerated() {
            #expect(try Data(contentsOf: file) == Self.content(field), "field f\(field) of the answer just read")
        }
        #expect(try cached().values.reduce(0, +) == 300_000, "in use: over the limit until the next download")
        let next = try await fetch(1, fields: 3, from: database)
        for (field, file) in next.enumerated() {
            #expect(try Data(contentsOf: file) == Self.content(3 + field))
        }
        #expect(Set(try cached().keys) == Set(next.map(\.lastPathComponent)), "the first answer's files went")
    }

    @Test func recentlyHandedOutFilesStayAndTheLeastRecentlyUsedGoFirst() async throws {
        defer { try? cache.remove() }
        let database = database(limit: 350_000, interval: RemoteAssetCachePolicy.defaultInUseInterval)
        try await save(5, in: database)
        var names: [String] = []
        for index in 0..<4 {
            names.append(try #require(try await fetch(index, from: database).first).lastPathComponent)
        }
        #expect(try cached().count == 4, "handed out within five minutes: in use, kept over the limit")
        // What time would do: a0 was used an hour ago, a1 50, a2 40, a3 30 minutes ago.
        for (index, minutes) in [60, 50, 40, 30].enumerated() {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -Double(minutes) * 60)],
                ofItemAtPath: cache.appending(names[index]).path)
        }
        // a1 is fetched again: a cache hit, which makes it the most recently used.
        #expect(try await fetch(1, from: database).first?.lastPathComponent == names[1])
        let partials = [
            (".abandoned.\(UUID())", Date(timeIntervalSinceNow: -7200)), (".writing.\(UUID())", Date()),
        ]
        for (name, date) in partials {
            try Data([1]).write(to: cache.appending(name))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: cache.appending(name).path)
        }
        let newest = try #require(try await fetch(4, from: database).first)
        #expect(try Data(contentsOf: newest) == Self.content(4))
        let sizes = try cached()
        #expect(Set(sizes.keys) == [names[1], names[3], newest.lastPathComponent], "a0 and a2 were the oldest")
        #expect(sizes.values.reduce(0, +) <= 350_000)
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(!left.contains(partials[0].0), "a crashed writer's partial file is removed")
        #expect(left.contains(partials[1].0), "a partial file being written is left alone")
    }

    @Test func twoContainersOnOneCacheFetchTheSameAssetsAtOnce() async throws {
        defer { try? cache.remove() }
        let writer = database(limit: 250_000, interval: RemoteAssetCachePolicy.defaultInUseInterval)
        try await save(6, in: writer)
        let readers = [writer, database(limit: 250_000, interval: RemoteAssetCachePolicy.defaultInUseInterval)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, reader) in readers.enumerated() {
                group.addTask {
                    for index in (0..<6).map({ number == 0 ? $0 : 5 - $0 }) {
                        let file = try #require(try await fetch(index, from: reader).first)
                        #expect(try Data(contentsOf: file) == Self.content(index), "reader \(number), a\(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try cached().count == 6, "all six were handed out within five minutes: in use")
        let partials = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
            $0.hasPrefix(".") && $0 != ".lock"
        }
        #expect(partials.isEmpty, "no partial file is left behind: \(partials)")
    }

    /// The asset downloads the server has logged so far.
    func downloads() -> Int {
        fixture.server.standardError.components(separatedBy: "\n").filter { $0.contains("/assets/1/download/") }.count
    }

    @Test func twoProcessesShareTheCacheWhileItIsTrimmed() async throws {
        defer { try? cache.remove() }
        let database = database(limit: 250_000, interval: RemoteAssetCachePolicy.defaultInUseInterval)
        try await save(18, in: database)
        // a0…a11 are cached and then unused for an hour: evictable by the first trim.
        for index in 0..<12 { _ = try await fetch(index, from: database) }
        for name in try cached().keys {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: cache.appending(name).path)
        }
        let expected = try TemporaryDirectory(prefix: "remote-asset-expected")
        defer { try? expected.remove() }
        for index in 0..<18 { try Self.content(index).write(to: expected.appending("a\(index).bin")) }
        let account = try RemoteProbeAccount(
            apiToken: fixture.apiToken, webAuthToken: fixture.aliceSession, container: RemoteFixture.container,
            in: expected)
        // Each process downloads new content (a trim follows) between hand-outs of the aged files
        // the other process's trims are evicting, in opposite orders.
        let orders = [
            [12, 0, 1, 2, 13, 3, 4, 5, 14, 6, 7, 8, 9, 10, 11], [15, 11, 10, 9, 16, 8, 7, 6, 17, 5, 4, 3, 2, 1, 0],
        ]
        let downloadsBefore = downloads()
        let readers = try orders.map { order in
            try TestProbe.launch(
                ["remote-asset-reader"] + account.arguments(server: fixture.server.baseURL)
                    + [cache.path, "250000", expected.path] + order.map { "a\($0)" })
        }
        for (number, reader) in readers.enumerated() {
            let outcome = await reader.finish()
            #expect(outcome.status == 0, "reader \(number): \(outcome.errorOutput)")
            #expect(outcome.output.contains("ok 15 assets read"), "reader \(number): \(outcome.output)")
        }
        #expect(try cached().count == 18, "every file was handed out within five minutes: all in use")
        // The first trim, after a process's first download, found the 12 aged files untouched and
        // evicted at least 10 of them (to 250 kB); both processes then fetched each again.
        let downloaded = downloads() - downloadsBefore
        #expect(downloaded >= 6 + 10, "the new assets and the evicted aged ones were downloaded: \(downloaded)")
        let partials = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
            $0.hasPrefix(".") && $0 != ".lock"
        }
        #expect(partials.isEmpty, "no partial file is left behind: \(partials)")
    }
}
