// StratusTestProbe: a helper program that tests launch as separate processes.
//
// Usage: StratusTestProbe <subcommand> [arguments...]
// Each subcommand lives in its own file as a type with a `name`, a `usage` and a
// `run(_ arguments: [String]) throws`; add it to `ProbeCommands.all` and the switch below.
// Exit status: 0 on success, 1 on failure (with a message on standard error), 2 on bad usage.

import StratusBackend

// Tests parse standard output: Stratus's logs go to standard error, warnings and worse only.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let subcommand = arguments.first else {
    Probe.exitWithUsage("no subcommand given")
}
let subcommandArguments = Array(arguments.dropFirst())

do {
    switch subcommand {
    case SQLiteCounterCommand.name:
        try SQLiteCounterCommand.run(subcommandArguments)
    case LMDBCounterCommand.name:
        try LMDBCounterCommand.run(subcommandArguments)
    case CrashWriterCommand.name:
        try CrashWriterCommand.run(subcommandArguments)
    case LongLivedWriterCommand.name:
        try LongLivedWriterCommand.run(subcommandArguments)
    case SyncWriterCommand.name:
        try SyncWriterCommand.run(subcommandArguments)
    case LMDBHoldReadCommand.name:
        try LMDBHoldReadCommand.run(subcommandArguments)
    case NamespaceNumbersCommand.name:
        try NamespaceNumbersCommand.run(subcommandArguments)
    case RemoteWriterCommand.name:
        try RemoteWriterCommand.run(subcommandArguments)
    case RemoteSyncerCommand.name:
        try RemoteSyncerCommand.run(subcommandArguments)
    case RemoteLongLivedCommand.name:
        try RemoteLongLivedCommand.run(subcommandArguments)
    case RemoteAssetReaderCommand.name:
        try RemoteAssetReaderCommand.run(subcommandArguments)
    case SyncEngineDeviceCommand.name:
        try SyncEngineDeviceCommand.run(subcommandArguments)
    default:
        Probe.exitWithUsage("unknown subcommand '\(subcommand)'")
    }
} catch let error as ProbeUsageError {
    Probe.exitWithUsage(error.message)
} catch {
    Probe.fail("\(subcommand) failed: \(error)")
}
