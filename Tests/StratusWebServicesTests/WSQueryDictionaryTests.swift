import Foundation
import Stratus
import StratusWebServices
import Testing

/// CKQuery → query dictionary → the server's `query(from:path:)`: the same records in the same
/// order, run by the engine over a handful of records.
@Suite("Web Services queries, the client direction")
struct WSQueryDictionaryTests {
    /// One predicate shape.
    struct Shape: CustomTestStringConvertible, Sendable {
        let format: String
        let arguments: [any Sendable]
        /// Whether every record may match (system fields every record shares).
        var mayMatchAll = false
        var testDescription: String { format }
    }

    static let paris = CLLocation(latitude: 48.85, longitude: 2.35)
    static let ids = (1...5).map { CKRecord.ID(recordName: "r\($0)") }
    static let userA = CKRecord.ID(recordName: "userA")
    static let userB = CKRecord.ID(recordName: "userB")

    static let shapes: [Shape] = [
        Shape(format: "name == %@", arguments: ["cherry"]),
        Shape(format: "name == %@", arguments: ["CHERRY"]),
        Shape(format: "name != %@", arguments: ["cherry"]),
        Shape(format: "count < 3", arguments: []), Shape(format: "count <= 3", arguments: []),
        Shape(format: "count > 3", arguments: []), Shape(format: "count >= 3", arguments: []),
        Shape(format: "3 > count", arguments: []), Shape(format: "NOT (count < 3)", arguments: []),
        Shape(format: "NOT (count >= 2)", arguments: []), Shape(format: "NOT (name == 'date')", arguments: []),
        Shape(format: "score > 1.0", arguments: []), Shape(format: "count BETWEEN {2, 4}", arguments: []),
        Shape(format: "score == nil", arguments: []), Shape(format: "score != nil", arguments: []),
        Shape(format: "name BEGINSWITH 'B'", arguments: []), Shape(format: "NOT (name BEGINSWITH 'a')", arguments: []),
        Shape(format: "name IN %@", arguments: [["cherry", "date"]]),
        Shape(format: "NOT (name IN %@)", arguments: [["cherry", "date"]]),
        Shape(format: "count IN {1, 5}", arguments: []),
        Shape(format: "tags CONTAINS 'red'", arguments: []), Shape(format: "NOT (tags CONTAINS 'red')", arguments: []),
        Shape(format: "'jam' IN tags", arguments: []), Shape(format: "ANY tags == 'fruit'", arguments: []),
        Shape(format: "ANY tags IN %@", arguments: [["red", "purple"]]),
        Shape(format: "NOT (ANY tags IN %@)", arguments: [["red", "purple"]]),
        Shape(format: "ANY tags BEGINSWITH 'pu'", arguments: []),
        Shape(format: "NOT (ANY tags BEGINSWITH 'r')", arguments: []),
        Shape(format: "nums CONTAINS 2", arguments: []), Shape(format: "ANY nums IN {1, 3}", arguments: []),
        Shape(format: "when > %@", arguments: [Date(timeIntervalSince1970: 2500)]),
        Shape(format: "when <= %@", arguments: [Date(timeIntervalSince1970: 2000)]),
        Shape(format: "data == %@", arguments: [Data([2])]),
        Shape(format: "owner == %@", arguments: [userA]),
        Shape(format: "owner == %@", arguments: [CKRecord.Reference(recordID: userB, action: .none)]),
        Shape(format: "recordID == %@", arguments: [ids[2]]),
        Shape(format: "recordID IN %@", arguments: [[ids[0], ids[3]]]),
        Shape(format: "NOT (recordID == %@)", arguments: [ids[0]]),
        Shape(format: "parent == %@", arguments: [ids[0]]),
        Shape(
            format: "creatorUserRecordID == %@", arguments: [CKRecord.ID(recordName: "_defaultUser")], mayMatchAll: true
        ),
        Shape(format: "lastModifiedUserRecordID != %@", arguments: [userA], mayMatchAll: true),
        Shape(format: "distanceToLocation:fromLocation:(loc, %@) < 10", arguments: [paris]),
        Shape(format: "distanceToLocation:fromLocation:(loc, %@) <= 6000", arguments: [paris]),
        Shape(format: "self CONTAINS 'pie'", arguments: []), Shape(format: "self CONTAINS 'bread jam'", arguments: []),
        Shape(format: "count > 1 AND tags CONTAINS 'fruit' AND NOT (name BEGINSWITH 'e')", arguments: []),
        Shape(format: "TRUEPREDICATE", arguments: [], mayMatchAll: true),
    ]

    /// Five records of type `Item`, r4 and r5 saved after `between`.
    static func fixture() throws -> (WSClientFixture, between: Date) {
        let fixture = try WSClientFixture()
        func item(_ index: Int, _ name: String, _ count: Int, _ score: Double?, _ tags: [String]) -> CKRecord {
            let record = CKRecord(recordType: "Item", recordID: ids[index - 1])
            record["name"] = name
            record["count"] = count
            record["score"] = score
            record["tags"] = tags
            record["when"] = Date(timeIntervalSince1970: Double(index * 1000))
            record["nums"] = [index, index + 1]
            record["data"] = Data([UInt8(index)])
            record["owner"] = CKRecord.Reference(recordID: index % 2 == 0 ? userB : userA, action: .none)
            return record
        }
        let r1 = item(1, "apple pie", 1, 1.5, ["red", "fruit"])
        r1["loc"] = paris
        let r2 = item(2, "Banana bread", 2, 2.5, ["yellow", "fruit"])
        r2["loc"] = CLLocation(latitude: 51.5, longitude: -0.12)
        r2.parent = CKRecord.Reference(recordID: ids[0], action: .none)
        let r3 = item(3, "cherry", 3, 3.5, ["red"])
        r3["loc"] = CLLocation(latitude: 40.7, longitude: -74)
        try fixture.save([r1, r2, r3])
        Thread.sleep(forTimeInterval: 0.01)
        let between = Date()
        Thread.sleep(forTimeInterval: 0.01)
        let r5 = item(5, "elderberry jam", 5, 0.5, ["purple", "fruit", "jam"])
        r5["loc"] = CLLocation(latitude: 48.86, longitude: 2.34)
        try fixture.save([item(4, "date", 4, nil, []), r5])
        return (fixture, between)
    }

