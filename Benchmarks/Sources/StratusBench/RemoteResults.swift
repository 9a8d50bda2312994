/// Saves or drains of one mode: the median run of several.
struct RemotePhase: Codable {
    /// Records per run.
    var records: Int
    /// Seconds of the median run.
    var seconds: Double
    /// Every run's seconds, in order.
    var samples: [Double]
    /// Records per second of the median run.
    var recordsPerSecond: Double
    /// CPU seconds of the harness over the median run (for a remote run: the client's).
    var clientCPUSeconds: Double
    /// CPU seconds of `stratusd` over the median run, or `nil` for an embedded run.
    var serverCPUSeconds: Double?

    /// The phase of `records` records per run, from each run's wall, harness CPU and server
    /// CPU seconds.
    init(records: Int, runs: [(wall: Double, cpu: Double, server: Double?)]) {
        let median = runs.sorted { $0.wall < $1.wall }[runs.count / 2]
        self.records = records
        seconds = median.wall
        samples = runs.map(\.wall)
        recordsPerSecond = Double(records) / median.wall
        clientCPUSeconds = median.cpu
        serverCPUSeconds = median.server
    }
}

/// Every measurement of one mode (embedded or remote) on one backend.
struct RemoteModeResult: Codable {
    /// `embedded` or `remote`.
    var mode: String
    /// Saves in batches.
    var save: RemotePhase
    /// Drains from a nil token.
    var drain: RemotePhase
    /// Every saved record fetched by ID, a batch per `CKDatabase.records(for:)`.
    var lookup: RemotePhase
    /// The sorted query walked through every cursor, a batch per page.
    var queryPages: RemotePhase
    /// Incremental sync at each history size.
    var incrementalSync: IncrementalSyncResult
    /// Query paging, page 1 and the last page.
    var paging: PagingResult
    /// Seconds of the whole mode's run, set-up included.
    var totalSeconds: Double
}

/// One backend, embedded and through a remote container.
struct RemoteBackendResult: Codable {
    /// The backend's command-line name.
    var backend: String
    /// What the store is.
    var label: String
    /// How the server ran.
    var server: String
    /// The embedded figures.
    var embedded: RemoteModeResult
    /// The remote figures.
    var remote: RemoteModeResult
    /// The server's resident size at the end of the remote run, in MiB.
    var serverResidentMiB: Double
}

/// A whole `stratus-bench remote` run.
struct RemoteReport: Codable {
    /// The machine.
    var machine: MachineInfo
    /// When it started (ISO 8601).
    var date: String
    /// The command line.
    var command: String
    /// The source revision measured.
    var sourceRevision: String?
    /// The sizes used.
    var sizes: Sizes
    /// The machine's load while it ran.
    var loadDuringRun: LoadSummary
    /// One entry per backend, in order.
    var backends: [RemoteBackendResult]
}
