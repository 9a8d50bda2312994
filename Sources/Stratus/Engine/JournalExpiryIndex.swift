import Foundation
import StratusBackend

/// The journal's expiry index (decision 0014.11): `0A (expiry in ms, journal number, operation
/// ID)` → empty. The transaction that finishes an entry (its final callback, a cancellation, a
/// delivery, an idempotent modify's outcome) writes the key of the time it may be purged, so a
/// periodic purge finds expired entries of every journal in one ordered scan, whether or not
/// their users ever list. Entries finished before the index existed have no key: listing still
/// purges them (``OperationJournal/outstanding(now:retention:)``).
enum JournalExpiryIndex {
    private static var prefix: [UInt8] { [StoreLayout.journalExpiryTag] }

    static func key(expiry: Double, journal: Int64, id: String) -> [UInt8] {
        OrderedKey(prefix).appending(milliseconds(expiry)).appending(journal).appending(id).bytes
    }

    private static func milliseconds(_ seconds: Double) -> Int64 {
        Int64(min(max(0, seconds * 1000), 9e18).rounded(.down))
    }

    /// When the finished `header` may be purged, or `nil` while it runs.
    static func expiry(of header: JournalHeader, retention: Double) -> Double? {
        guard header.state != .running, let finished = header.finishedAt else { return nil }
        return finished + header.retention(listed: retention)
    }

    /// Writes the index key of the finished `header` of `id` inside `txn`.
    static func index(
        _ header: JournalHeader, id: String, keys: JournalKeys, retention: Double,
        _ txn: any BackendWriteTransaction
    ) throws {
        guard let expiry = expiry(of: header, retention: retention) else { return }
        try txn.set(key(expiry: expiry, journal: keys.containerNumber, id: id), [])
    }

    /// Removes the index key of `header` of `id` inside `txn`, if it is finished: before it
    /// finishes again later (a delivery after completion), or when it is purged.
    static func unindex(
        _ header: JournalHeader, id: String, keys: JournalKeys, retention: Double, _ txn: any BackendWriteTransaction
    ) throws {
        guard let expiry = expiry(of: header, retention: retention) else { return }
        try txn.clear(key(expiry: expiry, journal: keys.containerNumber, id: id))
    }

    /// Removes, in batches of `batch` keys (one transaction each, at most `maximumBatches` of
    /// them), every indexed entry whose expiry is before `now`; returns how many entries were
    /// purged. A key whose entry is gone is dropped; one whose entry finished again later (a
    /// delivery after completion) or whose retention grew is moved to its entry's expiry.
    static func purge(
        _ engine: Engine, now: Double, retention: Double, batch: Int = 256, maximumBatches: Int = 16
    ) throws -> Int {
        let range = KeyRange(from: prefix, to: OrderedKey(prefix).appending(milliseconds(now)).bytes)
        var purged = 0
        for _ in 0..<maximumBatches {
            let (seen, removed) = try engine.writeLeavingGeneration { txn in
                let keys = try txn.scan(range, limit: batch)
                var removed = 0
                for pair in keys where try purge(pair.key, now: now, retention: retention, txn) {
                    removed += 1
                }
                return (keys.count, removed)
            }
            purged += removed
            if seen < batch { break }
        }
        return purged
    }

    /// Handles one index key; returns whether its entry was purged.
    private static func purge(
        _ indexKey: [UInt8], now: Double, retention: Double, _ txn: any BackendWriteTransaction
    ) throws -> Bool {
        try txn.clear(indexKey)
        var reader = OrderedKeyReader(indexKey, from: prefix.count)
        _ = try reader.readInteger()
        let keys = JournalKeys(containerNumber: try reader.readInteger())
        let id = try reader.readString()
        guard let bytes = try txn.get(keys.header(id)) else { return false }
        let header = try JournalHeader(decoding: bytes)
        guard OperationJournal.isExpired(header, now: now, retention: retention) else {
            try index(header, id: id, keys: keys, retention: retention, txn)
            return false
        }
        try OperationJournal.remove(id, header: header, keys: keys, retention: retention, txn)
        return true
    }
}

extension Engine {
    /// Purges the long-lived journal entries (of every journal) past their retention that the
    /// expiry index knows, in bounded batches; returns how many were purged (decision 0014.11).
    package func purgeExpiredJournalEntries(batch: Int = 256, maximumBatches: Int = 16) throws -> Int {
        try JournalExpiryIndex.purge(
            self, now: journalState.now, retention: journalState.retention, batch: batch,
            maximumBatches: maximumBatches)
    }
}
