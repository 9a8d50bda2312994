import Foundation
import Stratus
import StratusSQLite
import Testing

/// Assets on SQLite stores. Fetching a record materializes its assets' content into local
/// files; that read used to open a transaction of its own inside the fetch's, which on a file
/// store waited for a free reader connection while holding one (with `readerCount: 1` every
/// fetch of an uncached asset hung), and on an in-memory store failed silently (the fetched
/// asset's file never existed). The record a save returned had no file either.
@Suite struct AdversarialSQLiteAssetTests {
    static func assetFile(_ content: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-adversarial-\(UUID().uuidString)")
        try Data(content.utf8).write(to: url)
        return url
    }

    /// The outcome of `body`, or `nil` when it does not finish within `seconds` (it keeps
    /// running: a hung fetch cannot be stopped, only detected).
    static func withDeadline<T: Sendable>(
        _ seconds: Double, _ body: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let box = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: done.wait(timeout: .now() + seconds) == .success)
            }
        }
        return finished ? box.get() : nil
    }

    final class Outcome<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Result<T, any Error>?
        func set(_ value: Result<T, any Error>) { lock.withLock { self.value = value } }
        func get() -> Result<T, any Error>? { lock.withLock { value } }
    }

    /// Saves a record with an asset, checks the returned record's file, removes the local copy,
    /// and fetches the record again to check the materialized file. The deadline only detects a
    /// hang (the bug this guards against deadlocked for ever); it is generous so that a loaded
    /// CI machine running the whole suite in parallel never trips it.
    static func roundTrip(_ backend: SQLiteBackend) async throws {
        let database = CKContainer(identifier: "iCloud.adversarial.assets", backend: backend).privateCloudDatabase
        let file = try assetFile("asset content")
        defer { try? FileManager.default.removeItem(at: file) }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p"))
        record["image"] = CKAsset(fileURL: file)
        let saved = try await database.save(record)
        let savedURL = try #require((saved["image"] as? CKAsset)?.fileURL)
        #expect((try? Data(contentsOf: savedURL)) == Data("asset content".utf8))
        try? FileManager.default.removeItem(at: savedURL)

        let outcome = await withDeadline(180) { try await database.record(for: record.recordID) }
        guard let outcome else {
            Issue.record("fetching a record with an uncached asset did not finish within 180 s (a hang)")
            return
        }
        let fetched = try outcome.get()
        let url = try #require((fetched["image"] as? CKAsset)?.fileURL)
        #expect((try? Data(contentsOf: url)) == Data("asset content".utf8))
    }

    @Test(arguments: [1, 4])
    func assetsOnAFileStore(readerCount: Int) async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let backend = try storage.openSQLite(readerCount: readerCount)
        defer { try? backend.close() }
        try await Self.roundTrip(backend)
    }

    @Test func assetsOnAnInMemoryStore() async throws {
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
        defer { try? backend.close() }
        try await Self.roundTrip(backend)
    }
}
