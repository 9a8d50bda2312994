import Foundation
import StratusBackend
import StratusTestSupport
import Testing

@testable import Stratus

/// Index builds in bounded batches (decision 0019.7), on every backend: a build cut short
/// resumes from its cursor in another process's engine, saves made while an index is being
/// built are in it, and a build running beside a writer leaves an index that answers exactly.
@Suite struct IndexBuildTests {
    typealias Backend = NamespaceTests.Backend

    static func records(_ range: Range<Int>, zone: CKRecordZone.ID, offset: Int = 0) -> [CKRecord] {
        range.map { i in
            let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r\(i)", zoneID: zone))
            record["k"] = i + offset
            record["title"] = "Title \(i % 37)"
            return record
        }
    }

    static func save(_ records: [CKRecord], in database: CKDatabase) async throws {
        for start in stride(from: 0, to: records.count, by: 400) {
            let op = CKModifyRecordsOperation(
                recordsToSave: Array(records[start..<min(start + 400, records.count)]), recordIDsToDelete: nil)
            op.savePolicy = .allKeys
            let result: Result<Void, any Error> = await withCheckedContinuation { continuation in
                op.modifyRecordsResultBlock = { continuation.resume(returning: $0) }
                database.add(op)
            }
            try result.get()
        }
    }

    static func names(_ format: String, _ args: [Any], in database: CKDatabase) async throws -> [String] {
        let query = CKQuery(recordType: "T", predicate: NSPredicate(format: format, argumentArray: args))
        var names: [String] = []
        var cursor: CKQueryOperation.Cursor?
        repeat {
            let op = cursor.map { CKQueryOperation(cursor: $0) } ?? CKQueryOperation(query: query)
            op.resultsLimit = 150
            let collected = Collected()
            let result: Result<CKQueryOperation.Cursor?, any Error> = await withCheckedContinuation { continuation in
                op.recordMatchedBlock = { _, result in if case .success(let r) = result { collected.add(r) } }
                op.queryResultBlock = { continuation.resume(returning: $0) }
                database.add(op)
            }
            cursor = try result.get()
            names += collected.names
        } while cursor != nil
        return names.sorted()
    }

    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func add(_ record: CKRecord) { lock.withLock { stored.append(record.recordID.recordName) } }
        var names: [String] { lock.withLock { stored } }
    }

    @Test(arguments: Backend.allCases)
    func aBuildCutShortResumesAndHoldsWhatWasSavedMeanwhile(_ backend: Backend) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        let first = CKContainer(identifier: "iCloud.builds", backend: try storage.open()).privateCloudDatabase
        let zone = CKRecordZone.ID(zoneName: "Z")
        _ = try await first.modifyRecordZones(saving: [CKRecordZone(zoneID: zone)], deleting: [])
        try await Self.save(Self.records(0..<1300, zone: zone), in: first)

        // One batch of the build: the index is being built, not ready.
        let context = try first.context()
        #expect(try context.buildIndexBatch(recordType: "T", field: "k", index: .value) == false)
        #expect(try context.buildIndexBatch(recordType: "T", field: "title", index: .match) == false)
        let row = try context.engine.read { try context.loadRecordType("T", $0) }
        #expect(row?.fields["k"]?.valueBuild != nil && row?.fields["k"]?.indexed == false)
        #expect(row?.fields["title"]?.matchBuild != nil)

        // Saves while it is built: new records, and old ones moved to new values.
        try await Self.save(Self.records(1300..<1400, zone: zone), in: first)
        try await Self.save(Self.records(0..<50, zone: zone, offset: 5000), in: first)

        // Another engine on the same store (as after a crash) finishes the builds on demand.
        let second = CKContainer(identifier: "iCloud.builds", backend: try storage.open()).privateCloudDatabase
        let expected = (50..<1400).filter { $0 >= 1000 }.map { "r\($0)" } + (0..<50).map { "r\($0)" }
        #expect(try await Self.names("k >= %@", [1000], in: second) == expected.sorted())
        let titled = (0..<1400).filter { $0 % 37 == 5 }.map { "r\($0)" }.sorted()
        #expect(try await Self.names("title == %@", ["title 5"], in: second) == titled)
        let done = try context.engine.read { try context.loadRecordType("T", $0) }
        #expect(done?.fields["k"]?.indexed == true && done?.fields["k"]?.valueBuild == nil)
        #expect(done?.fields["title"]?.isReady(.match) == true)
    }

    @Test(arguments: Backend.allCases)
    func aBuildBesideAWriterAnswersExactly(_ backend: Backend) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        let database = CKContainer(identifier: "iCloud.builds", backend: try storage.open()).privateCloudDatabase
        let zone = CKRecordZone.ID(zoneName: "Z")
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zone)], deleting: [])
        try await Self.save(Self.records(0..<2000, zone: zone), in: database)
        // A writer saving 1,200 more records (and moving 200 old ones) while the first query
        // planned on `k` builds its index batch by batch.
        async let writer: Void = {
            for start in stride(from: 2000, to: 3200, by: 100) {
                try await Self.save(Self.records(start..<(start + 100), zone: zone), in: database)
            }
            try await Self.save(Self.records(0..<200, zone: zone, offset: 10_000), in: database)
        }()
        _ = try await Self.names("k >= %@", [0], in: database)
        try await writer
        let all = try await Self.names("k >= %@", [0], in: database)
        #expect(all == (0..<3200).map { "r\($0)" }.sorted())
        let moved = try await Self.names("k >= %@", [10_000], in: database)
        #expect(moved == (0..<200).map { "r\($0)" }.sorted())
        #expect(
            try await Self.names("k BETWEEN %@", [[100, 299]], in: database) == (200..<300).map { "r\($0)" }.sorted())
    }
}
