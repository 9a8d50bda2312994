import Foundation
import StratusBackend
import Testing

@testable import StratusSQLite

/// How SQLite failures surface as ``BackendError`` codes.
@Suite("SQLite errors")
struct SQLiteErrorTests {
    @Test func aFileOfGarbageIsCorrupted() throws {
        try withSQLiteStorage { storage in
            var garbage = [UInt8]()
            for index in 0..<8192 { garbage.append(UInt8(truncatingIfNeeded: index &* 7919 &+ 13)) }
            try Data(garbage).write(to: URL(fileURLWithPath: storage.path))
            let error = #expect(throws: BackendError.self) {
                let backend = try storage.openSQLite()
                defer { try? backend.close() }
                _ = try backend.read { try $0.get([1]) }
            }
            #expect(error?.code == .corrupted)
            #expect(error?.nativeCode == 26)  // SQLITE_NOTADB
            #expect(error?.code.isRetryable == false)
        }
    }

    @Test func aClosedBackendThrowsClosed() throws {
        for location in [SQLiteBackend.Configuration.Location.inMemory, nil] {
            try withSQLiteStorage { storage in
                let backend = try SQLiteBackend(
                    configuration: .init(location: location ?? .file(path: storage.path)))
                try backend.write { try $0.set([1], [1]) }
                _ = try backend.read { try $0.get([1]) }
                try backend.close()
                try backend.close()  // harmless
                let readError = #expect(throws: BackendError.self) {
                    try backend.read { try $0.get([1]) }
                }
                let writeError = #expect(throws: BackendError.self) {
                    try backend.write { try $0.set([1], [2]) }
                }
                #expect(readError?.code == .closed)
                #expect(writeError?.code == .closed)
            }
        }
    }

    @Test func aMissingDirectoryIsUnavailable() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-missing-\(UUID().uuidString)/store.sqlite").path
        let error = #expect(throws: BackendError.self) {
            try SQLiteBackend(configuration: .init(location: .file(path: path)))
        }
        #expect(error?.code == .unavailable)
        #expect(error.map { ($0.nativeCode ?? 0) & 0xFF } == 14)  // SQLITE_CANTOPEN
    }

    @Test func invalidConfigurationsAreInvalidArguments() throws {
        for configuration in [
            SQLiteBackend.Configuration(location: .file(path: "")),
            SQLiteBackend.Configuration(location: .file(path: ":memory:")),
            SQLiteBackend.Configuration(readerCount: 0),
        ] {
            let error = #expect(throws: BackendError.self) {
                try SQLiteBackend(configuration: configuration)
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func aStoreOfANewerFormatOrAnotherApplicationIsRefused() throws {
        try withSQLiteStorage { storage in
            try storage.openSQLite().close()
            let raw = try SQLiteConnection(path: storage.path, role: .writer, configuration: .init())
            try raw.execute("PRAGMA user_version=99")
            try raw.close()
            let newer = #expect(throws: BackendError.self) { try storage.openSQLite() }
            #expect(newer?.code == .invalidArgument)
        }
        try withSQLiteStorage { storage in
            let raw = try SQLiteConnection(path: storage.path, role: .writer, configuration: .init())
            try raw.execute("CREATE TABLE people(name TEXT)")
            try raw.close()
            let foreign = #expect(throws: BackendError.self) { try storage.openSQLite() }
            #expect(foreign?.code == .invalidArgument)
        }
    }

    @Test func resultCodesMapByPrimaryCode() {
        let expected: [(Int32, BackendError.Code)] = [
            (5, .busy), (6, .busy), (261, .busy), (517, .busy),  // BUSY, LOCKED, BUSY_RECOVERY, BUSY_SNAPSHOT
            (13, .storageFull), (11, .corrupted), (26, .corrupted), (267, .corrupted),
            (8, .readOnly), (1032, .readOnly), (10, .ioError), (266, .ioError),
            (14, .unavailable), (18, .invalidArgument), (1, .internal), (19, .internal),
        ]
        for (raw, code) in expected {
            let error = SQLiteResultCode(raw).error("testing")
            #expect(error.code == code, "SQLite code \(raw)")
            #expect(error.nativeCode == Int(raw))
        }
    }
}
