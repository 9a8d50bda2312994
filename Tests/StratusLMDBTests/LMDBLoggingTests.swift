import StratusBackend
import StratusLMDB
import StratusTestSupport
import Testing

/// What the LMDB backend logs (`Docs/Logging.md`): the store opened, the map doubling, and a
/// map that may not grow.
@Suite("LMDB logging")
struct LMDBLoggingTests {
    @Test func mapGrowthIsAWarningAndAMapThatCannotGrowAnError() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let capture = LogCapture()
        let backend = try LMDBBackend(
            configuration: .init(path: storage.path, initialMapSize: 64 << 10, maxMapSize: 256 << 10),
            logger: capture.logger)
        defer { try? backend.close() }

        let opened = try #require(capture.entries(message: "store opened").first)
        #expect(opened.level == .info)
        #expect(opened.value(LogKey.backend) == "lmdb")
        #expect(opened.value(LogKey.location) == "lmdb://\(storage.path)")

        try backend.write { transaction in
            for i in 0..<1_000 { try transaction.set(be64(UInt64(i)), [UInt8](repeating: 1, count: 100)) }
        }
        let grown = capture.entries(message: "LMDB map is full; doubling it and running the write again")
        #expect(!grown.isEmpty)
        #expect(grown.allSatisfy { $0.level == .warning })
        #expect(grown.first?.value(LogKey.sizeBytes) == "\(64 << 10)")
        #expect(grown.first?.value(LogKey.newSizeBytes) == "\(128 << 10)")

        #expect(throws: BackendError.self) {
            try backend.write { transaction in
                for i in 0..<10_000 { try transaction.set(be64(UInt64(i)), [UInt8](repeating: 2, count: 100)) }
            }
        }
        let full = try #require(
            capture.entries(message: "LMDB map is full and may not grow further; the write fails with storageFull")
                .first)
        #expect(full.level == .error)
        #expect(full.value(LogKey.sizeBytes) == "\(256 << 10)")
    }
}
