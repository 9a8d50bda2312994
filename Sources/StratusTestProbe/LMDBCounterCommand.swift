import StratusBackend
import StratusLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lmdb-increment <directory> <count> [<batch> <ack-file>]`: opens the LMDB environment in
/// `directory` and runs `count` write transactions, each reading the counter under
/// `probe.counter`, writing it back plus one and, with `batch`, writing `batch` keys
/// `probe.batch.<new value>.<i>` of 1 KiB each. After each commit returns, the new value is
/// written to `ack-file` (8 bytes, big-endian): what the writer has acknowledged.
///
/// Two of these on one environment must end with the counter at the sum of their counts; one
/// killed at any moment must leave a counter of at least its last acknowledged value, and
/// every batch of a committed value complete and no key of an uncommitted one.
enum LMDBCounterCommand {
    static let name = "lmdb-increment"
    static let usage = "lmdb-increment <directory> <count> [<batch> <ack-file>]"

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 2 || arguments.count == 4, let count = Int(arguments[1]), count >= 0 else {
            throw ProbeUsageError(message: "usage: \(usage)")
        }
        let batch = arguments.count == 4 ? Int(arguments[2]) ?? 0 : 0
        let ack: Int32 = arguments.count == 4 ? open(arguments[3], O_WRONLY | O_CREAT | O_TRUNC, 0o644) : -1
        let backend = try LMDBBackend(configuration: .init(path: arguments[0], initialMapSize: 1 << 20))
        var retries = 0
        for _ in 0..<count {
            while true {
                do {
                    let value = try backend.write { transaction in
                        let value = try SQLiteCounterCommand.decode(transaction.get(SQLiteCounterCommand.key)) + 1
                        try transaction.set(SQLiteCounterCommand.key, SQLiteCounterCommand.encode(value))
                        for i in 0..<batch {
                            try transaction.set(
                                Array("probe.batch.\(value).\(i)".utf8), [UInt8](repeating: 7, count: 1024))
                        }
                        return value
                    }
                    if ack >= 0 {
                        _ = SQLiteCounterCommand.encode(value).withUnsafeBytes { pwrite(ack, $0.baseAddress, 8, 0) }
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
