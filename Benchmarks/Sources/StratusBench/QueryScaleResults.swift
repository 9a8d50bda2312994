/// The query-scaling results of one backend.
struct QueryScaleReport: Codable {
    /// The backend's name.
    var backend: String
    /// What exactly was measured.
    var label: String
    /// The zone sizes, smallest first.
    var sizes: [Int]
    /// Timed runs of each query at each size.
    var repetitions: Int
    /// Seconds spent growing the zone to each size (indexes the queries built are maintained).
    var growSeconds: [Double]
    /// One result per query.
    var queries: [QueryScaleResult]
    /// The first query sorted by a field no query had used.
    var firstSorted: FirstSortedResult?
}

/// One query's times at each zone size.
struct QueryScaleResult: Codable {
    /// The operator, as the table names it.
    var name: String
    /// The first run at the smallest size (it builds the index the query needs).
    var firstSeconds: Double?
    /// Median wall-clock seconds per size.
    var wallSeconds: [Double] = []
    /// Median process CPU seconds per size.
    var cpuSeconds: [Double] = []

    /// The time at the largest size over the time at the smallest (the target is ≤ 1.5).
    var ratio: Double? {
        guard let first = wallSeconds.first, let last = wallSeconds.last, first > 0 else { return nil }
        return last / first
    }

    /// The same ratio in CPU seconds, steadier on a loaded machine.
    var cpuRatio: Double? {
        guard let first = cpuSeconds.first, let last = cpuSeconds.last, first > 0 else { return nil }
        return last / first
    }
}

/// The first query sorted by a new field, against later ones.
struct FirstSortedResult: Codable {
    /// Records in the zone.
    var records: Int
    /// The first query's seconds.
    var firstSeconds: Double
    /// The median of the later queries.
    var laterSeconds: Double
    /// First ÷ later (the target with a declared index is ≤ 2).
    var ratio: Double
}

/// The Markdown table of the query-scaling results.
enum QueryScaleTable {
    /// One table per backend: a row per query, a column per size, the ratio last.
    static func markdown(_ reports: [QueryScaleReport]) -> String {
        var lines: [String] = []
        for report in reports {
            lines.append(
                "**\(report.backend)** — \(report.label); median of \(report.repetitions) runs, ten matches each")
            lines.append("")
            let sizes = report.sizes.map { Format.compact($0) }
            let last = sizes.last ?? ""
            let first = sizes.first ?? ""
            lines.append(
                "| Query (ms) | first run at \(first) | " + sizes.joined(separator: " | ")
                    + " | \(last) ÷ \(first) | CPU ratio |")
            lines.append("|---|" + String(repeating: "---:|", count: sizes.count + 3))
            for query in report.queries {
                let cells = query.wallSeconds.map(Format.milliseconds)
                lines.append(
                    "| `\(query.name)` | \(query.firstSeconds.map(Format.milliseconds) ?? "—") | "
                        + cells.joined(separator: " | ")
                        + " | \(query.ratio.map { Format.fixed($0, 2) } ?? "—") | \(query.cpuRatio.map { Format.fixed($0, 2) } ?? "—") |"
                )
            }
            lines.append("")
            let grow = zip(report.sizes, report.growSeconds).map { "\(Format.compact($0)): \(Format.fixed($1, 1)) s" }
            lines.append("Growing the zone: " + grow.joined(separator: ", ") + ".")
            if let sorted = report.firstSorted {
                lines.append(
                    "First query sorted by a new field at \(Format.compact(sorted.records)) records: "
                        + "\(Format.milliseconds(sorted.firstSeconds)) ms, later \(Format.milliseconds(sorted.laterSeconds)) ms "
                        + "(\(Format.fixed(sorted.ratio, 1))×).")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}
