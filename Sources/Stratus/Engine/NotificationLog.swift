import Foundation
import StratusBackend

/// One user's notification log (decision 0014.2): `07 (n_U) 00` → the head, `07 (n_U) 01
/// (position)` → an entry. Entries are appended by the transaction that commits the change
/// (``DatabaseContext`` fires subscriptions), so positions are gap-free and in commit order.
package struct NotificationLog: Sendable {
    /// The next position and the oldest kept entry's.
    package struct Head: Sendable, Equatable {
        /// The position the next entry gets; the last entry's is `next - 1`.
        package var next: Int64
        /// The oldest position still kept (`next` when the log is empty).
        package var oldest: Int64

        static let empty = Head(next: 1, oldest: 1)

        init(next: Int64, oldest: Int64) {
            self.next = next
            self.oldest = oldest
        }

        init(decoding bytes: [UInt8]?) throws {
            guard let bytes else {
                self = .empty
                return
            }
            var r = ByteReader(bytes)
            next = try r.readInt64()
            oldest = try r.readInt64()
        }

        var encoded: [UInt8] {
            var w = ByteWriter()
            w.write(next)
            w.write(oldest)
            return w.bytes
        }
    }

    /// At most this many entries are kept per user unless the engine is told otherwise
    /// (``Engine/setNotificationLogLimit(_:)``: stratusd's `notificationsMaxPerUser`, decision
    /// 0014.2); older ones are dropped first.
    package static let defaultMaximumEntries: Int64 = 10_000

    let engine: Engine
    /// The user's namespace number (`n_U`).
    package let number: Int64

    /// The head: where the log starts and ends.
    package func head() throws -> Head {
        try engine.read { txn in try Head(decoding: txn.get(Self.headKey(number))) }
    }

    /// The entries after `position`, oldest first, at most `limit`, with the head read in the
    /// same transaction.
    package func entries(after position: Int64, limit: Int) throws -> (entries: [NotificationEntry], head: Head) {
        try engine.read { txn in
            let head = try Head(decoding: txn.get(Self.headKey(number)))
            // No entry lies past the head: a position beyond it (up to Int64.max) reads from there.
            let after = min(max(position, 0), head.next)
            let range = KeyRange(from: Self.entryKey(number, after + 1), to: Self.entriesEnd(number))
            let entries = try txn.scan(range, limit: max(1, limit)).map { pair in
                var reader = OrderedKeyReader(pair.key, from: Self.entryPrefix(number).bytes.count)
                return try NotificationEntry(decoding: pair.value, position: try reader.readInteger())
            }
            return (entries, head)
        }
    }

    /// Drops the entries at or below `position` (those every cursor has acknowledged).
    package func purge(through position: Int64) throws {
        try engine.write { txn in
            var head = try Head(decoding: txn.get(Self.headKey(number)))
            let through = min(position, head.next - 1)
            guard through >= head.oldest else { return }
            try txn.clearRange(
                KeyRange(from: Self.entryKey(number, head.oldest), to: Self.entryKey(number, through + 1)))
            head.oldest = through + 1
            try txn.set(Self.headKey(number), head.encoded)
        }
    }

    /// Drops the oldest entries written before `cutoff`, at most `limit` of them (retention runs
    /// with a user's polls, bounded per call). Returns how many were dropped.
    @discardableResult
    package func purge(writtenBefore cutoff: Date, limit: Int = 400) throws -> Int {
        try engine.write { txn in
            var head = try Head(decoding: txn.get(Self.headKey(number)))
            let range = KeyRange(from: Self.entryKey(number, head.oldest), to: Self.entriesEnd(number))
            var through: Int64?
            for pair in try txn.scan(range, limit: limit) {
                var reader = OrderedKeyReader(pair.key, from: Self.entryPrefix(number).bytes.count)
                let position = try reader.readInteger()
                guard
                    try NotificationEntry(decoding: pair.value, position: position).time
                        < cutoff.timeIntervalSinceReferenceDate
                else { break }
                through = position
            }
            guard let through else { return 0 }
            try txn.clearRange(
                KeyRange(from: Self.entryKey(number, head.oldest), to: Self.entryKey(number, through + 1)))
            let dropped = Int(through + 1 - head.oldest)
            head.oldest = through + 1
            try txn.set(Self.headKey(number), head.encoded)
            return dropped
        }
    }

    /// The commit-signal channel on which a commit names the logs it appended to (decision
    /// 0014.6), on backends that offer signals.
    static let signalChannel = "notifications"

    /// The most bytes of entries one commit writes to one log: past them its oldest entries
    /// are dropped unwritten, as retention would drop them (decision 0014.8).
    static let maximumAppendBytes = 4 << 20

    /// The most bytes of entries one public commit writes to all its users' logs together: a
    /// commit judged by the query subscriptions of many users would otherwise write up to
    /// ``maximumAppendBytes`` to each of them, in its own transaction. Each log gets an equal
    /// share of it, and always the newest of its entries, so the commit writes at most this
    /// budget or one entry per user, whichever is more; the older entries past a log's share
    /// are dropped unwritten, as past ``maximumAppendBytes`` (decision 0014.8).
    static let maximumCommitBytes = 16 << 20

    /// Appends `entries` in `txn` (the committing transaction), numbering them from the head,
    /// and drops the oldest beyond `maximumEntries`; on a backend with commit signals, the
    /// log's number is signalled, delivered only if `txn` commits.
    ///
    /// Only the newest entries that fit `maximumEntries` and ``maximumAppendBytes`` are encoded
    /// and written; the others still take their positions and are dropped with the log's
    /// older entries, so a client behind them is told that entries were dropped
    /// (`resetRequired`). A public commit of 400 records judged by
    /// 200 query subscriptions of one user, each with 60 KB of notification info, made 80,000
    /// entries, 4.8 GB written in the committing user's transaction.
    ///
    /// `budget` is the log's share of the commit's bytes (``maximumCommitBytes``); the bytes
    /// written are taken from it (the newest entry is written even past it).
    static func append(
        _ entries: [NotificationEntry], to number: Int64, maximumEntries: Int64, budget: inout Int,
        _ txn: any BackendWriteTransaction
    ) throws {
        guard !entries.isEmpty else { return }
        if let signaling = txn as? any SignalingWriteTransaction {
            try signaling.signal(channel: signalChannel, payload: String(number))
        }
        var head = try Head(decoding: txn.get(headKey(number)))
        let kept = newest(of: entries, count: maximumEntries, bytes: min(maximumAppendBytes, budget))
        budget -= kept.reduce(0) { $0 + $1.count }
        if kept.count < entries.count {
            // The dropped go with everything before them, as retention drops: a log keeps no gap.
            head.next += Int64(entries.count - kept.count)
            try txn.clearRange(KeyRange(from: entryKey(number, head.oldest), to: entryKey(number, head.next)))
            head.oldest = head.next
        }
        for bytes in kept {
            try txn.set(entryKey(number, head.next), bytes)
            head.next += 1
        }
        if head.next - head.oldest > maximumEntries {
            let oldest = head.next - maximumEntries
            try txn.clearRange(KeyRange(from: entryKey(number, head.oldest), to: entryKey(number, oldest)))
            head.oldest = oldest
        }
        try txn.set(headKey(number), head.encoded)
    }

    /// The encodings of the newest of `entries`, oldest first: at most `count`, and no more
    /// than fit in `bytes` (always the newest one, which a record's 1 MB limit bounds).
    private static func newest(of entries: [NotificationEntry], count: Int64, bytes: Int) -> [[UInt8]] {
        var kept: [[UInt8]] = []
        var total = 0
        for entry in entries.reversed() where kept.count < count {
            let encoded = entry.encoded()
            total += encoded.count
            if total > bytes && !kept.isEmpty { break }
            kept.append(encoded)
        }
        return kept.reversed()
    }

    static func headKey(_ number: Int64) -> [UInt8] {
        OrderedKey([StoreLayout.notificationTag]).appending(number).appending(tag: 0x00).bytes
    }

    static func entryPrefix(_ number: Int64) -> OrderedKey {
        OrderedKey([StoreLayout.notificationTag]).appending(number).appending(tag: 0x01)
    }

    static func entryKey(_ number: Int64, _ position: Int64) -> [UInt8] {
        entryPrefix(number).appending(position).bytes
    }

    static func entriesEnd(_ number: Int64) -> [UInt8] {
        KeyRange.successor(ofPrefix: entryPrefix(number).bytes)
    }
}

