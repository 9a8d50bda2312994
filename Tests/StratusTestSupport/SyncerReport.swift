import Foundation

/// What a syncer process (`StratusTestProbe remote-syncer`) saw while following zones with
/// change tokens, written as JSON for the test that started it.
public struct SyncerReport: Codable, Sendable {
    /// One-batch fetches while the writers were writing, and after they stopped.
    public var fetchesDuringWrites = 0, finalFetches = 0
    /// Changed records and deletions applied to the mirror.
    public var changesApplied = 0, deletionsApplied = 0
    /// Wall-clock seconds from the first fetch to the end of the final sync.
    public var seconds = 0.0
    /// Every broken invariant, described: a failed fetch, a record twice in one fetch, more
    /// than `resultsLimit` changes, a record version delivered again by a later fetch (a token
    /// that went back), a token that stayed put while changes came; empty when all held.
    public var problems: [String] = []
    /// The mirror at the end: zone name → record name → snapshot.
    public var mirrors: [String: [String: RecordSnapshot]] = [:]

    /// An empty report.
    public init() {}
}
