import StratusBackend
import StratusTestSupport

extension BrokenBackend {
    /// Every broken backend the suite must catch.
    static let all: [BrokenBackend] =
        [unisolatedWrites, losesLastWriteOnReopen, reverseScanIgnoresLimit, scanIgnoresLowerBound] + engineLevel

    /// Write bodies run concurrently, each on a private copy of the data taken when it began,
    /// and their changes are then applied blindly: the last commit wins, and a read-modify-write
    /// that raced with another loses its update.
    static let unisolatedWrites = BrokenBackend(
        "unisolated-writes", caughtBy: "kv.isolation.noLostUpdates"
    ) {
        var hooks = BackendHooks()
        hooks.write = { base, body in
            let snapshot = try base.read { transaction in
                SortedKeyValueModel(try transaction.scan(KeyRange(prefix: []), limit: Int.max))
            }
            let transaction = SnapshotWriteTransaction(snapshot: snapshot)
            try body(transaction)
            try base.write { try transaction.replay(into: $0) }
        }
        return hooks
    }

    /// Closing a handle quietly undoes the last write committed on the storage, as if that
    /// write had never been flushed.
    static let losesLastWriteOnReopen = BrokenBackend(
        "loses-last-write-on-reopen", caughtBy: "kv.durability.reopen"
    ) {
        let lastWrite = LastWriteLog()
        var hooks = BackendHooks()
        hooks.write = { base, body in
            var undo: [UndoStep] = []
            try base.write { transaction in
                let recorder = UndoRecordingTransaction(base: transaction)
                try body(recorder)
                undo = recorder.undo
            }
            lastWrite.replace(with: undo)
        }
        hooks.close = { base in
            let undo = lastWrite.take()
            if !undo.isEmpty {
                // A handle closed twice cannot write any more; the loss already happened then.
                try? base.write { transaction in
                    for step in undo.reversed() { try step.apply(to: transaction) }
                }
            }
            try base.close()
        }
        return hooks
    }

    /// A reverse scan returns the whole range, ignoring its limit.
    static let reverseScanIgnoresLimit = BrokenBackend(
        "reverse-scan-ignores-limit", caughtBy: "kv.scan.reverseWithLimit"
    ) {
        var hooks = BackendHooks()
        hooks.scan = { transaction, range, limit, reverse in
            try transaction.scan(range, limit: reverse ? Int.max : limit, reverse: reverse)
        }
        return hooks
    }

    /// A scan starts at the first key of the store, ignoring its lower bound.
    static let scanIgnoresLowerBound = BrokenBackend(
        "scan-ignores-lower-bound", caughtBy: "kv.scan.halfOpenBounds"
    ) {
        var hooks = BackendHooks()
        hooks.scan = { transaction, range, limit, reverse in
            try transaction.scan(
                KeyRange(from: [], to: range.upperBound), limit: limit, reverse: reverse)
        }
        return hooks
    }
}
