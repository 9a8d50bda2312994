import Dispatch
import Foundation
import StratusBackend
import StratusSQLite
import StratusTestSupport
import Testing

/// What the SQLite backend logs (`Docs/Logging.md`): the store opened, with its location.
@Suite("SQLite logging")
struct SQLiteLoggingTests {
    @Test func storeOpenedNamesTheFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending("store.sqlite").path
            let capture = LogCapture()
            let backend = try SQLiteBackend(
                configuration: .init(location: .file(path: path), durability: .normal), logger: capture.logger)
            try backend.close()
            let opened = try #require(capture.entries(message: "store opened").first)
            #expect(opened.level == .info)
            #expect(opened.value(LogKey.backend) == "sqlite")
            #expect(opened.value(LogKey.location) == "sqlite://\(path)")
            #expect(opened.value("stratus.sqlite.durability") == "normal")
        }
    }

    /// A write that waits out its busy timeout behind another connection's write lock (SQLite
    /// retries the lock until then) fails with busy, and says so at warning level.
    @Test func aWriteThatWaitsOutTheBusyTimeoutIsAWarning() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending("store.sqlite").path
            let holder = try SQLiteBackend(configuration: .init(location: .file(path: path)))
            let capture = LogCapture()
            let waiter = try SQLiteBackend(
                configuration: .init(location: .file(path: path), busyTimeout: .milliseconds(50)),
                logger: capture.logger)
            defer {
                try? holder.close()
                try? waiter.close()
            }
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let longWrite = Thread {
                try? holder.write { transaction in
                    try transaction.set([1], [1])
                    inside.signal()
                    release.wait()
                }
            }
            longWrite.start()
            inside.wait()
            let error = #expect(throws: BackendError.self) { try waiter.write { try $0.set([2], [2]) } }
            release.signal()
            #expect(error?.code == .busy)
            let busy = try #require(
                capture.entries(
                    message:
                        "SQLite store stayed locked by another connection for the whole busy timeout; the write fails with busy"
                ).first)
            #expect(busy.level == .warning)
            #expect(busy.value("stratus.sqlite.busy_timeout_ms") == "50")
        }
    }

    @Test func aStoreInMemoryIsNamedSo() throws {
        let capture = LogCapture()
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory), logger: capture.logger)
        try backend.close()
        #expect(capture.entries(message: "store opened").first?.value(LogKey.location) == "sqlite::memory:")
    }
}
