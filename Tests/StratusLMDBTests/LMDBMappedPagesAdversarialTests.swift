import Dispatch
import Foundation
import StratusBackend
import StratusTestSupport
import Synchronization
import Testing

@testable import StratusLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `releaseMappedPagesEvery` under attack: releases (every 64 KiB read) while the map grows and
/// moves under readers on two handles, a map grown by another process, and which mappings of
/// `/proc/self/maps` may ever be advised.
@Suite("LMDB mapped pages, adversarial")
struct LMDBMappedPagesAdversarialTests {
    static let valueBytes = 8 << 10

    static func value(_ n: Int) -> [UInt8] {
        (0..<valueBytes).map { UInt8(truncatingIfNeeded: n &* 131 &+ $0 &* 7) }
    }

    /// Two handles on one environment, each read by its own thread in small transactions while a
    /// third thread keeps writing, growing (and so moving) the map from 1 MiB to 8 MiB or more;
    /// pages are released every 64 KiB read. Every value read is the one written, every scan
    /// sees a prefix of the keys without holes, and nothing fails.
    @Test func readersOnTwoHandlesReadIntactBytesWhileTheMapGrowsAndIsReleased() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let configuration = LMDBBackend.Configuration(
            path: storage.path, initialMapSize: 1 << 20, durability: .noSync, releaseMappedPagesEvery: 64 << 10)
        let writer = try LMDBBackend(configuration: configuration)
        defer { try? writer.close() }
        let readers = try (0..<2).map { _ in try LMDBBackend(configuration: configuration) }
        defer { for reader in readers { try? reader.close() } }
        let total = 1024  // 8 MiB of values
        try writer.write { transaction in
            for n in 0..<64 { try transaction.set(be64(UInt64(n)), Self.value(n)) }
        }
        let writing = Atomic<Bool>(true)
        let problems = Mutex<[String]>([])
        let scans = Atomic<Int>(0)
        let finished = DispatchSemaphore(value: 0)
        for (index, reader) in readers.enumerated() {
            Thread {
                defer { finished.signal() }
                repeat {
                    var next = 0
                    var lower = be64(0)
                    do {
                        while true {
                            let page = try reader.read {
                                try $0.scan(KeyRange(from: lower, to: be64(UInt64.max)), limit: 16)
                            }
                            for pair in page {
                                guard pair.key == be64(UInt64(next)), pair.value == Self.value(next) else {
                                    problems.withLock { $0.append("reader \(index): value \(next) read back wrong") }
                                    return
                                }
                                next += 1
                            }
                            guard let last = page.last else { break }
                            lower = last.key + [0]
                        }
                    } catch {
                        problems.withLock { $0.append("reader \(index): \(error)") }
                        return
                    }
                    scans.add(1, ordering: .relaxed)
                } while writing.load(ordering: .sequentiallyConsistent)
            }.start()
        }
        let before = try writer.mapSize
        var writeError: (any Error)?
        do {
            for start in stride(from: 64, to: total, by: 64) {
                try writer.write { transaction in
                    for n in start..<start + 64 { try transaction.set(be64(UInt64(n)), Self.value(n)) }
                }
            }
        } catch {
            writeError = error
        }
        writing.store(false, ordering: .sequentiallyConsistent)
        finished.wait()
        finished.wait()
        if let writeError { throw writeError }
        let grown = try writer.mapSize
        #expect(grown >= 8 * before, "the map grew from \(before) to \(grown)")
        #expect(problems.withLock { $0 } == [])
        #expect(scans.load(ordering: .relaxed) >= 2)
        // A last full scan on each handle after all the moves.
        for reader in readers {
            let count = try reader.read { try $0.scan(KeyRange(from: be64(0), to: be64(UInt64.max)), limit: total + 1) }
            #expect(count.count == total)
            #expect(count.enumerated().allSatisfy { $0.element.value == Self.value($0.offset) })
        }
    }

    /// After another process grew the map (this one adopts it on `MDB_MAP_RESIZED`, and so maps
    /// the file again elsewhere), a scan here reads every byte right and still drops the
    /// pages it read from the resident set: the release follows the mapping that moved, not
    /// the address it had before.
    @Test func aMapGrownByAnotherProcessIsStillReleasedAfterItMoved() async throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try LMDBBackend(
            configuration: .init(path: storage.path, initialMapSize: 1 << 20, releaseMappedPagesEvery: 1 << 20))
        defer { try? backend.close() }
        try backend.write { try $0.set(Array("here".utf8), [1]) }
        let before = LMDBMappedPages.findMapping(of: storage.path + "/data.mdb")
        #expect(before != nil)
        // One transaction of 24 000 values of 1 KiB: the other process grows the map past 24 MiB.
        let probe = try TestProbe.launch(["lmdb-increment", storage.path, "1", "24000", storage.path + "/ack"])
        let outcome = await probe.finish()
        #expect(outcome.status == 0, "probe failed with status \(outcome.status): \(outcome.errorOutput)")

        var count = 0
        var lower = Array("probe.batch.".utf8)
        let upper = Array("probe.batch/".utf8)
        while true {
            let page = try backend.read { try $0.scan(KeyRange(from: lower, to: upper), limit: 256) }
            for pair in page where pair.value != [UInt8](repeating: 7, count: 1024) {
                Issue.record("\(String(decoding: pair.key, as: UTF8.self)) read back wrong")
                return
            }
            count += page.count
            guard let last = page.last else { break }
            lower = last.key + [0]
        }
        #expect(count == 24000)
        let after = LMDBMappedPages.findMapping(of: storage.path + "/data.mdb")
        #expect(after != nil && after!.length > before!.length, "the mapping grew: \(String(describing: after))")
        let resident = try residentBytes(of: storage.path + "/data.mdb")
        #expect(resident < 8 << 20, "data.mdb resident after a 24 MiB scan: \(resident) bytes")
    }

    /// Only one shared mapping of the file is ever advised: a private mapping of a file named
    /// `data.mdb` is not a candidate, and two separate shared mappings of one file make the
    /// lookup give up rather than advise what lies between them.
    @Test func onlyASingleSharedMappingOfTheDataFileIsACandidate() throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let file = storage.path + "/data.mdb"
        let length = 1 << 20
        #expect(FileManager.default.createFile(atPath: file, contents: Data(count: length)))
        let descriptor = open(file, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(LMDBMappedPages.findMapping(of: file) == nil, "not mapped yet")

        let privateMap = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0)
        #expect(privateMap != MAP_FAILED)
        defer { munmap(privateMap, length) }
        #expect(LMDBMappedPages.findMapping(of: file) == nil, "a private mapping only")

        let shared = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        #expect(shared != MAP_FAILED)
        defer { munmap(shared, length) }
        let found = LMDBMappedPages.findMapping(of: file)
        #expect(found?.start == UInt(bitPattern: shared), "the shared mapping's start")
        #expect(found?.length == length)

        let second = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        #expect(second != MAP_FAILED)
        defer { munmap(second, length) }
        if UInt(bitPattern: second) + UInt(length) != UInt(bitPattern: shared)
            && UInt(bitPattern: shared) + UInt(length) != UInt(bitPattern: second)
        {
            #expect(LMDBMappedPages.findMapping(of: file) == nil, "two separate shared mappings")
        }
    }
}