extension Engine {
    /// The most entries kept per notification log (``NotificationLog/defaultMaximumEntries``
    /// unless set).
    package var notificationLogLimit: Int64 { notificationLogMaximum.load(ordering: .relaxed) }

    /// Keeps at most `limit` entries (at least 1) per notification log from the next commit on.
    package func setNotificationLogLimit(_ limit: Int64) {
        notificationLogMaximum.store(max(1, limit), ordering: .relaxed)
    }

    /// The notification log of a user's namespace (decision 0014.2), registering the namespace
    /// on first use.
    package func notificationLog(namespace: Namespace) throws -> NotificationLog {
        NotificationLog(engine: self, number: try database(namespace: namespace, scope: .private).containerNumber)
    }

    /// The heads of several logs in one read (one `getMany`), for the poll that wakes waiters
    /// whose log moved in another process (decision 0014.6).
    package func notificationHeads(_ numbers: [Int64]) throws -> [Int64: NotificationLog.Head] {
        guard !numbers.isEmpty else { return [:] }
        return try read { txn in
            let values = try txn.getMany(numbers.map(NotificationLog.headKey))
            var heads: [Int64: NotificationLog.Head] = [:]
            for (number, value) in zip(numbers, values) { heads[number] = try NotificationLog.Head(decoding: value) }
            return heads
        }
    }
}
