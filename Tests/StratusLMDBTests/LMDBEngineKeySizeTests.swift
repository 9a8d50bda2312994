import Foundation
import Stratus
import StratusBackend
import StratusLMDB
import StratusTestSupport
import Testing

/// CloudKit's largest names and long string values through the engine on LMDB, whose keys are
/// at most 511 bytes: 255-character zone, record, type and field names, and sort values of
/// hundreds of bytes to several KiB (ASCII, multi-byte UTF-8, and `NUL`s, which the key
/// encoding doubles), so that value-index and back-reference keys pass 511 bytes and land in
/// the backend's long-key buckets. Saves, fetches, sorted queries in both directions with small
/// pages, change fetches from tokens, cascading deletes and plain deletes must all work and
/// give correct, ordered results.
@Suite("LMDB engine key sizes")
struct LMDBEngineKeySizeTests {
    static let zoneName = String(repeating: "z", count: 255)
    static let recordType = "T" + String(repeating: "t", count: 254)
    static let sortField = "F" + String(repeating: "f", count: 254)

    /// A 255-character record name; all share their first 252 characters, so their long
    /// index keys share a bucket.
    static func recordName(_ index: Int) -> String {
        String(repeating: "n", count: 252) + String(format: "%03d", index)
    }

    /// Sort values: unique, many sharing their first 200 bytes (the indexed prefix), some cut
    /// by that prefix inside a multi-byte character.
    static let values: [String] = [
        "a",
        "b",
        String(repeating: "m", count: 200) + "0",
        String(repeating: "m", count: 200) + "1",
        String(repeating: "m", count: 300),
        String(repeating: "m", count: 4_096) + "!",
        String(repeating: "z", count: 4_096),
        String(repeating: "z", count: 4_096) + "a",
        String(repeating: "漢", count: 700),
        String(repeating: "漢", count: 700) + "é",
        "a" + String(repeating: "🌩", count: 80),
        "a" + String(repeating: "🌩", count: 80) + "b",
        String(repeating: "\u{0}", count: 250),
        String(repeating: "\u{0}", count: 250) + "x",
        String(repeating: "\u{0}", count: 3_000),
        "ü" + String(repeating: "\u{0}", count: 220),
    ]

    /// `values` sorted as the engine sorts strings: by UTF-8 bytes.
    static func byteOrder(_ a: String, _ b: String) -> Bool {
        Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }

    /// A new environment, its backend, and the private database of a container over it.
    static func openStore() throws -> (LMDBTestStorage, LMDBBackend, CKDatabase) {
        let storage = try LMDBTestStorage()
        do {
            let backend = try storage.open()
            let database = CKContainer(identifier: "iCloud.stratus.lmdb-key-sizes", backend: backend)
                .privateCloudDatabase
            return (storage, backend, database)
        } catch {
            storage.destroy()
            throw error
        }
    }

    @Test func longestNamesAndLongSortValuesWorkEndToEnd() async throws {
        let (storage, backend, database) = try Self.openStore()
        defer {
            try? backend.close()
            storage.destroy()
        }

        let zoneID = try await database.save(CKRecordZone(zoneName: Self.zoneName)).zoneID
        #expect(zoneID.zoneName.count == 255)
        #expect(try await database.recordZone(for: zoneID).zoneID == zoneID)

        // Save in two batches, so the second rewrites buckets the first created.
        var expected: [String: String] = [:]  // record name → value
        var records: [CKRecord] = []
        for (index, value) in Self.values.enumerated() {
            let record = CKRecord(
                recordType: Self.recordType, recordID: CKRecord.ID(recordName: Self.recordName(index), zoneID: zoneID))
            record[Self.sortField] = value
            records.append(record)
            expected[Self.recordName(index)] = value
        }
        for half in [Array(records.prefix(7)), Array(records.dropFirst(7))] {
            let result = try await database.modifyRecords(saving: half, deleting: [])
            for record in half { _ = try result.saveResults[record.recordID]!.get() }
        }

        // Every record fetches back with its value.
        for (name, value) in expected {
            let record = try await database.record(for: CKRecord.ID(recordName: name, zoneID: zoneID))
            #expect(record[Self.sortField] as String? == value, "\(name.suffix(3))")
        }
        try await expectSortedQuery(database, zoneID: zoneID, expected: expected)
        // The sorted query built the value index; entries of the longest values are beyond
        // LMDB's key size, in buckets.
        #expect(try longKeys(backend) >= 4)

        // All of it through change fetches in small pages.
        let initial = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: nil, resultsLimit: 3)
        #expect(initial.error == nil)
        var mirror: [String: String] = [:]
        apply(initial, to: &mirror)
        #expect(mirror == expected)
        let token = try #require(initial.token)

