/// Saving records through `CKModifyRecordsOperation`.
struct SaveResult: Codable {
    /// Records saved.
    var records: Int
    /// Records per operation.
    var batchSize: Int
    /// Seconds for all of them, building the records included (the median run).
    var seconds: Double
    /// Every run's seconds (the last one saved the zone the other benchmarks read).
    var samples: [Double]
    /// Seconds of `seconds` spent building the `CKRecord`s, outside the operations.
    var buildSeconds: Double
    /// Records saved per second.
    var recordsPerSecond: Double
    /// `recordsPerSecond` over the raw baseline's inserts per second, measured at the start of
    /// the backend's run.
    var ratioToRaw: Double
    /// The raw inserts per second of a raw baseline run just before each save run, in order.
    var pairedRawInsertsPerSecond: [Double]
    /// The median over the save runs of each run's rate over the raw inserts per second
    /// measured just before it: both halves of each ratio see the machine in the same state
    /// (target ≥ 0.33).
    var pairedRatioToRaw: Double
    /// Process CPU seconds of the saves.
    var cpuSeconds: Double
    /// The ratio to raw in CPU time: raw insert CPU seconds per row over save CPU seconds per
    /// record.
    var cpuRatioToRaw: Double
}

/// Draining a zone through `CKFetchRecordZoneChangesOperation` from a `nil` token.
struct DrainResult: Codable {
    /// Records delivered per drain.
    var records: Int
    /// Median seconds of a drain.
    var seconds: Double
    /// Every drain's seconds.
    var samples: [Double]
    /// Records delivered per second.
    var recordsPerSecond: Double
    /// `recordsPerSecond` over the raw baseline's point reads per second, measured at the start
    /// of the backend's run.
    var ratioToRaw: Double
    /// The raw point reads per second of a raw baseline run just before each drain, in order.
    var pairedRawReadsPerSecond: [Double]
    /// The median over the drains of each drain's rate over the raw reads per second measured
    /// just before it (target ≥ 0.5).
    var pairedRatioToRaw: Double
    /// Median process CPU seconds of a drain.
    var cpuSeconds: Double
    /// The ratio to raw in CPU time.
    var cpuRatioToRaw: Double
}

/// One zone of the incremental-sync benchmark.
struct SyncPoint: Codable {
    /// Changes in the zone's history (records saved into it).
    var historySize: Int
    /// Changes fetched after the token.
    var changesFetched: Int
    /// Median seconds of the fetch.
    var seconds: Double
    /// Every fetch's seconds.
    var samples: [Double]
    /// Median process CPU seconds of the fetch.
    var cpuSeconds: Double
    /// Seconds the set-up drain took to reach the token (`desiredKeys: []`), for the record.
    var tokenDrainSeconds: Double
}

/// Incremental sync: 1,000 changes after a token, in zones of growing history.
struct IncrementalSyncResult: Codable {
    /// One entry per history size, smallest first.
    var points: [SyncPoint]
    /// Seconds at the largest history over seconds at the smallest (target ≤ 1.2).
    var ratio: Double
    /// The same ratio in CPU seconds.
    var cpuRatio: Double
}

/// Paging a sorted query with its cursors.
struct PagingResult: Codable {
    /// Records the query matches.
    var records: Int
    /// `resultsLimit` of every page.
    var pageSize: Int
    /// The number of the last page, reached through every cursor before it.
    var lastPage: Int
    /// Seconds of the very first page, which builds the sort index.
    var firstQuerySeconds: Double
    /// Seconds of each page of the walk through every cursor, page 1 first.
    var walkSeconds: [Double]
    /// Median seconds of page 1 (a new query each time).
    var firstPageSeconds: Double
    /// Every page-1 sample.
    var firstPageSamples: [Double]
    /// Median seconds of the last page (from the cursor of the page before it each time).
    var lastPageSeconds: Double
    /// Every last-page sample.
    var lastPageSamples: [Double]
    /// `lastPageSeconds` over `firstPageSeconds` (target ≤ 1.2).
    var ratio: Double
    /// Median CPU seconds of page 1.
    var firstPageCPUSeconds: Double
    /// Median CPU seconds of the last page.
    var lastPageCPUSeconds: Double
    /// The ratio in CPU seconds.
    var cpuRatio: Double
}

/// Peak memory of a child process draining a zone.
struct DrainRSSResult: Codable {
    /// Records in the drained zone.
    var records: Int
    /// Resident memory just before the drain, in MiB.
    var rssBeforeMiB: Double
    /// Peak resident memory during the drain (`VmHWM` after resetting it), in MiB.
    var peakMiB: Double
    /// `peakMiB - rssBeforeMiB`: what the drain itself added.
    var growthMiB: Double
    /// Resident file-mapped memory right after the drain (`RssFile`), in MiB: the part of the
    /// resident size that is the page cache of a memory-mapped store (LMDB), which the kernel
    /// can drop, rather than the process's own allocations.
    var fileBackedMiBAfter: Double
    /// Seconds of the drain.
    var drainSeconds: Double
    /// Whether the peak was reset before the drain (`/proc/self/clear_refs`); if not,
    /// `peakMiB` covers the whole child process.
    var peakWasReset: Bool
    /// Whether the child built the zone itself (a store that lives in memory) or opened the
    /// parent's store.
    var builtInChild: Bool
}

/// Everything measured on one backend.
struct BackendReport: Codable {
    /// The backend's command-line name.
    var backend: String
    /// What exactly was measured.
    var label: String
    /// The raw baseline of the backend's native API.
    var raw: RawBaseline
    /// The engine's storage pattern replayed through the SPI, without the CloudKit layer.
    var spiReplay: SPIReplay.Result
    /// Saves.
    var save: SaveResult
    /// The full drain of the saved zone.
    var drain: DrainResult
    /// Incremental sync against history size.
    var incrementalSync: IncrementalSyncResult
    /// Query paging.
    var paging: PagingResult
    /// Peak memory while draining, per zone size.
    var drainRSS: [DrainRSSResult]
    /// Seconds the whole backend run took, set-up included.
    var totalSeconds: Double
}

/// One run of the harness: the machine, the command and every backend's results.
struct BenchmarkReport: Codable {
    /// The machine and its load.
    var machine: MachineInfo
    /// When the run started (ISO 8601, UTC).
    var date: String
    /// The command line of the run.
    var command: String
    /// The commit of the source tree, with `-dirty` when `Sources/` or `Backends/` had
    /// uncommitted changes, if `git` could tell.
    var sourceRevision: String?
    /// Whether `--quick` sizes were used.
    var quick: Bool
    /// The sizes used.
    var sizes: Sizes
    /// What the engine asks of a backend per saved and per drained record.
    var footprint: EngineFootprint
    /// Load averages (1, 5, 15 minutes) when the run ended.
    var loadAverageAtEnd: [Double]
    /// The one-minute load average sampled every 5 seconds during the run.
    var loadDuringRun: LoadSummary
    /// Every backend's results, in run order.
    var backends: [BackendReport]
}
