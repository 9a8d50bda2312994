import Foundation
import StratusBackend
import StratusSQLite
import Testing

/// Atomicity, isolation, durability and locking of SQLite stores.
@Suite("SQLite transactions")
struct SQLiteTransactionTests {
    struct BodyError: Error, Equatable { var tag: Int }

    @Test func aThrowingBodyLeavesNothingAndItsErrorIsRethrownUnchanged() throws {
        try withSQLiteStorage { storage in
            let backend = try storage.openSQLite()
            defer { try? backend.close() }
            try backend.write { try $0.set([0], [0]) }
            #expect(throws: BodyError(tag: 7)) {
                try backend.write { tx throws in
                    try tx.set([1], [1])
                    try tx.clear([0])
                    try tx.clearRange(KeyRange(from: [], to: [0xFF]))
                    throw BodyError(tag: 7)
                }
            }
            try backend.read { tx throws in
                #expect(try tx.get([0]) == [0])
                #expect(try tx.get([1]) == nil)
            }
            // The writer connection is healthy afterwards.
            try backend.write { try $0.set([2], [2]) }
            #expect(try backend.read { try $0.get([2]) } == [2])
        }
    }

    @Test func aThrowingBodyLeavesNothingInMemory() throws {
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
        defer { try? backend.close() }
        #expect(throws: BodyError(tag: 1)) {
            try backend.write { tx throws in
                try tx.set([1], [1])
                throw BodyError(tag: 1)
            }
        }
        #expect(try backend.read { try $0.get([1]) } == nil)
    }

    @Test func aReaderKeepsItsSnapshotWhileAWriterCommits() throws {
        try withSQLiteStorage { storage in
            let backend = try storage.openSQLite()
            defer { try? backend.close() }
            try backend.write { tx throws in
                try tx.set([1], [1])
                try tx.set([2], [2])
            }
            try backend.read { tx throws in
                #expect(try tx.get([1]) == [1])
                // A writer on another thread commits while this read is open...
                let writer = TestThread {
                    try backend.write { tx throws in
                        try tx.set([1], [10])
                        try tx.clear([2])
                        try tx.set([3], [3])
                    }
                }
                try writer.join()
                // ...and so does one on this thread.
                try backend.write { try $0.set([4], [4]) }
                // A new read sees the commits,
                #expect(try backend.read { try $0.get([1]) } == [10])
                // but this one still sees its snapshot.
                #expect(try tx.get([1]) == [1])
                #expect(try tx.get([2]) == [2])
                #expect(try tx.get([3]) == nil)
                #expect(
                    try tx.scan(KeyRange(from: [], to: [0xFF]), limit: 10).map(\.key) == [[1], [2]])
            }
            #expect(
                try backend.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 10).map(\.key) }
                    == [[1], [3], [4]])
        }
    }

    @Test func dataSurvivesCloseAndReopen() throws {
        try withSQLiteStorage { storage in
            for durability in [SQLiteBackend.Configuration.Durability.full, .normal] {
                let first = try storage.openSQLite(durability: durability)
                try first.write { tx throws in
                    for byte in UInt8(0)..<50 { try tx.set([byte], [byte, 1]) }
                }
                try first.write { try $0.clear([0]) }
                try first.close()
                let second = try storage.openSQLite(durability: durability)
                let pairs = try second.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 100) }
                #expect(pairs.count == 49)
                #expect(pairs.first == KeyValuePair(key: [1], value: [1, 1]))
                try second.write { tx in try tx.clearRange(KeyRange(from: [], to: [0xFF])) }
                try second.close()
            }
        }
    }

    @Test func twoHandlesOnOneFileSeeEachOthersCommits() throws {
        try withSQLiteStorage { storage in
            let a = try storage.openSQLite()
            let b = try storage.openSQLite()
            defer {
                try? a.close()
                try? b.close()
            }
            try a.write { try $0.set([1], [1]) }
            #expect(try b.read { try $0.get([1]) } == [1])
            try b.write { try $0.set([1], [2]) }
            #expect(try a.read { try $0.get([1]) } == [2])
        }
    }

    @Test func aWriteBlockedByAnotherConnectionPastTheBusyTimeoutIsBusy() throws {
        try withSQLiteStorage { storage in
            let holder = try storage.openSQLite()
            let waiter = try storage.openSQLite(busyTimeout: .milliseconds(50))
            defer {
                try? holder.close()
                try? waiter.close()
            }
            try holder.write { try $0.set([1], [1]) }
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let longWrite = TestThread {
                try holder.write { tx throws in
                    try tx.set([1], [2])
                    inside.signal()
                    release.wait()
                }
            }
            inside.wait()
            let start = ContinuousClock.now
            let error = #expect(throws: BackendError.self) {
                try waiter.write { try $0.set([2], [2]) }
            }
            let waited = ContinuousClock.now - start
            // Readers are not blocked by the writer in WAL mode, and see the last commit;
            // opening the existing store does not need the write lock either.
            let seen = try waiter.read { try $0.get([1]) }
            let opened = Result { try storage.openSQLite(busyTimeout: .milliseconds(50)) }
            try? opened.get().close()
            release.signal()
            try longWrite.join()

            #expect(error?.code == .busy)
            #expect(error?.code.isRetryable == true)
            #expect(error.map { ($0.nativeCode ?? 0) & 0xFF } == 5)  // SQLITE_BUSY
            #expect(waited >= .milliseconds(40))
            #expect(waited < .seconds(4))
            #expect(seen == [1])
            #expect(throws: Never.self) { try opened.get() }
            // Once the lock is released, the waiter writes.
            try waiter.write { try $0.set([2], [2]) }
            #expect(try holder.read { try $0.get([2]) } == [2])
        }
    }

    @Test func concurrentIncrementsFromManyThreadsLoseNothing() throws {
        try withSQLiteStorage { storage in
            let backend = try storage.openSQLite(durability: .normal, readerCount: 2)
            defer { try? backend.close() }
            let threads = (0..<4).map { _ in
                TestThread {
                    for _ in 0..<50 {
                        try backend.write { tx throws in
                            let value = try tx.get([0]).map { Int($0[0]) << 8 | Int($0[1]) } ?? 0
                            try tx.set([0], [UInt8(value >> 8), UInt8(value & 0xFF)])
                            _ = try tx.get([0])
                            try tx.set([0], [UInt8((value + 1) >> 8), UInt8((value + 1) & 0xFF)])
                        }
                        // More readers than reader connections: some wait for a connection.
                        _ = try backend.read { try $0.get([0]) }
                    }
                }
            }
            for thread in threads { try thread.join() }
            #expect(try backend.read { try $0.get([0]) } == [0, 200])
        }
    }

    @Test func aWriteInsideAWriteOnTheSameThreadThrowsInsteadOfDeadlocking() throws {
        try withSQLiteStorage { storage in
            let backend = try storage.openSQLite()
            defer { try? backend.close() }
            let error = #expect(throws: BackendError.self) {
                try backend.write { _ in try backend.write { try $0.set([1], [1]) } }
            }
            #expect(error?.code == .internal)
            // A read inside a write is fine: it sees the last commit, not the open write.
            try backend.write { tx throws in
                try tx.set([5], [5])
                #expect(try backend.read { try $0.get([5]) } == nil)
            }
        }
    }

    @Test func aTransactionInsideABodyOfAnInMemoryStoreThrowsInsteadOfDeadlocking() throws {
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
        defer { try? backend.close() }
        let error = #expect(throws: BackendError.self) {
            try backend.read { _ in try backend.write { try $0.set([1], [1]) } }
        }
        #expect(error?.code == .internal)
    }

    @Test func aTransactionObjectIsDeadOutsideItsBody() throws {
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory))
        defer { try? backend.close() }
        let escaped = try backend.write { tx throws -> any BackendWriteTransaction in
            try tx.set([1], [1])
            return tx
        }
        #expect(throws: BackendError.self) { try escaped.set([2], [2]) }
        #expect(throws: BackendError.self) { try escaped.get([1]) }
        #expect(try backend.read { try $0.get([2]) } == nil)
    }

    @Test func inMemoryStoresWorkAndAreIndependent() throws {
        let a = try SQLiteBackend(configuration: .init())
        let b = try SQLiteBackend(configuration: .init(location: .inMemory))
        try a.write { try $0.set([1], [1]) }
        #expect(try a.read { try $0.get([1]) } == [1])
        #expect(try b.read { try $0.get([1]) } == nil)
        let threads = (0..<3).map { n in
            TestThread { try a.write { try $0.set([2, UInt8(n)], [UInt8(n)]) } }
        }
        for thread in threads { try thread.join() }
        #expect(try a.read { try $0.scan(KeyRange(prefix: [2]), limit: 10).count } == 3)
        try a.close()
        try b.close()
    }
}
