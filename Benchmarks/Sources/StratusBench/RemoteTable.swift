/// The Markdown table of a `stratus-bench remote` run: one row per measurement; per backend,
/// a column embedded, a column remote, and their ratio with the verdict.
struct RemoteTable {
    /// The run to show.
    let report: RemoteReport

    /// The targets of issue 12.
    enum Target {
        /// Remote ÷ embedded records per second, for saves and drains, must be at least this.
        static let throughputRatio = 0.5
        /// Largest ÷ smallest history, and last ÷ first page, must be at most this.
        static let flatness = 1.2
    }

    /// The table, in Markdown.
    var markdown: String {
        let sizes = report.sizes
        var rows: [[String]] = []
        func row(_ label: String, _ cells: (RemoteBackendResult) -> [String]) {
            rows.append([label] + report.backends.flatMap(cells))
        }
        func compared(
            _ value: @escaping (RemoteModeResult) -> Double, format: @escaping (Double) -> String
        ) -> (RemoteBackendResult) -> [String] {
            { backend in
                let (embedded, remote) = (value(backend.embedded), value(backend.remote))
                return [format(embedded), format(remote), Format.fixed(remote / embedded, 2)]
            }
        }
        let records = Format.integer(Double(sizes.savedRecords))
        row("Save \(records) records, \(sizes.batchSize)/op (records/s; ratio target ≥ \(Target.throughputRatio))") {
            let ratio = $0.remote.save.recordsPerSecond / $0.embedded.save.recordsPerSecond
            return [
                Format.integer($0.embedded.save.recordsPerSecond), Format.integer($0.remote.save.recordsPerSecond),
                verdict(Format.fixed(ratio, 2), ratio >= Target.throughputRatio),
            ]
        }
        row("… CPU s (remote: client + stratusd)") { [cpu($0.embedded.save), cpu($0.remote.save), "–"] }
        row(
            "Drain \(records) records, nil token, every field read (records/s; ratio target ≥ \(Target.throughputRatio))"
        ) {
            let ratio = $0.remote.drain.recordsPerSecond / $0.embedded.drain.recordsPerSecond
            return [
                Format.integer($0.embedded.drain.recordsPerSecond), Format.integer($0.remote.drain.recordsPerSecond),
                verdict(Format.fixed(ratio, 2), ratio >= Target.throughputRatio),
            ]
        }
        row("… CPU s (remote: client + stratusd)") { [cpu($0.embedded.drain), cpu($0.remote.drain), "–"] }
        let batch = Format.integer(Double(sizes.batchSize))
        row("Fetch \(records) records by ID, \(batch) per records(for:) (records/s)") {
            compared({ $0.lookup.recordsPerSecond }, format: Format.integer)($0)
        }
        row("… CPU s (remote: client + stratusd)") { [cpu($0.embedded.lookup), cpu($0.remote.lookup), "–"] }
        row("Query \(records) records, sorted, pages of \(batch) (records/s)") {
            compared({ $0.queryPages.recordsPerSecond }, format: Format.integer)($0)
        }
        row("… CPU s (remote: client + stratusd)") { [cpu($0.embedded.queryPages), cpu($0.remote.queryPages), "–"] }
        for (index, size) in sizes.historySizes.enumerated() {
            let changes = Format.integer(Double(sizes.incrementalChanges))
            row("Fetch \(changes) changes, history \(Format.compact(size)) (ms, median)") { backend in
                guard index < backend.embedded.incrementalSync.points.count,
                    index < backend.remote.incrementalSync.points.count
                else { return ["–", "–", "–"] }
                return compared({ $0.incrementalSync.points[index].seconds }, format: Format.milliseconds)(backend)
            }
        }
        let largest = Format.compact(sizes.historySizes.last ?? 0)
        let smallest = Format.compact(sizes.historySizes.first ?? 0)
        row("→ history \(largest) ÷ \(smallest) (target ≤ \(Target.flatness))") {
            [flatness($0.embedded.incrementalSync.ratio), flatness($0.remote.incrementalSync.ratio), "–"]
        }
        row("First sorted query, builds the index (ms)") {
            compared({ $0.paging.firstQuerySeconds }, format: Format.milliseconds)($0)
        }
        row("Query page 1, limit \(sizes.pageSize) (ms, median)") {
            compared({ $0.paging.firstPageSeconds }, format: Format.milliseconds)($0)
        }
        let lastPage = Format.integer(Double(sizes.lastPage))
        row("Query page \(lastPage) via its cursor (ms, median)") {
            compared({ $0.paging.lastPageSeconds }, format: Format.milliseconds)($0)
        }
        row("→ page \(lastPage) ÷ page 1 (target ≤ \(Target.flatness))") {
            [flatness($0.embedded.paging.ratio), flatness($0.remote.paging.ratio), "–"]
        }
        row("Whole mode's run, set-up included (s)") {
            compared({ $0.totalSeconds }, format: { Format.fixed($0, 1) })($0)
        }
        let header =
            ["Measurement"]
            + report.backends.flatMap { ["\($0.backend) embedded", "\($0.backend) remote", "remote ÷ embedded"] }
        let lines = [header, header.map { _ in "---" }] + rows
        return lines.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
    }

    private func cpu(_ phase: RemotePhase) -> String {
        let client = Format.fixed(phase.clientCPUSeconds, 1)
        guard let server = phase.serverCPUSeconds else { return client }
        return "\(client) + \(Format.fixed(server, 1))"
    }

    private func flatness(_ ratio: Double) -> String {
        verdict(Format.fixed(ratio, 2), ratio <= Target.flatness)
    }

    private func verdict(_ text: String, _ met: Bool) -> String {
        text + (met ? " met" : " **missed**")
    }
}
