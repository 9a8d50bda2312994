import Foundation

/// A `stratusd` for `stratus-bench http`: a container, an API token and a session made with
/// `stratusd admin` in a new temporary directory, then the server started there on a free
/// loopback port, over `backend` (a PostgreSQL URL) or its SQLite default.
final class StratusdServer {
    static let container = "iCloud.org.stratus.bench"
    let port: Int
    /// `?ckAPIToken=…&ckWebAuthToken=…` for the session's user.
    let query: String
    private let process = Process()
    private let directory: URL

    init(executable: String, backend: String?) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-http-\(UUID())")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let backendArguments = backend.map { ["--backend", $0] } ?? []
        let admin = { (arguments: [String]) throws -> String in
            try Self.output(of: executable, ["admin"] + arguments + backendArguments, in: directory)
        }
        _ = try admin(["container", "create", Self.container])
        let token = try admin(["token", "create", "--container", Self.container, "--environment", "development"])
        let session = try admin([
            "session", "create", "--container", Self.container, "--environment", "development", "--user", "bench",
        ])
        query = "?ckAPIToken=\(token)&ckWebAuthToken=\(session)"
        let log = directory.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port", "0", "--metrics-port", "0", "--log-level", "warning"] + backendArguments
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: log)
        try process.run()
        port = try Self.waitForPort(log, process)
    }

    /// The path of `database`'s `operation` with the credentials.
    func path(_ operation: String, database: String = "private") -> String {
        "/database/1/\(Self.container)/development/\(database)/\(operation)\(query)"
    }

    /// The server's process ID.
    var processIdentifier: Int32 { process.processIdentifier }

    /// The server's resident size now (VmRSS), in KiB.
    var residentKiB: Int? {
        let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let line = status?.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.filter(\.isNumber)) }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func waitForPort(_ log: URL, _ process: Process) throws -> Int {
        for _ in 0..<600 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("stratusd listening on ") }),
                let url = line.split(separator: " ").dropFirst(3).first.flatMap({ URL(string: String($0)) }),
                let port = url.port
            {
                return port
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw BenchmarkFailure("stratusd did not start listening")
    }

    private static func output(of executable: String, _ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        let out = directory.appendingPathComponent("admin-\(UUID())")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("stratusd \(arguments.joined(separator: " ")) failed")
        }
        return try String(contentsOf: out, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
