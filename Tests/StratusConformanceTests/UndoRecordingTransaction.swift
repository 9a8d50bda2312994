import StratusBackend

/// How to undo one change: put back the value `key` had before it (or remove `key` if it had
/// none).
struct UndoStep: Sendable {
    let key: [UInt8]
    let previous: [UInt8]?

    func apply(to transaction: any BackendWriteTransaction) throws {
        if let previous {
            try transaction.set(key, previous)
        } else {
            try transaction.clear(key)
        }
    }
}

/// A write transaction that forwards to another one and records how to undo each change:
/// the heart of ``BrokenBackend/losesLastWriteOnReopen``.
final class UndoRecordingTransaction: BackendWriteTransaction {
    private let base: any BackendWriteTransaction
    /// The undo steps of every change so far, oldest first; undo them newest first.
    private(set) var undo: [UndoStep] = []

    init(base: any BackendWriteTransaction) {
        self.base = base
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try base.get(key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try base.scan(range, limit: limit, reverse: reverse)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        undo.append(UndoStep(key: key, previous: try base.get(key)))
        try base.set(key, value)
    }

    func clear(_ key: [UInt8]) throws {
        undo.append(UndoStep(key: key, previous: try base.get(key)))
        try base.clear(key)
    }

    func clearRange(_ range: KeyRange) throws {
        for pair in try base.scan(range, limit: Int.max, reverse: false) {
            undo.append(UndoStep(key: pair.key, previous: pair.value))
        }
        try base.clearRange(range)
    }
}
