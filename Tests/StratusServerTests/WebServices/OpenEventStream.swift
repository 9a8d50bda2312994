import Foundation
import StratusTestSupport

/// A server-sent events stream held open by `curl` in the background while a test acts, its
/// body gathered in a file as it arrives: what the stream delivered so far, and whether the
/// server ended it (`curl` exits 0 when the body finishes, 28 when its time runs out first).
final class OpenEventStream {
    private let process = ChildProcess()
    private let directory: TemporaryDirectory
    private let file: URL

    /// Starts reading `url`, for at most `seconds`.
    init(url: String, seconds: Int) throws {
        directory = try TemporaryDirectory(prefix: "event-stream")
        file = directory.appending("body")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sN", "--max-time", "\(seconds)", url]
        process.standardOutput = try FileHandle(forWritingTo: file)
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            _ = process.waitForExit(within: 30)
        }
        try? directory.remove()
    }

    /// The body received so far.
    var text: String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` until the body holds `marker`: whether it does.
    func waitFor(_ marker: String, within seconds: Int) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline, process.isRunning, !text.contains(marker) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return text.contains(marker)
    }

    /// Waits up to `seconds` until `curl` exits or the body holds `marker` (when the stream
    /// goes on, what it sent tells more than the time running out): whether `curl` exited.
    func waitForEnd(within seconds: Int, orUntil marker: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline, process.isRunning, !text.contains(marker) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return !process.isRunning
    }

    /// When `curl` exited, as its reaping thread saw it (`nil` while it runs).
    var endedAt: ContinuousClock.Instant? { process.exitedAt }

    /// Whether the server finished the body: `curl` exited with status 0.
    var endedByTheServer: Bool { !process.isRunning && process.terminationStatus == 0 }
}
