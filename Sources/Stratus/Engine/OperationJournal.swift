import Foundation
import StratusBackend

/// Why a journal write was refused: another run of the same operation journaled first (a
/// proxy and the original, or two proxies), or the operation was cancelled or purged meanwhile.
/// The engine lets it through unchanged, so the operation can catch up instead of failing.
struct JournalConflict: Error, Sendable {
    enum Reason: Sendable {
        /// The journal holds callbacks this run has not seen yet.
        case advanced
        /// The operation is no longer running (cancelled, or already completed).
        case notRunning(JournalHeader.State)
        /// The operation's header is gone (purged).
        case missing
    }
    let reason: Reason
}

/// One container's long-lived operation journal (decision 0006): headers, journaled
/// callbacks and requests, in the backend's transactions.
///
/// Writes are compare-and-append: a run appends callbacks only at the sequence number it
/// expects, in the same transaction that checks it, so two runs of one operation never both
/// journal a callback — the loser gets a ``JournalConflict`` and replays what the winner wrote.
struct OperationJournal: Sendable {
    let engine: Engine
    let keys: JournalKeys

    // MARK: Writing

    /// Writes a new operation's header and request.
    func create(_ id: String, header: JournalHeader, request: [UInt8]) throws {
        try engine.writeLeavingGeneration { txn in
            try txn.set(keys.header(id), header.encoded())
            for (index, part) in OperationJournal.parts(of: request).enumerated() {
                try txn.set(keys.request(id, part: Int64(index)), part)
            }
        }
    }

    /// Appends `events` (encoded callbacks) inside `txn`, at sequence `expected`; with `final`,
    /// the operation becomes `completed` at `now`. Returns the next sequence number.
    ///
    /// - Throws: ``JournalConflict`` when the header is missing, not running, or already past
    ///   `expected`.
    @discardableResult
    func append(
        _ id: String, events: [[UInt8]], at expected: Int64, final: Bool, now: Double,
        _ txn: any BackendWriteTransaction
    ) throws -> Int64 {
        guard let bytes = try txn.get(keys.header(id)) else { throw JournalConflict(reason: .missing) }
        var header = try JournalHeader(decoding: bytes)
        guard header.state == .running else { throw JournalConflict(reason: .notRunning(header.state)) }
        guard header.nextSequence == expected else { throw JournalConflict(reason: .advanced) }
        for (offset, event) in events.enumerated() {
            for (index, part) in OperationJournal.parts(of: event).enumerated() {
                try txn.set(keys.event(id, expected + Int64(offset), part: Int64(index)), part)
            }
        }
        header.nextSequence = expected + Int64(events.count)
        if final {
            header.state = .completed
            header.finishedAt = now
            try JournalExpiryIndex.index(header, id: id, keys: keys, retention: engine.journalState.retention, txn)
        }
        try txn.set(keys.header(id), header.encoded())
        return header.nextSequence
    }

    /// Appends `events` in a transaction of its own (see the transactional overload).
    @discardableResult
    func append(_ id: String, events: [[UInt8]], at expected: Int64, final: Bool, now: Double) throws -> Int64 {
        try engine.writeLeavingGeneration { txn in
            try append(id, events: events, at: expected, final: final, now: now, txn)
        }
    }

    /// Moves the operation to `state` (`delivered` or `cancelled`) at `now`, if it is still
    /// outstanding; returns whether it did.
    @discardableResult
    func finish(_ id: String, as state: JournalHeader.State, now: Double) throws -> Bool {
        try engine.writeLeavingGeneration { txn in
            guard let bytes = try txn.get(keys.header(id)) else { return false }
            var header = try JournalHeader(decoding: bytes)
            guard header.isOutstanding else { return false }
            // Only a completed operation can be delivered; a running one can be cancelled.
            if state == .delivered && header.state != .completed { return false }
            try JournalExpiryIndex.unindex(header, id: id, keys: keys, retention: engine.journalState.retention, txn)
            header.state = state
            header.finishedAt = now
            try txn.set(keys.header(id), header.encoded())
            try JournalExpiryIndex.index(header, id: id, keys: keys, retention: engine.journalState.retention, txn)
            return true
        }
    }

    // MARK: Reading

    /// The header of `id`, if it is in the journal.
    func header(_ id: String) throws -> JournalHeader? {
        try engine.read { txn in try txn.get(keys.header(id)).map { try JournalHeader(decoding: $0) } }
    }

    /// The encoded request of `id`, if it is in the journal.
    func request(_ id: String) throws -> [UInt8]? {
        try engine.read { txn in
            var parts: [[UInt8]] = []
            var range = keys.requests(id)
            while true {
                let pairs = try txn.scan(range, limit: 64)
                parts += pairs.map(\.value)
                guard pairs.count == 64, let last = pairs.last else { break }
                range.lowerBound = last.key + [0]
            }
            return parts.isEmpty ? nil : try OperationJournal.joined(parts)
        }
    }

