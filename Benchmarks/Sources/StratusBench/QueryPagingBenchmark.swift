import Stratus

/// Paging a sorted query (`resultsLimit` = page size) through every cursor, then timing the
/// first page and the last page again, alternately, several times.
struct QueryPagingBenchmark {
    /// Where the query runs.
    let workload: Workload
    /// The zone of the saved items.
    let zoneID: CKRecordZone.ID
    /// The sizes to use.
    let sizes: Sizes

    /// Runs the benchmark and checks every page's contents: ranks are a permutation of
    /// `0..<savedRecords`, so page `p` must hold exactly the ranks of its position.
    func run() throws -> PagingResult {
        let limit = sizes.pageSize
        // The first sorted query builds the field's value index (decision 0005).
        let firstQuerySeconds = try Timing.seconds {
            try check(try workload.queryPage(zoneID: zoneID, after: nil, limit: limit), page: 1)
        }

        var walk: [Double] = []
        var cursor: CKQueryOperation.Cursor?
        var cursorBeforeLast: CKQueryOperation.Cursor?
        for page in 1...sizes.lastPage {
            if page == sizes.lastPage { cursorBeforeLast = cursor }
            var result: Workload.QueryPage?
            walk.append(
                try Timing.seconds { result = try workload.queryPage(zoneID: zoneID, after: cursor, limit: limit) })
            guard let result else { break }
            try check(result, page: page)
            cursor = result.cursor
            if page < sizes.lastPage, cursor == nil {
                throw BenchmarkFailure("query: no cursor after page \(page) of \(sizes.lastPage)")
            }
        }
        guard cursor == nil, let cursorBeforeLast else {
            throw BenchmarkFailure("query: page \(sizes.lastPage) should be the last and end without a cursor")
        }

        var first: [Timing.Sample] = []
        var last: [Timing.Sample] = []
        for _ in 0..<sizes.pageRepetitions {
            first.append(try timedPage(after: nil, page: 1))
            last.append(try timedPage(after: cursorBeforeLast, page: sizes.lastPage))
        }
        let firstMedian = Timing.median(first.map(\.wall))
        let lastMedian = Timing.median(last.map(\.wall))
        let firstCPU = Timing.median(first.map(\.cpu))
        let lastCPU = Timing.median(last.map(\.cpu))
        return PagingResult(
            records: sizes.savedRecords, pageSize: limit, lastPage: sizes.lastPage,
            firstQuerySeconds: firstQuerySeconds,
            walkSeconds: walk, firstPageSeconds: firstMedian, firstPageSamples: first.map(\.wall),
            lastPageSeconds: lastMedian, lastPageSamples: last.map(\.wall), ratio: lastMedian / firstMedian,
            firstPageCPUSeconds: firstCPU, lastPageCPUSeconds: lastCPU, cpuRatio: lastCPU / firstCPU)
    }

    private func timedPage(after cursor: CKQueryOperation.Cursor?, page: Int) throws -> Timing.Sample {
        var result: Workload.QueryPage?
        let sample = try Timing.sample {
            result = try workload.queryPage(zoneID: zoneID, after: cursor, limit: sizes.pageSize)
        }
        if let result { try check(result, page: page) }
        return sample
    }

    private func check(_ result: Workload.QueryPage, page: Int) throws {
        let first = (page - 1) * sizes.pageSize
        let expected = Array(first..<min(first + sizes.pageSize, sizes.savedRecords))
        guard result.ranks == expected else {
            throw BenchmarkFailure(
                "query: page \(page) held ranks \(result.ranks.prefix(3))… (\(result.ranks.count)), expected \(expected.prefix(3))…"
            )
        }
    }
}
