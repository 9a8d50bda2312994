import Foundation

/// The workload shapes of the Kinto peer (`kinto_bench.py`), each timed in seconds per run
/// and reported in records/s as the median of the runs.
enum PeerShape: String, CaseIterable {
    case createSingle = "create-single"
    case createBatch = "create-batch"
    case getByID = "get-by-id"
    case sinceAll = "since-all"
    case sinceHalf = "since-half"
    case sincePaged = "since-paged"

    /// Records per create batch: the peer's `batch_max_requests`.
    static let batchSize = 25
    /// Records per page of `since-paged`.
    static let pageSize = 500

    /// The records a run of this shape handles, of `records` created.
    func count(of records: Int) -> Int { self == .sinceHalf ? records - records / 2 : records }
}

/// The seconds each shape took, run by run, for one target.
struct PeerShapeTimings {
    var label: String
    var seconds: [PeerShape: [Double]] = [:]

    mutating func add(_ shape: PeerShape, _ value: Double) { seconds[shape, default: []].append(value) }

    /// The median rate of `shape` in records/s, or `nil` when it was not measured.
    func rate(_ shape: PeerShape, records: Int) -> Double? {
        guard let runs = seconds[shape], !runs.isEmpty else { return nil }
        return Double(shape.count(of: records)) / Timing.median(runs)
    }

    /// One line per shape: median seconds, records/s and every run.
    func report(records: Int) -> String {
        var lines = ["\(label): \(records) records"]
        for shape in PeerShape.allCases {
            guard let runs = seconds[shape], let rate = rate(shape, records: records) else { continue }
            let each = runs.map { Format.fixed($0, 3) }.joined(separator: ", ")
            lines.append(
                "  \(shape.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) median "
                    + "\(Format.fixed(Timing.median(runs), 3)) s  \(Int(rate.rounded())) records/s   (runs: \(each))")
        }
        return lines.joined(separator: "\n")
    }
}

/// The ~200-byte payload of record `index`, as the peer's: a title and a 200-character blob.
enum PeerPayload {
    static func title(_ index: Int) -> String { "record \(index)" }

    static func blob(_ index: Int) -> String {
        String(String(repeating: String(format: "%08d", index), count: 25).prefix(200))
    }
}
