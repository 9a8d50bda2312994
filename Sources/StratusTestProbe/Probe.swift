import Foundation

/// Shared helpers of the probe's subcommands.
enum Probe {
    /// One usage line per subcommand.
    static let usages = [
        SQLiteCounterCommand.usage, LMDBCounterCommand.usage, CrashWriterCommand.usage, LongLivedWriterCommand.usage,
    ]

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
