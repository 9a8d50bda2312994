public import Foundation

/// The `StratusTestProbe` helper program, built by `swift test` next to the test bundle.
public enum TestProbe {
    /// The probe's executable, next to the test bundle (``BuiltExecutable``).
    public static func executable() throws -> URL {
        try BuiltExecutable.url(named: "StratusTestProbe")
    }

    /// What a finished probe process did.
    public struct Outcome: Sendable {
        /// The exit status.
        public var status: Int32
        /// What the probe wrote on standard output.
        public var output: String
        /// What the probe wrote on standard error.
        public var errorOutput: String
    }

    /// Launches the probe with `arguments`.
    public static func launch(_ arguments: [String]) throws -> RunningProbe {
        try RunningProbe(executable: executable(), arguments: arguments)
    }
}

/// A probe process that was started.
public final class RunningProbe {
    /// Sends SIGKILL to the process.
    public func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }

    private let process = ChildProcess()
    private let output = Pipe()
    private let errorOutput = Pipe()
    private let exitStatus: Task<Int32, Never>

    /// Starts `executable` with `arguments`, capturing its outputs.
    public init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errorOutput
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { process in
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        exitStatus = Task {
            var status: Int32 = -1
            for await value in stream { status = value }
            return status
        }
        try process.run()
    }

    /// Whether the process is still running.
    public var isRunning: Bool { process.isRunning }

    /// Waits for the process to exit and returns what it did.
    public func finish() async -> TestProbe.Outcome {
        let status = await exitStatus.value
        // The outputs are a few lines, well under a pipe's buffer, so reading them after the
        // exit cannot deadlock.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errorOutput.fileHandleForReading.readDataToEndOfFile()
        return TestProbe.Outcome(
            status: status, output: String(decoding: out, as: UTF8.self),
            errorOutput: String(decoding: err, as: UTF8.self))
    }
}
