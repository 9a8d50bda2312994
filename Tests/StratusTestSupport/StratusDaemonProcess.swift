import Foundation
import Testing

/// A `stratusd` started by a test on loopback, on a free port and a store of its own, stopped
/// (SIGTERM) when the test is done.
public final class StratusDaemonProcess: @unchecked Sendable {
    /// The running `stratusd`.
    public let process = ChildProcess()
    /// The server's URL, from its "listening on" line.
    public let baseURL: URL
    /// The Prometheus listener's `/metrics` URL, from the "stratusd metrics on" line.
    public let metricsURL: URL
    /// The server's working directory (its default store is `.stratus/` there).
    public let directory: TemporaryDirectory
    /// Whether the directory was made for this process (and goes with it).
    private let ownsDirectory: Bool
    private let output: URL
    private let errors: URL

    /// A server that did not start, or an admin command that failed.
    public struct StartFailure: Error, CustomStringConvertible {
        /// What went wrong: the server's or command's standard error.
        public var description: String

        /// A failure saying `description`.
        public init(description: String) {
            self.description = description
        }
    }

    /// Starts `stratusd --port 0 --metrics-port 0` in `directory`, else a new temporary
    /// directory (so its default store is `.stratus/` there, and parallel tests never share a
    /// port), with `arguments`, and waits for its "listening" and "metrics" lines.
    public init(arguments: [String] = [], environment: [String: String] = [:], directory: TemporaryDirectory? = nil)
        throws
    {
        self.directory = try directory ?? TemporaryDirectory(prefix: "stratusd")
        ownsDirectory = directory == nil
        output = self.directory.appending("stdout-\(UUID())")
        errors = self.directory.appending("stderr-\(UUID())")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = try BuiltExecutable.url(named: "stratusd")
        process.arguments = ["--port", "0", "--metrics-port", "0"] + arguments
        process.currentDirectoryURL = self.directory.url
        var variables = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        variables.merge(environment) { $1 }
        process.environment = variables
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        baseURL = try Self.waitForLine("stratusd listening on ", output, process: process, errors: errors)
        metricsURL = try Self.waitForLine("stratusd metrics on ", output, process: process, errors: errors)
    }

    /// What the server wrote on standard output so far.
    public var standardOutput: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
    /// What the server wrote on standard error so far.
    public var standardError: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// The URL that follows `prefix` on a line of the server's output, once there is one.
    private static func waitForLine(_ prefix: String, _ output: URL, process: ChildProcess, errors: URL) throws -> URL {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
                let address = line.split(separator: " ").dropFirst(3).first, let url = URL(string: String(address))
            {
                return url
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        throw StartFailure(description: "stratusd did not start listening: \(stderr)")
    }

    /// Sends SIGTERM and waits up to `seconds` for the process to exit; returns its status.
    /// A server still running then is a bug (graceful shutdown must end): it is killed with
    /// SIGKILL, the test records an issue, and the status is SIGKILL's.
    @discardableResult
    public func stop(within seconds: TimeInterval = 60) -> Int32 {
        if process.isRunning {
            process.terminate()
            if !process.waitForExit(within: seconds) {
                _ = Foundation.kill(process.processIdentifier, SIGKILL)
                _ = process.waitForExit(within: 60)
                Issue.record(
                    "stratusd (pid \(process.processIdentifier)) did not stop within \(Int(seconds)) s of SIGTERM; killed. Its standard error:\n\(standardError.suffix(4_000))"
                )
            }
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
        if ownsDirectory { try? directory.remove() }
    }
}
