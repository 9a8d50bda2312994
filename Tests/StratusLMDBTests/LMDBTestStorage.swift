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
