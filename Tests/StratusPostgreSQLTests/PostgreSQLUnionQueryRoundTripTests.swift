import Foundation
import Stratus
import StratusPostgreSQL
import StratusTestSupport
import Testing

/// The round trips of a query whose plan reads several groups of one index (decision 0019.8).
@Suite("PostgreSQL: round trips of a union query")
struct PostgreSQLUnionQueryRoundTripTests {
    /// `tags IN {8 values}` finds the groups of all eight values in one batch of reads, and
    /// reads their first entries in one more: a page costs a handful of round trips, not two or
    /// three for every value.
    @Test func aUnionFindsAndReadsItsGroupsTogether() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let backend = try PostgreSQLBackend(configuration: PostgreSQLTestServer.configuration(storage))
        defer { try? backend.close() }
        let database = CKContainer(identifier: "iCloud.stratus.pg-union-round-trips", backend: backend)
            .privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Tags", ownerName: CKCurrentUserDefaultName)
        let records = (0..<160).map { index in
            let record = CKRecord(
                recordType: "Tagged", recordID: CKRecord.ID(recordName: String(format: "r%03d", index), zoneID: zoneID))
            record["tags"] = ["t\(index % 16)", "u\(index % 7)"]
            record["k"] = index % 5
            return record
        }
        let failures = await TestThread { () -> [String] in
            do { try TestClients.createZones([zoneID], in: database) } catch { return ["\(error)"] }
            return TestClients.modify(database, saving: records, deleting: []).errors.map { "\($0)" }
        }.value()
        #expect(failures.isEmpty, "\(failures.prefix(3))")

        let values = (0..<8).map { "t\($0)" }
        try await aUnionAndAnEqualityAreIntersected(database, backend, zoneID: zoneID, records, values)
        let query = CKQuery(recordType: "Tagged", predicate: NSPredicate(format: "tags IN %@", values))
        // The first query materializes the index (development, decision 0019.6).
        _ = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 20)
        let before = backend.roundTrips
        let page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 20)
        let trips = backend.roundTrips - before
        print("PostgreSQL round trips: a 20-record page of tags IN {8 values}: \(trips)")

        let expected = records.filter { values.contains(($0["tags"] as? [String])?.first ?? "") }
            .map(\.recordID.recordName).sorted().prefix(20)
        #expect(page.matchResults.map(\.0.recordName) == Array(expected))
        // The records' rows and entries, the groups' discovery and their first entries: each a
        // batch, plus the refills of groups read past their first entries.
        #expect(trips <= 8, "\(trips) round trips")
    }

    /// `tags IN {8 values} AND k == 2`, walked together by name (decision 0019.9): the round
    /// trips of a 10-record page (of 16 matches), printed for `Docs/Performance.md`.
    func aUnionAndAnEqualityAreIntersected(
        _ database: CKDatabase, _ backend: PostgreSQLBackend, zoneID: CKRecordZone.ID, _ records: [CKRecord],
        _ values: [String]
    ) async throws {
        let query = CKQuery(
            recordType: "Tagged", predicate: NSPredicate(format: "tags IN %@ AND k == %@", values, NSNumber(value: 2)))
        // The first query materializes both indexes (development, decision 0019.6).
        _ = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 10)
        let before = backend.roundTrips
        let page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 10)
        let trips = backend.roundTrips - before
        print("PostgreSQL round trips: a 10-record page of tags IN {8 values} AND k == 2: \(trips)")

        let expected = records.filter {
            values.contains(($0["tags"] as? [String])?.first ?? "") && ($0["k"] as? NSNumber)?.intValue == 2
        }.map(\.recordID.recordName).sorted()
        #expect(expected.count == 16)
        #expect(page.matchResults.map(\.0.recordName) == Array(expected.prefix(10)))
        #expect(page.queryCursor != nil, "six more matches")
        #expect(trips <= 20, "\(trips) round trips (17 measured, 2026-11-27)")
    }
}