    /// `query` as the client sends it and the server reads it back.
    static func roundTrip(_ query: CKQuery, _ translator: WSRecordTranslator) throws -> CKQuery {
        let queries = WSQueryTranslator(translator: translator, zone: .default)
        let json = try WSClientFixture.wire(try queries.dictionary(for: query))
        return try queries.query(from: try JSONValueDecoder().decode(WSQueryDictionary.self, from: json), path: "query")
    }

    /// The names of the records `query` selects, in the engine's order.
    static func names(_ query: CKQuery, _ fixture: WSClientFixture) throws -> [String] {
        try fixture.database.query(query, zoneID: .default, cursor: nil, limit: 0, desiredKeys: nil).records
            .map(\.recordID.recordName)
    }

    @Test(arguments: shapes)
    func aPredicateSelectsTheSameRecordsAfterTheRoundTrip(_ shape: Shape) throws {
        let (fixture, _) = try Self.fixture()
        let original = CKQuery(
            recordType: "Item", predicate: NSPredicate(format: shape.format, argumentArray: shape.arguments))
        let expected = try Self.names(original, fixture)
        #expect(!expected.isEmpty)
        if !shape.mayMatchAll { #expect(expected.count < 5) }
        #expect(try Self.names(Self.roundTrip(original, fixture.translator), fixture) == expected)
    }

    @Test func systemTimestampsAndNowSelectTheSameRecords() throws {
        let (fixture, between) = try Self.fixture()
        for (format, argument) in [
            ("creationDate > %@", between), ("modificationDate < %@", between), ("creationDate < now()", between),
        ] {
            let arguments: [Any] = format.contains("%@") ? [argument] : []
            let original = CKQuery(recordType: "Item", predicate: NSPredicate(format: format, argumentArray: arguments))
            let expected = try Self.names(original, fixture)
            #expect(!expected.isEmpty, "\(format)")
            #expect(try Self.names(Self.roundTrip(original, fixture.translator), fixture) == expected, "\(format)")
        }
    }

    /// The sorts of ``sortsComeBackInTheSameOrder(_:)``, by number (descriptors are not `Sendable`).
    static func descriptors(_ number: Int) -> [NSSortDescriptor] {
        switch number {
        case 0: return [NSSortDescriptor(key: "name", ascending: true)]
        case 1: return [NSSortDescriptor(key: "count", ascending: false)]
        case 2:
            return [
                NSSortDescriptor(key: "creationDate", ascending: false),
                NSSortDescriptor(key: "score", ascending: true),
            ]
        case 3: return [NSSortDescriptor(key: "recordID", ascending: false)]
        default:
            return [CKLocationSortDescriptor(key: "loc", relativeLocation: CLLocation(latitude: 40, longitude: -70))]
        }
    }

    @Test(arguments: 0..<5)
    func sortsComeBackInTheSameOrder(_ number: Int) throws {
        let descriptors = Self.descriptors(number)
        let (fixture, _) = try Self.fixture()
        let original = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        original.sortDescriptors = descriptors
        let roundTripped = try Self.roundTrip(original, fixture.translator)
        #expect(roundTripped.sortDescriptors?.count == descriptors.count)
        let expected = try Self.names(original, fixture)
        #expect(try Self.names(roundTripped, fixture) == expected)
        #expect(expected.count == 5)
    }

    @Test func theDictionaryNamesSystemFieldsAndComparators() throws {
        let query = CKQuery(
            recordType: "Item",
            predicate: NSPredicate(
                format: "creationDate > %@ AND count BETWEEN {1, 2} AND distanceToLocation:fromLocation:(loc, %@) < 2",
                argumentArray: [Date(timeIntervalSince1970: 1), Self.paris]))
        query.sortDescriptors = [NSSortDescriptor(key: "modificationDate", ascending: false)]
        let json = try WSQueryTranslator(translator: WSRecordTranslator()).dictionary(for: query)
        let filters = try #require(json["filterBy"].flatMap { if case .array(let a) = $0 { a } else { nil } })
        #expect(
            filters.map { $0["comparator"] } == [
                "GREATER_THAN", "GREATER_THAN_OR_EQUALS", "LESS_THAN_OR_EQUALS", "NEAR",
            ])
        #expect(filters[0]["systemFieldName"] == "createdTimestamp")
        #expect(filters[0]["fieldValue"] == ["value": 1000, "type": "TIMESTAMP"])
        #expect(filters[3]["distance"] == .double(2000))
        #expect(json["sortBy"] == [["systemFieldName": "modifiedTimestamp", "ascending": false]])
    }

    @Test(arguments: [
        "name ENDSWITH 'e'", "count == 1 OR count == 2", "name BEGINSWITH[c] 'b'", "FALSEPREDICATE",
        "name ==[d] 'cafe'", "NOT (count == 1 AND count == 2)",
    ])
    func aPredicateWithoutAWebServicesFormIsRefusedByName(_ format: String) {
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: format))
        #expect(throws: WSTranslationError.self) {
            try WSQueryTranslator(translator: WSRecordTranslator()).dictionary(for: query)
        }
    }
}
