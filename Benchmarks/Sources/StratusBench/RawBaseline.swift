/// The rates of one raw-baseline run: every method it measured, and the fastest insert and the
/// fastest read, which the ratios of the CloudKit-level figures use (a ceiling, as the baseline
/// is meant to be).
struct RawBaseline: Codable, Sendable {
    /// One way of inserting or reading the rows, timed.
    struct Method: Codable, Sendable {
        /// What was done, for people (`binary COPY`, `mdb_put per key`, …).
        var name: String
        /// Seconds, the commit included.
        var seconds: Double
        /// Process CPU seconds (of this process only: a server's work is not in it).
        var cpuSeconds: Double
        /// Rows per second.
        var perSecond: Double

        /// A method of `rows` rows timed by `sample`.
        init(name: String, rows: Int, sample: Timing.Sample) {
            self.name = name
            seconds = sample.wall
            cpuSeconds = sample.cpu
            perSecond = Double(rows) / sample.wall
        }
    }

    /// Rows inserted and read.
    var rows: Int
    /// Every insert method measured, in the order they ran.
    var inserts: [Method]
    /// Every read method measured, in the order they ran.
    var reads: [Method]
    /// The fastest insert method: the one below.
    var insertMethod: String
    /// The fastest read method: the one below.
    var readMethod: String
    /// Seconds for the inserts and their commit.
    var insertSeconds: Double
    /// Seconds for the point reads.
    var readSeconds: Double
    /// Process CPU seconds for the inserts and their commit.
    var insertCPUSeconds: Double
    /// Process CPU seconds for the point reads.
    var readCPUSeconds: Double
    /// Rows inserted per second.
    var insertsPerSecond: Double
    /// Point reads per second.
    var readsPerSecond: Double

    /// A baseline that measured each of `inserts` and `reads` (at least one of each).
    init(rows: Int, inserts: [Method], reads: [Method]) {
        self.rows = rows
        self.inserts = inserts
        self.reads = reads
        let insert = inserts.min { $0.seconds < $1.seconds }
        let read = reads.min { $0.seconds < $1.seconds }
        insertMethod = insert?.name ?? "none"
        readMethod = read?.name ?? "none"
        insertSeconds = insert?.seconds ?? 0
        readSeconds = read?.seconds ?? 0
        insertCPUSeconds = insert?.cpuSeconds ?? 0
        readCPUSeconds = read?.cpuSeconds ?? 0
        insertsPerSecond = insert?.perSecond ?? 0
        readsPerSecond = read?.perSecond ?? 0
    }

    /// A baseline of `rows` rows with one insert method and one read method.
    init(rows: Int, insert: Timing.Sample, read: Timing.Sample, insertMethod: String, readMethod: String) {
        self.init(
            rows: rows, inserts: [Method(name: insertMethod, rows: rows, sample: insert)],
            reads: [Method(name: readMethod, rows: rows, sample: read)])
    }

    /// The median of several runs' timings, method by method; the fastest median of each kind
    /// is the one used.
    static func median(of runs: [RawBaseline]) -> RawBaseline {
        let rows = runs.first?.rows ?? 0
        func medians(_ methods: (RawBaseline) -> [Method]) -> [Method] {
            (runs.first.map(methods) ?? []).map { first in
                let same = runs.flatMap(methods).filter { $0.name == first.name }
                return Method(
                    name: first.name, rows: rows,
                    sample: Timing.Sample(
                        wall: Timing.median(same.map(\.seconds)), cpu: Timing.median(same.map(\.cpuSeconds))))
            }
        }
        return RawBaseline(rows: rows, inserts: medians(\.inserts), reads: medians(\.reads))
    }
}
