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

    @Test func aStoreInMemoryIsNamedSo() throws {
        let capture = LogCapture()
        let backend = try SQLiteBackend(configuration: .init(location: .inMemory), logger: capture.logger)
        try backend.close()
        #expect(capture.entries(message: "store opened").first?.value(LogKey.location) == "sqlite::memory:")
    }
}
