import Foundation
import StratusTestSupport

/// The built `stratus` executable, run as a separate process the way a user runs it.
enum StratusExecutable {
    /// What one run did.
    struct Outcome: Sendable {
        var status: Int32
        var output: String
        var errorOutput: String

        /// Standard output's lines.
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The executable, next to the test bundle (`BuiltExecutable`).
    static func url() throws -> URL {
        try BuiltExecutable.url(named: "stratus")
    }

    /// Runs `stratus arguments…` (or `executable arguments…`) in `directory` with
    /// `environment` (only these variables, plus `PATH` and `HOME`), feeding `input` to
    /// standard input, and waits for it to exit.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], input: String? = nil,
        executable: String? = nil
    ) async throws -> Outcome {
        let process = ChildProcess()
        process.executableURL = try executable.map { URL(fileURLWithPath: $0) } ?? url()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var variables = environment
        for name in ["PATH", "HOME", "TMPDIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { variables[name] = variables[name] ?? value }
        }
        process.environment = variables
        // Files, not pipes: an export or a conformance report may be larger than a pipe holds.
        let id = UUID().uuidString
        let outPath = directory.appendingPathComponent(".out-\(id)")
        let errPath = directory.appendingPathComponent(".err-\(id)")
        let inPath = directory.appendingPathComponent(".in-\(id)")
        _ = FileManager.default.createFile(atPath: outPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inPath.path, contents: Data((input ?? "").utf8))
        let out = try FileHandle(forWritingTo: outPath)
        let err = try FileHandle(forWritingTo: errPath)
        let inHandle = try FileHandle(forReadingFrom: inPath)
        defer {
            try? out.close()
            try? err.close()
            try? inHandle.close()
            for path in [outPath, errPath, inPath] { try? FileManager.default.removeItem(at: path) }
        }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inHandle
        let status = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Outcome(
            status: status,
            output: String(decoding: try Data(contentsOf: outPath), as: UTF8.self),
            errorOutput: String(decoding: try Data(contentsOf: errPath), as: UTF8.self))
    }
}

/// A temporary working directory with a SQLite store in it, for one test.
struct CLIWorkspace {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The store every command of the workspace uses.
    var backend: String { "sqlite://\(directory.path)/store.sqlite" }

    /// Runs `stratus arguments… --backend <the workspace's store>`.
    func stratus(_ arguments: String..., input: String? = nil) async throws -> StratusExecutable.Outcome {
        try await StratusExecutable.run(arguments + ["--backend", backend], in: directory, input: input)
    }

    /// Runs `stratus arguments…` with `environment` and no `--backend`.
    func stratus(
        environment: [String: String], _ arguments: [String], input: String? = nil
    ) async throws -> StratusExecutable.Outcome {
        try await StratusExecutable.run(arguments, in: directory, environment: environment, input: input)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// `text` parsed as JSON.
func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}
