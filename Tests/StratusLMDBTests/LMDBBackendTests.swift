import Foundation
import StratusBackend
import StratusLMDB
import Testing

/// What LMDB adds to the SPI: map growth, key sizes, snapshots, errors.
@Suite("LMDB backend")
struct LMDBBackendTests {
    /// From a 64 KiB map through 2,000,000 keys in 40 transactions (the map doubles about
    /// eleven times), plus one transaction that alone needs many doublings; every key reads back.
    @Test func mapGrowsFromATinyMapThroughMillionsOfKeys() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open(initialMapSize: 64 << 10)
        defer { try? backend.close() }
        let perTransaction = 50_000
        for batch in 0..<40 {
            try backend.write { transaction in
                for i in 0..<perTransaction {
                    let n = UInt64(batch * perTransaction + i)
                    try transaction.set(Array("k".utf8) + be64(n), be64(n))
                }
            }
        }
        #expect(try backend.mapSize > 64 << 10)
        var count = 0
        var lower = Array("k".utf8)
        while true {
            let page = try backend.read { try $0.scan(KeyRange(from: lower, to: Array("l".utf8)), limit: 50_000) }
            // One expectation per page, not per key: two million recorded expectations would
            // cost more than the test.
            let mismatched = page.first { $0.value != Array($0.key.dropFirst()) }
            #expect(mismatched == nil, "value of \(String(describing: mismatched?.key))")
            count += page.count
            guard let last = page.last else { break }
            lower = last.key + [0]
        }
        #expect(count == 2_000_000)

        let fresh = try LMDBTestStorage()
        defer { fresh.destroy() }
        let one = try fresh.open(initialMapSize: 64 << 10)
        defer { try? one.close() }
        try one.write { transaction in
            for i in 0..<20_000 { try transaction.set(be64(UInt64(i)), [UInt8](repeating: 1, count: 100)) }
        }
        #expect(try one.read { try $0.scan(KeyRange(prefix: []), limit: 30_000).count } == 20_000)
    }

    /// A map that may not grow ends in storageFull, with nothing of the body applied.
    @Test func mapFullBeyondMaxMapSizeIsStorageFull() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open(initialMapSize: 64 << 10, maxMapSize: 128 << 10)
        defer { try? backend.close() }
        try backend.write { try $0.set([1], [1]) }
        let error = #expect(throws: BackendError.self) {
            try backend.write { transaction in
                for i in 0..<10_000 { try transaction.set(be64(UInt64(i)), [UInt8](repeating: 2, count: 100)) }
            }
        }
        #expect(error?.code == .storageFull)
        #expect(try backend.read { try $0.scan(KeyRange(prefix: []), limit: 10).count } == 1)
    }

    /// Keys around LMDB's 511-byte limit (stored directly up to 509 bytes, in buckets beyond)
    /// and values of 8 MiB round-trip, scan in order and clear.
    @Test func keysAndValuesAtTheSizeLimits() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open()
        defer { try? backend.close() }
        let lengths = [0, 1, 255, 508, 509, 510, 511, 512, 1_000, 4_096]
        var keys: [[UInt8]] = []
        for length in lengths {
            keys.append([UInt8](repeating: 0x61, count: length))
            keys.append([UInt8](repeating: 0x61, count: max(length - 1, 0)) + [0x62])
            keys.append([UInt8](repeating: 0x61, count: length) + [0x00])
        }
        let sorted = Set(keys).sorted(by: KeyRange.less)
        try backend.write { transaction in
            for (i, key) in sorted.reversed().enumerated() { try transaction.set(key, be64(UInt64(i))) }
        }
        let big = [UInt8](repeating: 0xAB, count: 8 << 20)
        try backend.write { try $0.set([0xFF], big) }
        #expect(try backend.read { try $0.get([0xFF]) } == big)
        let scanned = try backend.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 1_000) }
        #expect(scanned.map(\.key) == sorted)
        let reversed = try backend.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 1_000, reverse: true) }
        #expect(reversed.map(\.key) == sorted.reversed())
        for key in sorted { #expect(try backend.read { try $0.get(key) } != nil) }
        // A range starting and ending inside the long keys.
        let middle = KeyRange(from: [UInt8](repeating: 0x61, count: 510), to: [UInt8](repeating: 0x61, count: 1_000))
        let expected = sorted.filter { middle.contains($0) }
        #expect(try backend.read { try $0.scan(middle, limit: 100) }.map(\.key) == expected)
        #expect(try backend.read { try $0.scan(middle, limit: 100, reverse: true) }.map(\.key) == expected.reversed())
        try backend.write { try $0.clearRange(middle) }
        #expect(
            try backend.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 1_000) }.map(\.key)
                == sorted.filter { !middle.contains($0) })
        try backend.write { transaction in for key in sorted { try transaction.clear(key) } }
        #expect(try backend.read { try $0.scan(KeyRange(from: [], to: [0xFF]), limit: 10) }.isEmpty)
    }

    /// A read body keeps its snapshot while another handle commits writes, even on the same
    /// thread; the next read sees them.
    @Test func readerHeldOpenAcrossWritesSeesItsSnapshot() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let reader = try storage.open()
        let writer = try storage.open()
        defer {
            try? reader.close()
            try? writer.close()
        }
        try writer.write { try $0.set([1], [1]) }
        try reader.read { snapshot in
            #expect(try snapshot.get([1]) == [1])
            for i in 2...100 {
                try writer.write { transaction in
                    try transaction.set([1], [UInt8(i)])
                    try transaction.set([2, UInt8(i)], [])
                }
            }
            #expect(try snapshot.get([1]) == [1])
            #expect(try snapshot.scan(KeyRange(prefix: [2]), limit: 1_000).isEmpty)
        }
        #expect(try reader.read { try $0.get([1]) } == [100])
        #expect(try reader.read { try $0.scan(KeyRange(prefix: [2]), limit: 1_000).count } == 99)
    }

    /// Data survive closing every handle; misuse throws typed errors instead of deadlocking.
    @Test func reopenAndMisuse() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open()
        try backend.write { try $0.set([9], [9]) }
        let nested = #expect(throws: BackendError.self) {
            try backend.write { _ in try backend.write { _ in } }
        }
        #expect(nested?.code == .internal)
        try backend.close()
        #expect(throws: BackendError.self) { try backend.read { _ in } }
        let reopened = try storage.open()
        defer { try? reopened.close() }
        #expect(try reopened.read { try $0.get([9]) } == [9])
        let notADirectory = #expect(throws: BackendError.self) {
            try LMDBBackend(configuration: .init(path: storage.path + "/missing/dir"))
        }
        #expect(notADirectory?.code == .unavailable)
    }
}
