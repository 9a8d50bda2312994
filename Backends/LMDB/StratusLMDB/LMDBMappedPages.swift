import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps the resident size of an environment's map flat during long reads: once this
/// process's transactions have read ``interval`` bytes, the pages of the map are dropped from
/// the resident set with `madvise(MADV_DONTNEED)`
/// (``LMDBBackend/Configuration/releaseMappedPagesEvery``).
///
/// The map is a read-only shared mapping of `data.mdb` (the backend never sets
/// `MDB_WRITEMAP`), so dropping its pages loses nothing: they stay in the operating system's
/// page cache, and a thread that reads them again maps them again. LMDB does not say where it
/// mapped the file (`me_mapaddr` is only set for a fixed map), so the mapping is looked up in
/// `/proc/self/maps` by the file's inode after the environment is opened and after every
/// resize; where that is not possible, nothing is released.
final class LMDBMappedPages: Sendable {
    /// Bytes read between releases; 0: never release.
    let interval: Int
    private let dataFile: String
    private let bytesSinceRelease = Atomic<Int>(0)
    /// Where `data.mdb` is mapped: start address and length (as an integer, to be Sendable).
    private let mapping = Mutex<(start: UInt, length: Int)?>(nil)

    /// Releases for the environment whose data file is `dataFile`, every `interval` bytes.
    init(dataFile: String, interval: Int) {
        self.dataFile = dataFile
        self.interval = interval
    }

    /// Finds the mapping again. Called when it may have moved: after the environment was
    /// opened and after every resize, with no transaction of this process alive.
    func refresh() {
        guard interval > 0 else { return }
        mapping.withLock { $0 = Self.findMapping(of: dataFile) }
    }

    /// Counts `bytes` read by a transaction that is still alive, and releases the map's pages
    /// once ``interval`` bytes were read since the last release. The caller's transaction
    /// keeps the environment's gate entered, so the map cannot be resized (moved) meanwhile.
    func noteRead(_ bytes: Int) {
        guard interval > 0, bytes > 0 else { return }
        let total = bytesSinceRelease.add(bytes, ordering: .relaxed).newValue
        guard total >= interval,
            bytesSinceRelease.compareExchange(expected: total, desired: 0, ordering: .relaxed).exchanged,
            let (start, length) = mapping.withLock({ $0 }),
            let address = UnsafeMutableRawPointer(bitPattern: start)
        else { return }
        _ = madvise(address, length, Int32(MADV_DONTNEED))
    }

    /// The start and length of this process's shared mapping of `file`, from
    /// `/proc/self/maps` (matched by inode and name); `nil` when there is none, or more than
    /// one (nothing is released rather than advising memory between them).
    static func findMapping(of file: String) -> (start: UInt, length: Int)? {
        var status = stat()
        guard stat(file, &status) == 0,
            let handle = FileHandle(forReadingAtPath: "/proc/self/maps"),
            let data = try? handle.readToEnd()
        else { return nil }
        try? handle.close()
        let name = "/" + (file.split(separator: "/").last.map(String.init) ?? file)
        var ranges: [(low: UInt, high: UInt)] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            // address perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].hasSuffix("s"), UInt64(fields[4]) == UInt64(status.st_ino),
                fields[5].trimmingCharacters(in: .whitespaces).hasSuffix(name)
            else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let low = UInt(bounds[0], radix: 16), let high = UInt(bounds[1], radix: 16),
                high > low
            else { return nil }
            // The kernel may list one mapping in adjacent parts: join those only.
            if let last = ranges.last, last.high == low {
                ranges[ranges.count - 1].high = high
            } else {
                ranges.append((low, high))
            }
        }
        guard ranges.count == 1, let range = ranges.first else { return nil }
        return (range.low, Int(range.high - range.low))
    }
}
