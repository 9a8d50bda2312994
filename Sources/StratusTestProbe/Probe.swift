import Foundation
import StratusBackend
import StratusLMDB
import StratusSQLite

/// Shared helpers of the probe's subcommands.
enum Probe {
    /// One usage line per subcommand.
    static let usages = [
        SQLiteCounterCommand.usage, LMDBCounterCommand.usage, CrashWriterCommand.usage, LongLivedWriterCommand.usage,
        SyncWriterCommand.usage, LMDBHoldReadCommand.usage, NamespaceNumbersCommand.usage, RemoteWriterCommand.usage,
        RemoteSyncerCommand.usage, RemoteLongLivedCommand.usage, SyncEngineDeviceCommand.usage,
        RemoteAssetReaderCommand.usage,
    ]

    /// Opens the store `store` names: an `lmdb:` URL (options included, such as
    /// `lmdb:///tmp/x?maxReaders=8`; the directory and its missing parents are created), or else
    /// the path of a SQLite file.
    static func openStore(_ store: String) throws -> any DatabaseBackend {
        if store.hasPrefix("lmdb:") {
            return try LMDBBackendProvider().makeBackend(for: BackendURL(store))
        }
        return try SQLiteBackend(configuration: .init(location: .file(path: store)))
    }

    /// Prints `message` and the usage to standard error and exits with status 2.
    static func exitWithUsage(_ message: String) -> Never {
        printError(
            "StratusTestProbe: \(message)\nusage:\n"
                + usages.map { "  StratusTestProbe \($0)" }.joined(separator: "\n"))
        exit(2)
    }

    /// Prints `message` to standard error and exits with status 1.
    static func fail(_ message: String) -> Never {
        printError("StratusTestProbe: \(message)")
        exit(1)
    }

    /// Writes `message` and a newline to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Bad arguments to a subcommand.
struct ProbeUsageError: Error {
    var message: String
}
