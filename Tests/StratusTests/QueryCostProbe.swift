import Foundation
import Stratus
import Testing

/// What the query-cost suites measure: the keys a query's walk reads, counted in the store,
/// once its index is built, as the zone grows.
enum QueryCostProbe {
    /// A store of a given number of records: the counting backend, its database and the zone.
    typealias Store = (Int) async throws -> (ReadCountingBackend, CKDatabase, CKRecordZone.ID)

    /// The keys read by the query `format` over zones of 500 and 4000 records made by
    /// `store`: walked once to build its index, then again counting. Each second walk must
    /// find `expected(count)` records. `suite` names the printed lines.
    static func readsOverGrowingZones(
        _ format: String, _ args: [Any], suite: String, expected: (Int) -> Int, store: Store
    ) async throws -> [Int] {
        var reads: [Int] = []
        for count in [500, 4000] {
            let (backend, database, zone) = try await store(count)
            let query = CKQuery(recordType: "T", predicate: NSPredicate(format: format, argumentArray: args))
            _ = try await OpsTestKit.walk(query, zoneID: zone, limit: 100, in: database)  // builds the index
            backend.reset()
            let records = try await OpsTestKit.walk(query, zoneID: zone, limit: 100, in: database)
            reads.append(backend.keysRead)
            print("\(suite): \(format) over \(count) records: \(backend.keysRead) keys read")
            #expect(records.count == expected(count), "\(format) over \(count) records")
        }
        return reads
    }
}
