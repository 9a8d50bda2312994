public import Foundation
import Synchronization

/// A probe process whose standard output is read line by line while it runs, and which can
/// be killed with `SIGKILL`.
public final class KillableProbe: @unchecked Sendable {
    /// When the probe kills the process by itself: after the `count`th line starting with
    /// `linePrefix`, and `delayMicroseconds` more. The line reader's own thread counts and
    /// kills, so the kill point does not move when Swift concurrency's pool is busy (in a
    /// parallel test run, other tests' blocking bodies can hold its threads for seconds).
    public struct KillPoint: Sendable {
        /// What the counted lines start with (`ACK `).
        public var linePrefix: String
        /// The line, counted from 1, after which the process is killed.
        public var count: Int
        /// How long after that line the kill comes, in microseconds.
        public var delayMicroseconds: Int

        /// A kill point after `count` lines starting with `linePrefix`, then the delay.
        public init(after count: Int, linesStartingWith linePrefix: String, delayMicroseconds: Int) {
            self.linePrefix = linePrefix
            self.count = count
            self.delayMicroseconds = delayMicroseconds
        }
    }

    private let process = ChildProcess()
    private let status: Task<(reason: Process.TerminationReason, status: Int32), Never>
    private let state = Mutex<(unterminated: String, errorOutput: String, killedAtKillPoint: Bool)>(("", "", false))

    /// The complete lines of standard output, as they arrive; it ends when the process has
    /// closed its output (exited or was killed).
    public let lines: AsyncStream<String>

    /// Launches the probe with `arguments`; with a `killPoint`, the probe kills it there.
    public init(arguments: [String], killPoint: KillPoint? = nil) throws {
        process.executableURL = try TestProbe.executable()
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let (stream, continuation) = AsyncStream<(Process.TerminationReason, Int32)>.makeStream()
        process.terminationHandler = { process in
            continuation.yield((process.terminationReason, process.terminationStatus))
            continuation.finish()
        }
        status = Task {
            var last: (reason: Process.TerminationReason, status: Int32) = (.exit, -1)
            for await value in stream { last = value }
            return last
        }
        let (lines, lineContinuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        self.lines = lines
        try process.run()

        // Readers on threads of their own: blocking reads must not occupy Swift
        // concurrency's pool.
        let outputHandle = output.fileHandleForReading
        Thread { [self] in
            var pending: [UInt8] = []
            var matched = 0
            while true {
                let chunk = outputHandle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                var start = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[start..<newline], as: UTF8.self)
                    lineContinuation.yield(line)
                    start = newline + 1
                    if let killPoint, line.hasPrefix(killPoint.linePrefix) {
                        matched += 1
                        if matched == killPoint.count {
                            usleep(UInt32(max(0, killPoint.delayMicroseconds)))
                            kill()
                            state.withLock { $0.killedAtKillPoint = true }
                        }
                    }
                }
                pending.removeFirst(start)
            }
            // What the kill cut short: written, but never finished with a newline.
            state.withLock { $0.unterminated = String(decoding: pending, as: UTF8.self) }
            lineContinuation.finish()
        }.start()
        let errorHandle = errors.fileHandleForReading
        Thread { [self] in
            let data = errorHandle.readDataToEndOfFile()
            state.withLock { $0.errorOutput = String(decoding: data, as: UTF8.self) }
        }.start()
    }

    /// Sends `SIGKILL` (harmless once the process has exited).
    public func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the process to end; returns why and its status (the signal, if killed).
    public func exit() async -> (reason: Process.TerminationReason, status: Int32) {
        await status.value
    }

    /// The output after the last newline (a line the kill cut short); read after ``lines``
    /// ended.
    public var unterminatedLine: String { state.withLock { $0.unterminated } }

    /// Standard error so far.
    public var errorOutput: String { state.withLock { $0.errorOutput } }

    /// Whether the probe reached its ``KillPoint`` and killed the process there.
    public var killedAtKillPoint: Bool { state.withLock { $0.killedAtKillPoint } }
}
