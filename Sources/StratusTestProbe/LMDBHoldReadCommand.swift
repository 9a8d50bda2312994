import Foundation
import StratusLMDB

/// `lmdb-hold-read <directory>`: opens the LMDB environment in `directory`, begins a read
/// transaction, prints `READING` and keeps the transaction (and its slot in LMDB's reader
/// table) until it is killed. A test kills it to leave a stale reader slot behind.
///
/// It has no time limit of its own: in a parallel test run the test that started it can be
/// held off Swift concurrency's pool for minutes, and a probe that let go of its slot by
/// itself meanwhile made the table look reclaimable before the kill. It ends when its parent
/// does (it is re-parented), so a test that died cannot leave it behind.
enum LMDBHoldReadCommand {
    static let name = "lmdb-hold-read"
    static let usage = "lmdb-hold-read <directory>"

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw ProbeUsageError(message: "usage: \(usage)") }
        let parent = getppid()
        let backend = try LMDBBackend(configuration: .init(path: arguments[0]))
        try backend.read { _ in
            FileHandle.standardOutput.write(Data("READING\n".utf8))
            while getppid() == parent { sleep(1) }
        }
        try backend.close()
    }
}
