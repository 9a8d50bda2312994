/// How much work each benchmark does: the sizes, or smaller ones for a smoke run.
struct Sizes: Codable, Sendable {
    /// Rows the raw baseline inserts and reads back, in one transaction each.
    var rawRows: Int
    /// Size of every raw value and, roughly, of every record's five fields, in bytes.
    var valueBytes: Int
    /// Records saved through `CKModifyRecordsOperation`; also the zone drained and queried.
    var savedRecords: Int
    /// Records per `CKModifyRecordsOperation`.
    var batchSize: Int
    /// How many times the raw baseline, the SPI replay, the saves and the drain run (the median
    /// is reported).
    var repetitions: Int
    /// Change-history sizes of the incremental-sync zones, smallest first.
    var historySizes: [Int]
    /// Changes an incremental sync fetches after its token.
    var incrementalChanges: Int
    /// Repetitions of each incremental fetch.
    var syncRepetitions: Int
    /// Records per query page (`resultsLimit`).
    var pageSize: Int
    /// Repetitions of the first and the last page.
    var pageRepetitions: Int
    /// Zone sizes drained in a child process to measure peak memory.
    var rssZoneSizes: [Int]

    /// The sizes the issue asks for.
    static let full = Sizes(
        rawRows: 100_000, valueBytes: 200, savedRecords: 100_000, batchSize: 400, repetitions: 3,
        historySizes: [10_000, 100_000, 1_000_000], incrementalChanges: 1000, syncRepetitions: 21,
        pageSize: 100, pageRepetitions: 21, rssZoneSizes: [100_000, 1_000_000])

    /// Small sizes for a smoke run of a few seconds per backend.
    static let quick = Sizes(
        rawRows: 10_000, valueBytes: 200, savedRecords: 10_000, batchSize: 400, repetitions: 1,
        historySizes: [2000, 20_000], incrementalChanges: 1000, syncRepetitions: 5,
        pageSize: 100, pageRepetitions: 5, rssZoneSizes: [10_000, 50_000])

    /// The number of the last page of the saved zone (the page reached through every cursor).
    var lastPage: Int { (savedRecords + pageSize - 1) / pageSize }
}
