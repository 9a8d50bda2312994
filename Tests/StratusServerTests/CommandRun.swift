import Foundation
import StratusTestSupport

/// A program run to its end by a test: `curl`, `openssl`, or a `stratusd` start that must fail.
struct CommandRun {
    /// The exit status; `nil` when the program was still running at the deadline (and was
    /// then stopped).
    var status: Int32?
    var standardOutput: String
    var standardError: String

    /// Runs `executable` with `arguments` in `directory`, for at most `timeout` seconds.
    init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil,
        timeout: TimeInterval = 30
    ) throws {
        let scratch = try TemporaryDirectory(prefix: "command")
        defer { try? scratch.remove() }
        let output = scratch.appending("stdout")
        let errors = scratch.appending("stderr")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? scratch.url
        var variables = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        variables.merge(environment) { $1 }
        process.environment = variables
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            _ = process.waitForExit(within: 30)
            status = nil
        } else {
            status = process.terminationStatus
        }
        standardOutput = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        standardError = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
    }

    /// `curl` with `arguments`, silent but for errors, at most 10 s.
    static func curl(_ arguments: [String]) throws -> CommandRun {
        try CommandRun(
            URL(fileURLWithPath: "/usr/bin/curl"), ["--silent", "--show-error", "--max-time", "10"] + arguments)
    }

    /// The built `stratusd` with `arguments` (metrics on a free port unless overridden), run
    /// until it exits: for starts that must be refused.
    static func stratusd(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
        let directory = try TemporaryDirectory(prefix: "stratusd-refused")
        defer { try? directory.remove() }
        return try CommandRun(
            try BuiltExecutable.url(named: "stratusd"),
            ["--port", "0", "--metrics-port", "0", "--backend", "memory:"] + arguments, environment: environment,
            in: directory.url)
    }
}