    /// Up to about `limit` journaled callbacks of `id` from sequence `from` on, in order, from
    /// one snapshot — fewer once they hold `maximumBytes` (at least one is returned).
    func events(_ id: String, from: Int64, limit: Int, maximumBytes: Int = 4 << 20) throws -> [(
        sequence: Int64, bytes: [UInt8]
    )] {
        try engine.read { txn in
            var result: [(sequence: Int64, bytes: [UInt8])] = []
            var total = 0
            var range = keys.events(id, from: from)
            var current: (sequence: Int64, parts: [[UInt8]])?
            let page = 64
            while result.count < limit && total < maximumBytes {
                let pairs = try txn.scan(range, limit: page)
                for pair in pairs {
                    let position = try keys.eventPosition(pair.key, of: id)
                    if position.part == 0 {
                        current = (position.sequence, [pair.value])
                    } else if let open = current, open.sequence == position.sequence,
                        position.part == Int64(open.parts.count)
                    {
                        current?.parts.append(pair.value)
                    } else {
                        throw EngineError.corruptValue
                    }
                    if let open = current, let bytes = try OperationJournal.joinedIfComplete(open.parts) {
                        result.append((open.sequence, bytes))
                        total += bytes.count
                        current = nil
                    }
                }
                guard pairs.count == page, let last = pairs.last else { break }
                range.lowerBound = last.key + [0]
            }
            // A callback cut off by the end of the range (not by a limit) is damage.
            if current != nil && result.count < limit && total < maximumBytes { throw EngineError.corruptValue }
            return result
        }
    }

    /// The most expired entries one ``outstanding(now:retention:)`` removes; the periodic
    /// purge (``Engine/purgeExpiredJournalEntries(batch:maximumBatches:)``) takes the rest.
    static let maximumRemovedPerListing = 1_000

    /// The operations that are listed (running, or completed and not delivered), oldest first,
    /// after purging what outlived `retention` (at most ``maximumRemovedPerListing`` of them in
    /// one transaction: a listing's write stays bounded however many idempotent modifies
    /// expired at once).
    func outstanding(now: Double, retention: Double) throws -> [(id: String, header: JournalHeader)] {
        let all = try allHeaders()
        let expired = all.filter { OperationJournal.isExpired($0.header, now: now, retention: retention) }
        if !expired.isEmpty {
            try engine.write { txn in
                for (id, _) in expired.prefix(Self.maximumRemovedPerListing) {
                    // Checked again inside the transaction: another process may have resumed it.
                    guard let bytes = try txn.get(keys.header(id)),
                        case let header = try JournalHeader(decoding: bytes),
                        OperationJournal.isExpired(header, now: now, retention: retention)
                    else { continue }
                    try OperationJournal.remove(id, header: header, keys: keys, retention: retention, txn)
                }
            }
        }
        let gone = Set(expired.map(\.id))
        return all.filter { $0.header.isOutstanding && $0.header.isListed && !gone.contains($0.id) }
            .sorted { ($0.header.createdAt, $0.id) < ($1.header.createdAt, $1.id) }
    }

    /// Whether a finished operation outlived the retention. Running operations never expire:
    /// their work is not done.
    static func isExpired(_ header: JournalHeader, now: Double, retention: Double) -> Bool {
        guard header.state != .running, let finished = header.finishedAt else { return false }
        return now - finished > header.retention(listed: retention)
    }

    /// Removes the entry of `id` (header, callbacks, request), its expiry index key and any
    /// lease left behind inside `txn`.
    static func remove(
        _ id: String, header: JournalHeader, keys: JournalKeys, retention: Double, _ txn: any BackendWriteTransaction
    ) throws {
        try txn.clear(keys.header(id))
        try txn.clearRange(keys.events(id))
        try txn.clearRange(keys.requests(id))
        try JournalExpiryIndex.unindex(header, id: id, keys: keys, retention: retention, txn)
        try txn.clear(LongLivedLeases.key(LongLivedLease(journal: keys.containerNumber, operationID: id)))
    }

    func allHeaders() throws -> [(id: String, header: JournalHeader)] {
        try engine.read { txn in
            var result: [(id: String, header: JournalHeader)] = []
            var range = keys.headers
            let start = keys.headers.lowerBound.count
            while true {
                let pairs = try txn.scan(range, limit: 256)
                for pair in pairs {
                    var reader = OrderedKeyReader(pair.key, from: start)
                    result.append((try reader.readString(), try JournalHeader(decoding: pair.value)))
                }
                guard pairs.count == 256, let last = pairs.last else { break }
                range.lowerBound = last.key + [0]
            }
            return result
        }
    }

    // MARK: Parts

    /// `bytes` split into values of at most `JournalKeys.partSize` bytes; the first starts with
    /// the number of parts.
    static func parts(of bytes: [UInt8]) -> [[UInt8]] {
        let size = JournalKeys.partSize
        let count = max(1, (bytes.count + size - 1) / size)
        var head = ByteWriter()
        head.writeVarint(count)
        var result: [[UInt8]] = []
        for index in 0..<count {
            let chunk = bytes[min(bytes.count, index * size)..<min(bytes.count, (index + 1) * size)]
            result.append(index == 0 ? head.bytes + chunk : Array(chunk))
        }
        return result
    }

    /// The bytes `parts(of:)` split, or `nil` while parts are missing.
    static func joinedIfComplete(_ parts: [[UInt8]]) throws -> [UInt8]? {
        guard let first = parts.first else { return nil }
        var reader = ByteReader(first)
        let count = try reader.readVarint()
        guard count >= 1, parts.count <= count else { throw EngineError.corruptValue }
        guard parts.count == count else { return nil }
        return try reader.readRaw(reader.remaining) + parts.dropFirst().joined()
    }

    /// The bytes `parts(of:)` split; throws if parts are missing.
    static func joined(_ parts: [[UInt8]]) throws -> [UInt8] {
        guard let bytes = try joinedIfComplete(parts) else { throw EngineError.corruptValue }
        return bytes
    }
}
