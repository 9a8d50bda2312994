/// What a sync engine's fetch left, read inside the engine's gate before another fetch or send
/// can change it: automatic sync settles the zones still unfetched, or waits after a failure.
struct SyncEngineFetchOutcome: Sendable {
    /// A retryable error a zone's fetch failed with (the one asking for the longest wait).
    var retryable: CKError?
    /// The zones with unfetched server changes when the fetch ended.
    var unfetched: [CKRecordZone.ID]
}