        // Change some values (to other long ones), delete others; the token resumes exactly.
        let changed = [0, 4, 8, 12].map(Self.recordName)
        let deleted = [1, 5, 9, 13].map(Self.recordName)
        var updates: [CKRecord] = []
        for (offset, name) in changed.enumerated() {
            let record = try await database.record(for: CKRecord.ID(recordName: name, zoneID: zoneID))
            let value = String(repeating: "\u{0}", count: 240) + String(repeating: "é", count: 300 * offset)
            record[Self.sortField] = value
            updates.append(record)
            expected[name] = value
        }
        let modified = try await database.modifyRecords(
            saving: updates, deleting: deleted.map { CKRecord.ID(recordName: $0, zoneID: zoneID) })
        for record in updates { _ = try modified.saveResults[record.recordID]!.get() }
        for name in deleted {
            try modified.deleteResults[CKRecord.ID(recordName: name, zoneID: zoneID)]!.get()
            expected[name] = nil
        }
        let resumed = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: token, resultsLimit: 2)
        #expect(resumed.error == nil)
        #expect(Set(resumed.changes.map(\.recordName)) == Set(changed + deleted))
        apply(resumed, to: &mirror)
        #expect(mirror == expected)
        try await expectSortedQuery(database, zoneID: zoneID, expected: expected)

        // Delete everything: the index is empty again.
        let rest = try await database.modifyRecords(
            saving: [], deleting: expected.keys.map { CKRecord.ID(recordName: $0, zoneID: zoneID) })
        for (_, result) in rest.deleteResults { try result.get() }
        try await expectSortedQuery(database, zoneID: zoneID, expected: [:])
        let final = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: token, resultsLimit: 5)
        #expect(final.error == nil)
        apply(final, to: &mirror)
        #expect(mirror.isEmpty)
        #expect(try longKeys(backend) == 0)
    }

    /// A `deleteSelf` reference between two records with 255-character names (a back-reference
    /// key of over 511 bytes) cascades; so does the zone's deletion of everything in it.
    @Test func cascadeBetweenLongestRecordNames() async throws {
        let (storage, backend, database) = try Self.openStore()
        defer {
            try? backend.close()
            storage.destroy()
        }
        let zoneID = try await database.save(CKRecordZone(zoneName: Self.zoneName)).zoneID

        let parent = CKRecord(
            recordType: Self.recordType, recordID: CKRecord.ID(recordName: Self.recordName(1), zoneID: zoneID))
        var children: [CKRecord] = []
        for index in 2..<6 {
            let child = CKRecord(
                recordType: Self.recordType, recordID: CKRecord.ID(recordName: Self.recordName(index), zoneID: zoneID))
            child["owner"] = CKRecord.Reference(recordID: parent.recordID, action: .deleteSelf)
            children.append(child)
        }
        let survivor = CKRecord(
            recordType: Self.recordType, recordID: CKRecord.ID(recordName: Self.recordName(7), zoneID: zoneID))
        survivor["owner"] = CKRecord.Reference(recordID: parent.recordID, action: .none)
        let saved = try await database.modifyRecords(saving: [parent] + children + [survivor], deleting: [])
        for (_, result) in saved.saveResults { _ = try result.get() }

        #expect(try longKeys(backend) >= children.count)  // back-references, in buckets
        let before = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: nil)
        let token = try #require(before.token)
        _ = try await database.deleteRecord(withID: parent.recordID)
        for child in children {
            await #expect(throws: CKError.self) { try await database.record(for: child.recordID) }
        }
        #expect(try await database.record(for: survivor.recordID).recordID == survivor.recordID)
        let after = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: token, resultsLimit: 2)
        #expect(after.error == nil)
        var deletedNames: [String] = []
        for change in after.changes {
            if case .deleted(let name) = change { deletedNames.append(name) }
        }
        #expect(Set(deletedNames) == Set(([parent] + children).map(\.recordID.recordName)))
    }

    /// Names over CloudKit's limits, or not ASCII, are refused with `invalidArguments` before
    /// anything reaches the store; the store keeps working.
    @Test func namesBeyondTheLimitsAreRefused() async throws {
        let (storage, backend, database) = try Self.openStore()
        defer {
            try? backend.close()
            storage.destroy()
        }

        for name in [String(repeating: "z", count: 256), String(repeating: "区", count: 85)] {
            let error = await #expect(throws: CKError.self) { try await database.save(CKRecordZone(zoneName: name)) }
            #expect(error?.code == .invalidArguments)
        }
        let zoneID = try await database.save(CKRecordZone(zoneName: Self.zoneName)).zoneID
        for name in [String(repeating: "r", count: 256), String(repeating: "é", count: 127)] {
            let record = CKRecord(recordType: Self.recordType, recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
            // Refused as a whole, or per record.
            let error = await #expect(throws: CKError.self) {
                try await database.modifyRecords(saving: [record], deleting: [])
                    .saveResults[record.recordID]!.get()
            }
            #expect(error?.code == .invalidArguments)
        }
        let record = CKRecord(
            recordType: Self.recordType, recordID: CKRecord.ID(recordName: Self.recordName(0), zoneID: zoneID))
        record[Self.sortField] = String(repeating: "🌩", count: 1_000)
        #expect(try await database.save(record)[Self.sortField] as String? == String(repeating: "🌩", count: 1_000))
    }

    /// How many keys of the store are longer than LMDB stores directly (509 bytes).
    private func longKeys(_ backend: LMDBBackend) throws -> Int {
        try backend.read { try $0.scan(KeyRange(prefix: []), limit: 100_000) }.filter { $0.key.count > 509 }.count
    }

    /// Applies a change fetch to `mirror` (record name → sort value).
    private func apply(_ fetch: ZoneChangeFetch, to mirror: inout [String: String]) {
        #expect(fetch.failures.isEmpty)
        for change in fetch.changes {
            switch change {
            case .changed(let record): mirror[record.recordID.recordName] = record[Self.sortField] ?? "(none)"
            case .deleted(let name): mirror[name] = nil
            case .failed: break
            }
        }
    }

    /// Follows a sorted query's cursors, three records a page, ascending and descending, and
    /// expects every record once, in byte order of its value.
    private func expectSortedQuery(
        _ database: CKDatabase, zoneID: CKRecordZone.ID, expected: [String: String]
    ) async throws {
        let ascendingNames = expected.keys.sorted { Self.byteOrder(expected[$0]!, expected[$1]!) }
        for ascending in [true, false] {
            let query = CKQuery(recordType: Self.recordType, predicate: NSPredicate(value: true))
            query.sortDescriptors = [NSSortDescriptor(key: Self.sortField, ascending: ascending)]
            var names: [String] = []
            var values: [String] = []
            var cursor: CKQueryOperation.Cursor?
            var pages = 0
            repeat {
                let page =
                    if let cursor {
                        try await database.records(continuingMatchFrom: cursor, resultsLimit: 3)
                    } else {
                        try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 3)
                    }
                #expect(page.matchResults.count <= 3)
                for (id, result) in page.matchResults {
                    names.append(id.recordName)
                    values.append(try result.get()[Self.sortField] ?? "")
                }
                cursor = page.queryCursor
                pages += 1
            } while cursor != nil && pages < 100
            #expect(names == (ascending ? ascendingNames : ascendingNames.reversed()), "ascending: \(ascending)")
            #expect(values == names.map { expected[$0]! })
        }
    }
}
