import Foundation
import Stratus

/// Queries matching ten records in one zone grown from 10,000 to 1,000,000 records (issue 13):
/// for each operator an index answers, the time at each size, and the first sorted query on a
/// field no query has used before against later ones.
struct QueryScaleBenchmark {
    /// The zone sizes, smallest first; the zone grows from one to the next.
    let sizes: [Int]
    /// Timed runs of each query at each size (the median is reported).
    let repetitions: Int
    /// Records per `CKModifyRecordsOperation` while the zone grows.
    let batchSize = 400

    /// Runs every query on `target`, in a new store.
    func run(_ target: any BenchmarkTarget) throws -> QueryScaleReport {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-queries-\(target.name)-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try target.makeStore(in: directory)
        defer { try? store.backend.close() }
        let workload = Workload(store: store)
        let zoneID = try workload.makeZone("queries")
        let cases = QueryScaleCase.all(zoneID: zoneID)

        var report = QueryScaleReport(
            backend: target.name, label: target.label, sizes: sizes, repetitions: repetitions,
            growSeconds: [], queries: cases.map { QueryScaleResult(name: $0.name) }, firstSorted: nil)
        var saved = 0
        for size in sizes {
            Log.step("\(target.name): growing the zone to \(size) records")
            report.growSeconds.append(try Timing.seconds { try grow(workload, zoneID, from: saved, to: size) })
            saved = size
            for (index, queryCase) in cases.enumerated() {
                if report.queries[index].firstSeconds == nil {
                    // The first run of an operator builds its index (decision 0019.7).
                    report.queries[index].firstSeconds = try Timing.seconds {
                        try check(workload, queryCase, zoneID: zoneID)
                    }
                }
                let samples = try (0..<repetitions).map { _ in
                    try Timing.sample { try check(workload, queryCase, zoneID: zoneID) }
                }
                report.queries[index].wallSeconds.append(Timing.median(samples.map(\.wall)))
                report.queries[index].cpuSeconds.append(Timing.median(samples.map(\.cpu)))
                Log.detail("\(queryCase.name): \(Format.milliseconds(report.queries[index].wallSeconds.last!))")
            }
        }
        Log.step("\(target.name): the first query sorted by a new field, at \(saved) records")
        report.firstSorted = try firstSorted(workload, zoneID: zoneID, records: saved)
        return report
    }

    /// Saves records `from..<to`.
    private func grow(_ workload: Workload, _ zoneID: CKRecordZone.ID, from: Int, to: Int) throws {
        var start = from
        while start < to {
            let end = min(start + batchSize, to)
            try workload.saveBatch((start..<end).map { QueryScaleRecords.record($0, zoneID: zoneID) })
            start = end
        }
    }

    /// Runs `queryCase` and checks it returned exactly its records (in order when sorted).
    private func check(_ workload: Workload, _ queryCase: QueryScaleCase, zoneID: CKRecordZone.ID) throws {
        let names = try workload.queryNames(queryCase.query(zoneID: zoneID), zoneID: zoneID, limit: 100)
        let expected = queryCase.expected.map(QueryScaleRecords.name)
        let matches = queryCase.sortField == nil ? names.sorted() == expected.sorted() : names == expected
        guard matches else {
            throw BenchmarkFailure("\(queryCase.name): returned \(names.prefix(12)), expected \(expected)")
        }
    }

    /// The first query sorted by `score` (no query has used the field: its index is built on
    /// the way, unless a schema declares it), then `repetitions` more.
    private func firstSorted(_ workload: Workload, zoneID: CKRecordZone.ID, records: Int) throws -> FirstSortedResult {
        let query = CKQuery(recordType: QueryScaleRecords.type, predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "score", ascending: false)]
        let expected = ((records - 10)..<records).reversed().map(QueryScaleRecords.name)
        func page() throws {
            let names = try workload.queryNames(query, zoneID: zoneID, limit: 10)
            guard names == expected else {
                throw BenchmarkFailure("sorted by score: returned \(names), expected \(expected)")
            }
        }
        let first = try Timing.seconds { try page() }
        let later = try (0..<repetitions).map { _ in try Timing.seconds { try page() } }
        let median = Timing.median(later)
        return FirstSortedResult(records: records, firstSeconds: first, laterSeconds: median, ratio: first / median)
    }
}

extension Workload {
    /// The names of the records of the first page of `query` in `zoneID`.
    func queryNames(_ query: CKQuery, zoneID: CKRecordZone.ID, limit: Int) throws -> [String] {
        let operation = CKQueryOperation(query: query)
        operation.zoneID = zoneID
        operation.resultsLimit = limit
        let state = Locked<(names: [String], failure: String?)>(([], nil))
        operation.recordMatchedBlock = { id, result in
            switch result {
            case .success: state.update { $0.names.append(id.recordName) }
            case .failure(let error): state.update { $0.failure = $0.failure ?? "\(error)" }
            }
        }
        operation.queryResultBlock = { result in
            if case .failure(let error) = result { state.update { $0.failure = $0.failure ?? "\(error)" } }
        }
        run(operation)
        let outcome = state.value
        if let failure = outcome.failure { throw BenchmarkFailure("querying: \(failure)") }
        return outcome.names
    }
}
