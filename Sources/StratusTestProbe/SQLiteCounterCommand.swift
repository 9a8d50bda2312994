import StratusBackend
import StratusSQLite

/// `sqlite-increment <path> <count>`: opens the SQLite store at `path` and runs `count` write
/// transactions, each reading the counter under ``key`` and writing it back plus one. A write
/// that fails with a retryable error (`.busy`, `.conflict`) is run again.
///
/// Two of these on one file must end with the counter at the sum of their counts: a lost
/// update would show that writers in different processes are not serialized.
enum SQLiteCounterCommand {
    static let name = "sqlite-increment"
    static let usage = "sqlite-increment <path> <count>"

    /// The key of the counter.
    static let key = Array("probe.counter".utf8)

    /// The counter's value as stored: 8 bytes, big-endian.
    static func encode(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    /// The counter stored as `bytes`; `nil` bytes (no counter yet) count as 0.
    static func decode(_ bytes: [UInt8]?) throws -> UInt64 {
        guard let bytes else { return 0 }
        guard bytes.count == 8 else {
            throw BackendError(.corrupted, "the counter has \(bytes.count) bytes, not 8")
        }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[1]), count >= 0 else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let backend = try SQLiteBackend(configuration: .init(location: .file(path: arguments[0])))
        defer { try? backend.close() }
        var retries = 0
        for _ in 0..<count {
            while true {
                do {
                    try backend.write { transaction in
                        let value = try decode(transaction.get(key))
                        try transaction.set(key, encode(value + 1))
                    }
                    break
                } catch let error as BackendError where error.code.isRetryable {
                    retries += 1
                }
            }
        }
        try backend.close()
        print("ok \(count) increments, \(retries) retries")
    }
}
