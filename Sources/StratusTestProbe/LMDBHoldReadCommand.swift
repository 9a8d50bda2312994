import Foundation
import StratusLMDB

/// `lmdb-hold-read <directory>`: opens the LMDB environment in `directory`, begins a read
/// transaction, prints `READING` and keeps the transaction (and its slot in LMDB's reader
/// table) until it is killed, or for at most two minutes. A test kills it to leave a stale
/// reader slot behind.
enum LMDBHoldReadCommand {
    static let name = "lmdb-hold-read"
    static let usage = "lmdb-hold-read <directory>"

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw ProbeUsageError(message: "usage: \(usage)") }
        let backend = try LMDBBackend(configuration: .init(path: arguments[0]))
        try backend.read { _ in
            FileHandle.standardOutput.write(Data("READING\n".utf8))
            for _ in 0..<120 { sleep(1) }
        }
        try backend.close()
    }
}
