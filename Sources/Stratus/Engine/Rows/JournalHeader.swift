import Foundation

/// A long-lived operation as its journal header stores it (decision 0006): what it is, where
/// it runs, how far it got, and when it started and finished.
struct JournalHeader: Sendable, Equatable {
    /// Where an operation is in its life.
    enum State: UInt8, Sendable {
        /// Persisted, and its final callback is not journaled yet: a proxy resumes the work.
        case running = 1
        /// Its final callback is journaled but was never delivered: a proxy replays it.
        case completed = 2
        /// Its final callback was delivered: it is no longer listed or fetchable.
        case delivered = 3
        /// It was cancelled: it is no longer listed or fetchable.
        case cancelled = 4
    }

    /// The operation's class, as ``LongLivedOperationKinds`` names it.
    var kind: String
    /// The database scope's raw value.
    var scope: Int
    var state: State
    /// When the operation was persisted, in seconds since 1970 (the journal's clock).
    var createdAt: Double
    /// When it completed, was delivered or was cancelled; `nil` while running.
    var finishedAt: Double?
    /// The sequence number the next journaled callback gets (callbacks so far).
    var nextSequence: Int64
    /// For an operation submitted to stratusd, the database it targets and the caller it runs
    /// as (decision 0014.8); `nil` for an embedded container's operation.
    var target: JournalTarget?
    /// Whether `fetchAllLongLivedOperationIDs` lists it: `false` for an idempotent modify
    /// submitted with `isLongLived: false` (decision 0014.11), kept only for its outcome.
    var isListed = true

    /// Whether `fetchAllLongLivedOperationIDs` lists it and `fetchLongLivedOperation` returns it.
    var isOutstanding: Bool { state == .running || state == .completed }

    /// How long after it finished the entry is kept: `retention` for a listed operation, one
    /// hour for an unlisted one (decision 0014.11).
    func retention(listed retention: Double) -> Double { isListed ? retention : 3600 }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        // Version 1 is an embedded operation's; version 2 adds the target and the listing.
        w.write(UInt8(target == nil && isListed ? 1 : 2))
        w.write(kind)
        w.write(Int64(scope))
        w.write(state.rawValue)
        w.write(createdAt)
        w.write(finishedAt ?? .nan)
        w.write(nextSequence)
        if target != nil || !isListed {
            w.write(bool: isListed)
            w.write(bool: target != nil)
            target?.encode(to: &w)
        }
        return w.bytes
    }

    init(kind: String, scope: Int, createdAt: Double) {
        self.kind = kind
        self.scope = scope
        self.state = .running
        self.createdAt = createdAt
        self.finishedAt = nil
        self.nextSequence = 0
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        let version = try r.readByte()
        guard version == 1 || version == 2 else { throw EngineError.corruptValue }
        kind = try r.readString()
        scope = Int(try r.readInt64())
        guard let state = State(rawValue: try r.readByte()) else { throw EngineError.corruptValue }
        self.state = state
        createdAt = try r.readDouble()
        let finished = try r.readDouble()
        finishedAt = finished.isNaN ? nil : finished
        nextSequence = try r.readInt64()
        if version == 2 {
            isListed = try r.readBool()
            target = try r.readBool() ? try JournalTarget(from: &r) : nil
        }
    }
}
