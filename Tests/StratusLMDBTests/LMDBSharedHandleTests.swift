import Foundation
import StratusBackend
import Testing

@testable import StratusLMDB

/// Several handles on one directory in one process share one `MDB_env`: what each handle's
/// options then mean, and the value sizes LMDB cannot store.
@Suite("LMDB shared handles and value sizes")
struct LMDBSharedHandleTests {
    /// Durability and the reader table belong to the shared environment: a further handle
    /// asking for others is refused, naming the option, and takes no share of the environment
    /// (once the first handle closes, the directory opens with the other options).
    @Test func aFurtherHandleMustAskForTheSameDurabilityAndReaders() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let first = try LMDBBackend(configuration: .init(path: storage.path))
        try first.write { try $0.set([1], [1]) }
        let durability = #expect(throws: BackendError.self) {
            try LMDBBackend(configuration: .init(path: storage.path, durability: .noSync))
        }
        #expect(durability?.code == .invalidArgument)
        #expect(durability?.message.contains("durability") == true)
        let readers = #expect(throws: BackendError.self) {
            try LMDBBackend(configuration: .init(path: storage.path, maxReaders: 10))
        }
        #expect(readers?.code == .invalidArgument)
        #expect(readers?.message.contains("maxReaders") == true)
        let same = try LMDBBackend(configuration: .init(path: storage.path))
        #expect(try same.read { try $0.get([1]) } == [1])
        try same.close()
        try first.close()

        let reopened = try LMDBBackend(configuration: .init(path: storage.path, durability: .noSync))
        defer { try? reopened.close() }
        #expect(try reopened.read { try $0.get([1]) } == [1])
    }

    /// A further handle's larger `initialMapSize` grows the shared map (a smaller one does not
    /// shrink it); its `maxMapSize` limits growth by writes through it alone.
    @Test func aFurtherHandlesMapSizesApply() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let first = try storage.open(initialMapSize: 64 << 10)
        defer { try? first.close() }
        #expect(try first.mapSize < 1 << 20)
        let larger = try storage.open(initialMapSize: 4 << 20)
        defer { try? larger.close() }
        #expect(try first.mapSize >= 4 << 20)
        let smaller = try storage.open(initialMapSize: 64 << 10, maxMapSize: 4 << 20)
        defer { try? smaller.close() }
        #expect(try first.mapSize >= 4 << 20)

        let big = [UInt8](repeating: 3, count: 1 << 20)
        let full = #expect(throws: BackendError.self) {
            try smaller.write { transaction in for i in 0..<8 { try transaction.set([UInt8(i)], big) } }
        }
        #expect(full?.code == .storageFull)
        try first.write { transaction in for i in 0..<8 { try transaction.set([UInt8(i)], big) } }
        #expect(try smaller.read { try $0.get([7]) } == big)
    }

    /// LMDB stores values of at most 4 GiB - 1 bytes, and a long-key bucket keeps 4-byte
    /// lengths: a larger value or bucket is refused with `invalidArgument` before anything is
    /// written, never truncated. (The limit is checked on the size alone; a test cannot
    /// allocate 4 GiB.)
    @Test func valuesBeyondFourGiBAreRefused() throws {
        try LMDBTransaction.checkValueSize(Int(UInt32.max), "a value")
        let error = #expect(throws: BackendError.self) {
            try LMDBTransaction.checkValueSize(Int(UInt32.max) + 1, "a long-key bucket")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("4294967296 bytes") == true)
        let entries = [LMDBBucket.Entry(suffix: [1, 2], value: [3])]
        #expect(try LMDBBucket.decode(LMDBBucket.encode(entries)).map(\.value) == [[3]])
    }
}
