import Foundation
import Stratus

/// The records of the query-scaling benchmark: record `i` of type `Doc` carries fields that
/// put it in a group of ten (`i / 10`) for every indexed operator, so each query below matches
/// exactly ten records of the first 10,000 whatever the zone's size.
enum QueryScaleRecords {
    /// The record type of the queried zone.
    static let type = "Doc"

    /// Record `i` in `zoneID`.
    static func record(_ i: Int, zoneID: CKRecordZone.ID) -> CKRecord {
        let record = CKRecord(recordType: type, recordID: CKRecord.ID(recordName: name(i), zoneID: zoneID))
        let group = i / 10
        record["k"] = group
        record["n"] = i
        record["code"] = "c" + digits(i, 9)
        record["title"] = "title \(group)"
        record["tags"] = ["t\(group)", "g\(i % 3)"]
        record["owner"] = CKRecord.Reference(
            recordID: CKRecord.ID(recordName: "o\(group)", zoneID: zoneID), action: .none)
        record["word"] = "x\(group)"
        record["score"] = Double(i) * 0.5
        return record
    }

    /// The name of record `i`: `d` and nine digits.
    static func name(_ i: Int) -> String { "d" + digits(i, 9) }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}

/// One query of the benchmark and the records it must return.
struct QueryScaleCase: Sendable {
    /// The operator measured, as the table names it.
    let name: String
    /// The predicate, in `NSPredicate` format.
    let format: String
    /// The predicate's arguments.
    let arguments: [any Sendable]
    /// The field sorted by, descending, or `nil` for an unsorted query.
    let sortField: String?
    /// The numbers of the records the query must return, in order when sorted.
    let expected: [Int]

    /// The query, in the type of the benchmark's records.
    func query(zoneID: CKRecordZone.ID) -> CKQuery {
        let predicate = NSPredicate(format: format, argumentArray: arguments.map { $0 as Any })
        let query = CKQuery(recordType: QueryScaleRecords.type, predicate: predicate)
        if let sortField { query.sortDescriptors = [NSSortDescriptor(key: sortField, ascending: false)] }
        return query
    }

    /// The queries: every operator issue 13 names, each matching ten records below 10,000 (the
    /// intersection three).
    static func all(zoneID: CKRecordZone.ID) -> [QueryScaleCase] {
        let ins = (0..<10).map { 17 + 1000 * $0 }
        return [
            QueryScaleCase(
                name: "k == 5 (number)", format: "k == %@", arguments: [5], sortField: nil, expected: Array(50..<60)),
            QueryScaleCase(
                name: "title == 'title 700' (string)", format: "title == %@", arguments: ["title 700"],
                sortField: nil, expected: Array(7000..<7010)),
            QueryScaleCase(
                name: "n >= 5000 AND n < 5010 (range)", format: "n >= %@ AND n < %@", arguments: [5000, 5010],
                sortField: nil, expected: Array(5000..<5010)),
            QueryScaleCase(
                name: "code BEGINSWITH 'c00000301'", format: "code BEGINSWITH %@", arguments: ["c00000301"],
                sortField: nil, expected: Array(3010..<3020)),
            QueryScaleCase(
                name: "n IN {10 values}", format: "n IN %@", arguments: [ins], sortField: nil, expected: ins),
            QueryScaleCase(
                name: "tags CONTAINS 't420' (list)", format: "tags CONTAINS %@", arguments: ["t420"],
                sortField: nil, expected: Array(4200..<4210)),
            QueryScaleCase(
                name: "owner == reference", format: "owner == %@",
                arguments: [
                    CKRecord.Reference(recordID: CKRecord.ID(recordName: "o860", zoneID: zoneID), action: .none)
                ],
                sortField: nil, expected: Array(8600..<8610)),
            QueryScaleCase(
                name: "self CONTAINS 'x250' (tokens)", format: "self CONTAINS %@", arguments: ["x250"],
                sortField: nil, expected: Array(2500..<2510)),
            QueryScaleCase(
                name: "n BETWEEN {6000, 6009} sorted by n", format: "n BETWEEN %@", arguments: [[6000, 6009]],
                sortField: "n", expected: Array((6000..<6010).reversed())),
        ] + unionsAndIntersections
    }

    /// The plans of decision 0019.8: a union over a list's index, the words of a search (any
    /// of them), and an intersection of two groups of a list's index.
    private static var unionsAndIntersections: [QueryScaleCase] {
        [
            QueryScaleCase(
                name: "ANY tags IN {'t333', 'zz', 'zy'} (union)", format: "ANY tags IN %@",
                arguments: [["t333", "zz", "zy"]], sortField: nil, expected: Array(3330..<3340)),
            QueryScaleCase(
                name: "self CONTAINS 'x150 zzz' (any word)", format: "self CONTAINS %@", arguments: ["x150 zzz"],
                sortField: nil, expected: Array(1500..<1510)),
            QueryScaleCase(
                name: "tags CONTAINS 'g1' AND tags CONTAINS 't555' (intersection)",
                format: "tags CONTAINS %@ AND tags CONTAINS %@", arguments: ["g1", "t555"], sortField: nil,
                expected: [5551, 5554, 5557]),
        ]
    }
}
