/// The Markdown table of a run: one row per measurement, one column per backend, with each
/// target's verdict.
struct TableReport {
    /// The run to show.
    let report: BenchmarkReport

    /// The targets of the issue.
    enum Target {
        /// Saves ÷ raw inserts must be at least this.
        static let saveRatio = 0.33
        /// Drain ÷ raw reads must be at least this.
        static let drainRatio = 0.5
        /// Largest-history ÷ smallest-history fetch time must be at most this.
        static let syncRatio = 1.2
        /// Last page ÷ first page must be at most this.
        static let pageRatio = 1.2
        /// Peak memory of a drain must stay under this, in MiB.
        static let peakMiB = 200.0
    }

    /// The table, in Markdown.
    var markdown: String {
        let backends = report.backends
        var rows: [[String]] = []
        func row(_ label: String, _ cell: (BackendReport) -> String) {
            rows.append([label] + backends.map(cell))
        }
        let sizes = report.sizes
        row("Raw inserts, one txn (rows/s)") { Format.integer($0.raw.insertsPerSecond) }
        row("Raw point reads, one txn (reads/s)") { Format.integer($0.raw.readsPerSecond) }
        row("… raw insert used for the ratios (the fastest measured)") { $0.raw.insertMethod }
        row("… raw read used for the ratios (the fastest measured)") { $0.raw.readMethod }
        if backends.contains(where: { $0.raw.inserts.count > 1 || $0.raw.reads.count > 1 }) {
            row("… other raw inserts measured (rows/s)") { TableReport.others($0.raw.inserts, $0.raw.insertMethod) }
            row("… other raw reads measured (reads/s)") { TableReport.others($0.raw.reads, $0.raw.readMethod) }
        }
        row("Engine's key pattern replayed via the SPI: saves (records/s)") {
            Format.integer($0.spiReplay.savesPerSecond)
        }
        row("Engine's key pattern replayed via the SPI: drain (records/s)") {
            Format.integer($0.spiReplay.drainsPerSecond)
        }
        row("Save \(Format.integer(Double(sizes.savedRecords))) records, \(sizes.batchSize)/op (records/s)") {
            Format.integer($0.save.recordsPerSecond)
        }
        row("… of which building the CKRecords (share of the time)") {
            Format.fixed($0.save.buildSeconds / $0.save.seconds * 100, 0) + " %"
        }
        row("→ save ÷ raw inserts measured at the start (CPU)") {
            Format.fixed($0.save.ratioToRaw, 3) + " (CPU \(Format.fixed($0.save.cpuRatioToRaw, 3)))"
        }
        row("→ save ÷ raw inserts measured just before it, median of the pairs (target ≥ \(Target.saveRatio))") {
            verdict(Format.fixed($0.save.pairedRatioToRaw, 3), $0.save.pairedRatioToRaw >= Target.saveRatio)
        }
        row("→ save ÷ SPI replay (the CloudKit layer's share)") {
            Format.fixed($0.save.recordsPerSecond / $0.spiReplay.savesPerSecond, 3)
        }
        row("Drain the zone, nil token (records/s)") { Format.integer($0.drain.recordsPerSecond) }
        row("→ drain ÷ raw reads measured at the start (CPU)") {
            Format.fixed($0.drain.ratioToRaw, 3) + " (CPU \(Format.fixed($0.drain.cpuRatioToRaw, 3)))"
        }
        row("→ drain ÷ raw reads measured just before it, median of the pairs (target ≥ \(Target.drainRatio))") {
            verdict(Format.fixed($0.drain.pairedRatioToRaw, 3), $0.drain.pairedRatioToRaw >= Target.drainRatio)
        }
        row("→ drain ÷ SPI replay (the CloudKit layer's share)") {
            Format.fixed($0.drain.recordsPerSecond / $0.spiReplay.drainsPerSecond, 3)
        }
        for (index, size) in sizes.historySizes.enumerated() {
            row(
                "Fetch \(Format.integer(Double(sizes.incrementalChanges))) changes, history \(Format.compact(size)) (ms)"
            ) {
                index < $0.incrementalSync.points.count
                    ? Format.milliseconds($0.incrementalSync.points[index].seconds) : "–"
            }
        }
        let largest = Format.compact(sizes.historySizes.last ?? 0)
        let smallest = Format.compact(sizes.historySizes.first ?? 0)
        row("→ \(largest) ÷ \(smallest) (target ≤ \(Target.syncRatio))") {
            verdict(
                Format.fixed($0.incrementalSync.ratio, 2) + " (CPU \(Format.fixed($0.incrementalSync.cpuRatio, 2)))",
                $0.incrementalSync.ratio <= Target.syncRatio)
        }
        row("First sorted query, builds the index (ms)") { Format.milliseconds($0.paging.firstQuerySeconds) }
        row("Query page 1, limit \(sizes.pageSize) (ms, median)") { Format.milliseconds($0.paging.firstPageSeconds) }
        row("Query page \(Format.integer(Double(sizes.lastPage))) via its cursor (ms, median)") {
            Format.milliseconds($0.paging.lastPageSeconds)
        }
        row("→ page \(Format.integer(Double(sizes.lastPage))) ÷ page 1 (target ≤ \(Target.pageRatio))") {
            verdict(
                Format.fixed($0.paging.ratio, 2) + " (CPU \(Format.fixed($0.paging.cpuRatio, 2)))",
                $0.paging.ratio <= Target.pageRatio)
        }
        for (index, size) in sizes.rssZoneSizes.enumerated() {
            row("Peak RSS draining \(Format.compact(size)) records (MiB; + during drain)") { backend in
                guard index < backend.drainRSS.count else { return "–" }
                let result = backend.drainRSS[index]
                let measured = TableReport.measuredPeak(result)
                return verdict(
                    "\(Format.fixed(result.peakMiB, 1)) (+\(Format.fixed(result.growthMiB, 1)))",
                    measured < Target.peakMiB)
            }
        }
        for (index, size) in sizes.rssZoneSizes.enumerated() {
            row("… of it file-mapped after draining \(Format.compact(size)) (RssFile, MiB)") { backend in
                index < backend.drainRSS.count ? Format.fixed(backend.drainRSS[index].fileBackedMiBAfter, 1) : "–"
            }
        }
        row("Whole backend run, set-up included (s)") { Format.fixed($0.totalSeconds, 1) }

        let header = ["Measurement"] + backends.map(\.backend)
        let lines =
            [header, header.map { _ in "---" }] + rows
        return lines.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
    }

    /// The figure the peak-memory target applies to: the whole child's peak when it only
    /// opened the store, or what the drain added when the child had to hold the store itself
    /// in memory (the data is then resident whatever the drain does).
    static func measuredPeak(_ result: DrainRSSResult) -> Double {
        result.builtInChild ? result.growthMiB : result.peakMiB
    }

    /// The methods of `methods` other than `used`, with their rates, or "–".
    static func others(_ methods: [RawBaseline.Method], _ used: String) -> String {
        let rest = methods.filter { $0.name != used }.map { "\($0.name): \(Format.integer($0.perSecond))" }
        return rest.isEmpty ? "–" : rest.joined(separator: "; ")
    }

    private func verdict(_ text: String, _ met: Bool) -> String {
        text + (met ? " met" : " **missed**")
    }
}
