import Foundation
import StratusBackend
import StratusLMDB
import Testing

/// `releaseMappedPagesEvery`: a long scan leaves the environment's map resident only up to
/// about the configured amount, and what it reads is intact; with `0` the map stays resident.
/// Resident sizes are read from `/proc/self/smaps` for this environment's `data.mdb` only, so
/// tests running beside it in the process do not count.
@Suite("LMDB mapped pages")
struct LMDBMappedPagesTests {
    /// 40 MiB of values, scanned whole in read transactions of 64 values each.
    static let values = 2560
    static let valueBytes = 16 << 10

    @Test func scannedPagesLeaveTheResidentSet() throws {
        let resident = try scanEverything(releaseEvery: 4 << 20)
        // At most ~4 MiB read since the last release, plus branch and meta pages.
        #expect(resident < 12 << 20, "data.mdb resident after the scan: \(resident) bytes")
    }

    @Test func withoutReleaseTheScannedMapStaysResident() throws {
        let resident = try scanEverything(releaseEvery: 0)
        #expect(resident > 32 << 20, "data.mdb resident after the scan: \(resident) bytes")
    }

    @Test func theOptionIsParsedAndValidated() throws {
        let provider = LMDBBackendProvider()
        #expect(try provider.configuration(for: BackendURL("lmdb:///tmp/x")).releaseMappedPagesEvery == 32 << 20)
        #expect(
            try provider.configuration(for: BackendURL("lmdb:///tmp/x?releaseMappedPages=0")).releaseMappedPagesEvery
                == 0)
        #expect(
            try provider.configuration(for: BackendURL("lmdb:///tmp/x?releaseMappedPages=1GiB"))
                .releaseMappedPagesEvery == 1 << 30)
        #expect(
            try provider.configuration(for: BackendURL("lmdb:///tmp/x?releaseMappedPages=0MiB")).releaseMappedPagesEvery
                == 0)
        #expect {
            try provider.configuration(for: BackendURL("lmdb:///tmp/x?releaseMappedPages=-1"))
        } throws: { error in
            "\(error)".contains("or 0 for never")
        }
        #expect {
            try provider.configuration(for: BackendURL("lmdb:///tmp/x?mapSize=0"))
        } throws: { error in
            !"\(error)".contains("or 0 for")
        }
        #expect(throws: BackendError.self) {
            try LMDBBackend(configuration: .init(path: "/tmp/unused", releaseMappedPagesEvery: -1))
        }
    }

    /// Writes the values (from a 1 MiB map, so that it grows, and moves, several times first),
    /// scans them all back (checking every byte), and returns how much of the environment's
    /// `data.mdb` mapping is resident afterwards.
    private func scanEverything(releaseEvery: Int) throws -> Int {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try LMDBBackend(
            configuration: .init(path: storage.path, initialMapSize: 1 << 20, releaseMappedPagesEvery: releaseEvery))
        defer { try? backend.close() }
        for start in stride(from: 0, to: Self.values, by: 256) {
            try backend.write { transaction in
                for n in start..<min(start + 256, Self.values) {
                    try transaction.set(be64(UInt64(n)), Self.value(n))
                }
            }
        }
        var next = 0
        var lower = be64(0)
        while true {
            let page = try backend.read { try $0.scan(KeyRange(from: lower, to: be64(UInt64.max)), limit: 64) }
            for pair in page {
                guard pair.key == be64(UInt64(next)), pair.value == Self.value(next) else {
                    Issue.record("value \(next) read back wrong")
                    return 0
                }
                next += 1
            }
            guard let last = page.last else { break }
            lower = last.key + [0]
        }
        #expect(next == Self.values)
        return try residentBytes(of: storage.path + "/data.mdb")
    }

    private static func value(_ n: Int) -> [UInt8] {
        [UInt8](repeating: UInt8(truncatingIfNeeded: n &* 31 &+ 7), count: valueBytes)
    }
}
