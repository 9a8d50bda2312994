import Foundation
import StratusLMDB

/// A temporary directory for one LMDB environment, removed by ``destroy()``.
struct LMDBTestStorage {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-lmdb-test-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func open(initialMapSize: Int = 64 << 20, maxMapSize: Int = 1 << 40, maxReaders: Int = 126) throws -> LMDBBackend {
        try LMDBBackend(
            configuration: .init(
                path: path, initialMapSize: initialMapSize, maxMapSize: maxMapSize, maxReaders: maxReaders))
    }

    /// The environment as an `lmdb:` URL with `options` (for probes, which open it themselves).
    func url(_ options: String = "") -> String { "lmdb://" + path + (options.isEmpty ? "" : "?" + options) }

    func destroy() { try? FileManager.default.removeItem(atPath: path) }
}

/// `value` as 8 big-endian bytes.
func be64(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
}

/// 8 big-endian bytes as a number; `nil` as 0.
func fromBE64(_ bytes: [UInt8]?) -> UInt64 {
    (bytes ?? []).reduce(0) { $0 << 8 | UInt64($1) }
}

/// The resident bytes of every mapping of `file` in this process (`Rss:` in
/// `/proc/self/smaps`), so that an LMDB test measures its own environment's map only.
func residentBytes(of file: String) throws -> Int {
    // Read to the end: a /proc file has no size for a whole-file read to go by.
    guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else {
        throw CocoaError(.fileReadNoSuchFile)
    }
    defer { try? handle.close() }
    let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    var total = 0
    var inFile = false
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if let first = fields.first, first.contains("-"), fields.count >= 5 {
            inFile = fields.count >= 6 && fields[5...].joined(separator: " ") == file
        } else if inFile, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
            total += kib << 10
        }
    }
    return total
}
