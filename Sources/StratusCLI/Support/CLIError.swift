import Foundation
import Stratus
import StratusBackend
import StratusConfiguration

/// A failure the tool reports as one line, `error: <message>`, and an exit status.
///
/// Exit statuses follow `sysexits.h`: 1 when an operation fails (a `CKError`) or a
/// conformance case fails, 64 for a usage error (from the argument parser), 65 for bad input
/// data, 66 for a missing input file, 78 for a configuration error.
struct CLIError: Error {
    /// The line after `error: `.
    var message: String
    /// The process's exit status.
    var exitCode: Int32

    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let configuration: Int32 = 78

    init(_ message: String, exitCode: Int32 = CLIError.failure) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The report of `error`, or `nil` for the argument parser's own errors (help, usage,
    /// validation), which it prints itself.
    init?(describing error: any Error) {
        switch error {
        case let error as CLIError:
            self = error
        case let error as CKError:
            self.init(Self.describe(error), exitCode: Self.failure)
        case let error as BackendConfigurationError:
            self.init(error.message, exitCode: Self.configuration)
        case let error as StratusSettingsError:
            self.init(error.message, exitCode: Self.configuration)
        case let error as BackendError:
            self.init("backend: \(error.code): \(error.message)", exitCode: Self.failure)
        default:
            if String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") { return nil }
            self.init(String(describing: error), exitCode: Self.failure)
        }
    }

    /// `code: message`, such as `zoneNotFound: Zone 'Notes' does not exist`; for a partial
    /// failure, the first item's error.
    static func describe(_ error: CKError) -> String {
        if error.code == .partialFailure, let first = error.partialErrorsByItemID?.first?.value as? CKError {
            return describe(first)
        }
        let message = error.localizedDescription
        return message.isEmpty ? error.code.name : "\(error.code.name): \(message)"
    }

    /// The report of any error an operation passed back for one item.
    static func describe(_ error: any Error) -> String {
        if let error = error as? CKError { return describe(error) }
        return String(describing: error)
    }
}
