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

    /// Whether `fetchAllLongLivedOperationIDs` lists it and `fetchLongLivedOperation` returns it.
    var isOutstanding: Bool { state == .running || state == .completed }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(kind)
        w.write(Int64(scope))
        w.write(state.rawValue)
        w.write(createdAt)
        w.write(finishedAt ?? .nan)
        w.write(nextSequence)
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
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        kind = try r.readString()
        scope = Int(try r.readInt64())
        guard let state = State(rawValue: try r.readByte()) else { throw EngineError.corruptValue }
        self.state = state
        createdAt = try r.readDouble()
        let finished = try r.readDouble()
        finishedAt = finished.isNaN ? nil : finished
        nextSequence = try r.readInt64()
    }
}
