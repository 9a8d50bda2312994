import ArgumentParser
import Foundation
import StratusBackend
import StratusConfiguration
import Synchronization

/// The tool's logging: swift-log's `LoggingSystem`, bootstrapped once, before any command runs,
/// with a `StreamLogHandler` on standard error (standard output holds the command's results).
///
/// The level is `--log-level`, else `STRATUS_LOG_LEVEL`, else the configuration file's
/// `logLevel` (known once a command loads its settings), else `warning`.
enum CLILogging {
    /// The level of loggers made from now on.
    private static let level = Mutex<Logger.Level>(.warning)
    /// Whether `--log-level` set ``level``, so the configuration does not change it.
    private static let levelFromFlag = Mutex(false)

    /// Bootstraps the logging system for `command` and `environment`.
    ///
    /// - Throws: ``CLIError`` (usage) when `STRATUS_LOG_LEVEL` names no level.
    static func bootstrap(for command: any ParsableCommand, environment: [String: String]) throws {
        let flag = globalOptions(of: command)?.logLevel?.level
        var chosen = Logger.Level.warning
        if let flag {
            chosen = flag
        } else if let text = environment["STRATUS_LOG_LEVEL"], !text.isEmpty {
            do {
                chosen = try StratusSettings.logLevel(named: text)
            } catch let error as StratusSettingsError {
                throw CLIError("STRATUS_LOG_LEVEL: \(error.message)", exitCode: CLIError.usage)
            }
        }
        level.withLock { $0 = chosen }
        levelFromFlag.withLock { $0 = flag != nil }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level.withLock { $0 }
            return handler
        }
    }

    /// Applies the configured level (the file's `logLevel` or `STRATUS_LOG_LEVEL`) unless
    /// `--log-level` was given; loggers made afterwards (the backend's, the container's) use it.
    static func apply(_ settings: StratusSettings) {
        guard let configured = settings.logLevel, !levelFromFlag.withLock({ $0 }) else { return }
        level.withLock { $0 = configured }
    }

    /// The global options of a parsed command. ArgumentParser offers no hook between parsing
    /// and `run()` for an option group, so the command's stored `@OptionGroup` is found by
    /// reflection: every command that takes ``GlobalOptions`` takes `--log-level`.
    private static func globalOptions(of command: any ParsableCommand) -> GlobalOptions? {
        Mirror(reflecting: command).children.lazy.compactMap { ($0.value as? OptionGroup<GlobalOptions>)?.wrappedValue }
            .first
    }
}

/// A log level as `--log-level` takes it.
enum LogLevelArgument: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    /// The swift-log level.
    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .warning }
}
