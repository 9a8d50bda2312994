import StratusBackend
import StratusInMemory
import Testing

/// What `InMemoryBackend` promises beyond the conformance suite: stores shared by handles,
/// snapshots kept by running reads, misuse reported, and scale.
@Suite struct InMemoryBackendTests {
    static let everything = KeyRange(prefix: [])

    @Test func aNewHandleOnTheSameStoreSeesCommittedWrites() throws {
        let store = InMemoryStore()
        let first = InMemoryBackend(store: store)
        try first.write { try $0.set([1], [10]) }
        first.close()

        let reopened = InMemoryBackend(store: store)
        #expect(try reopened.read { try $0.get([1]) } == [10])
        #expect(try InMemoryBackend().read { try $0.get([1]) } == nil)  // a private store
    }

    @Test func closeIsIdempotentAndLaterCallsThrowClosed() throws {
        let backend = InMemoryBackend()
        backend.close()
        backend.close()
        #expect { try backend.read { _ in } } throws: { ($0 as? BackendError)?.code == .closed }
        #expect { try backend.write { _ in } } throws: { ($0 as? BackendError)?.code == .closed }
        // Another handle on the same store is unaffected.
        try InMemoryBackend(store: backend.store).write { try $0.set([], []) }
    }

    @Test func aReadKeepsItsSnapshotWhileWritesCommit() throws {
        let backend = InMemoryBackend()
        try backend.write { try $0.set([1], [1]) }
        try backend.read { snapshot in
            try backend.write { transaction in
                try transaction.set([1], [2])
                try transaction.set([2], [2])
            }
            #expect(try snapshot.get([1]) == [1])
            #expect(try snapshot.scan(Self.everything, limit: 10).map(\.key) == [[1]])
        }
        #expect(try backend.read { try $0.get([1]) } == [2])
    }

    @Test func aTransactionUsedOutsideItsBodyThrows() throws {
        let backend = InMemoryBackend()
        let escaped = try backend.write { $0 }
        #expect { try escaped.set([1], [1]) } throws: {
            ($0 as? BackendError)?.code == .invalidArgument
        }
        #expect(try backend.read { try $0.get([1]) } == nil)
    }

    @Test func aScanLimitBelowOneIsAnInvalidArgument() throws {
        let backend = InMemoryBackend()
        #expect {
            try backend.read { try $0.scan(Self.everything, limit: 0) }
        } throws: { ($0 as? BackendError)?.code == .invalidArgument }
    }

    /// A million keys (a fifth of that in debug builds), committed 10,000 per transaction.
    /// Each set copies O(log n) nodes, never the store, so the time per transaction stays
    /// nearly flat as the store grows: the deeper tree costs a few percent, an O(n) copy per
    /// transaction would cost 10–100 times more by the end.
    @Test func aMillionKeys() throws {
        #if DEBUG
            let batches = 20
        #else
            let batches = 100
        #endif
        let perBatch = 10_000
        let backend = InMemoryBackend()
        let clock = ContinuousClock()
        var durations: [Duration] = []
        for batch in 0..<batches {
            durations.append(
                try clock.measure {
                    try backend.write { transaction in
                        for index in 0..<perBatch {
                            // Batch-major numbering: every batch spreads over the whole key space.
                            let n = UInt32(index * batches + batch)
                            try transaction.set(Self.key(n), [UInt8(truncatingIfNeeded: n)])
                        }
                    }
                })
        }
        // The fastest of the first three batches against the fastest of the last three: the
        // minimum ignores batches slowed down by other work on the machine.
        let first = durations.prefix(3).min()!
        let last = durations.suffix(3).min()!
        #expect(last < first * 8, "fastest early batch \(first), fastest late batch \(last)")

        let total = batches * perBatch
        try backend.read { transaction in
            let scanned = try transaction.scan(Self.everything, limit: total + 1)
            #expect(scanned.count == total)
            #expect(try transaction.get(Self.key(123_456)) == [UInt8(truncatingIfNeeded: 123_456)])
            let page = try transaction.scan(
                KeyRange(from: Self.key(100_000), to: Self.key(150_000)), limit: 3, reverse: true)
            #expect(page.map(\.key) == [Self.key(149_999), Self.key(149_998), Self.key(149_997)])
        }
    }

    static func key(_ n: UInt32) -> [UInt8] {
        [
            UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8),
            UInt8(truncatingIfNeeded: n),
        ]
    }
}
