import Foundation
public import StratusBackend

/// A PostgreSQL 15 server of one test's own, for faults that would disturb every other test on
/// the shared server (a restart). `scripts/postgres-server.sh` does the work — the same script
/// that starts the shared test server — in a temporary directory removed by ``stop()``.
public final class PostgreSQLPrivateServer: Sendable {
    /// Why the server could not be started, restarted or stopped.
    public struct Failure: Error, CustomStringConvertible {
        /// Why the server could not be started or changed.
        public var description: String
    }

    /// The server's URL (`postgresql://postgres@127.0.0.1:PORT/postgres`).
    public let url: BackendURL
    private let base: String

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-server.sh").path

    /// Starts a server with PostgreSQL's durable defaults (fsync and synchronous commit on:
    /// an immediate restart must not lose an acknowledged commit).
    ///
    /// - Throws: ``Failure`` saying why the server could not be started.
    public init() throws {
        let name = "stratus-pg-private-\(UUID().uuidString.prefix(8))"
        base = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        let output: String
        do {
            output = try PostgreSQLPrivateServer.run(["start", base])
        } catch {
            PostgreSQLPrivateServer.stop(base)
            throw error
        }
        guard let line = output.split(separator: "\n").last, let url = try? BackendURL(String(line)) else {
            PostgreSQLPrivateServer.stop(base)
            throw Failure(description: "PostgreSQL: postgres-server.sh start printed no URL: \(output)")
        }
        self.url = url
    }

    /// Restarts the server (`pg_ctl restart -m fast` or `-m immediate`, a simulated crash) and
    /// waits until it accepts connections again.
    public func restart(immediate: Bool) throws {
        _ = try PostgreSQLPrivateServer.run(["restart", base, immediate ? "immediate" : "fast"])
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`), keeping its data
    /// directory and port for ``resume()``: an outage that clients see as refused connections.
    public func halt() throws {
        _ = try PostgreSQLPrivateServer.run(["halt", base])
    }

    /// Starts a halted server again on the same data directory, port and options, and waits
    /// until it accepts connections.
    public func resume() throws {
        _ = try PostgreSQLPrivateServer.run(["resume", base])
    }

    /// Stops the server and removes its directory. Calling it again does nothing.
    public func stop() {
        PostgreSQLPrivateServer.stop(base)
    }

    private static func stop(_ base: String) {
        _ = try? run(["stop", base])
    }

    /// Runs the script and returns its standard output; throws its standard error when it
    /// fails. Output goes through files, not pipes: nothing here waits for every holder of a
    /// descriptor to close it (the server the script starts outlives the script).
    private static func run(_ arguments: [String]) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-pg-script-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out")
        let err = directory.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
            FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw Failure(description: "PostgreSQL: cannot create files in \(directory.path)") }
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        // A bounded wait, not `waitUntilExit()`, should the script ever hang.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw Failure(description: "PostgreSQL: cannot run \(script): \(error)")
        }
        guard exited.wait(timeout: .now() + 120) == .success else {
            process.terminate()
            throw Failure(
                description: "PostgreSQL: `postgres-server.sh \(arguments.joined(separator: " "))` took over 2 minutes")
        }
        let output = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            throw Failure(
                description:
                    "PostgreSQL: `postgres-server.sh \(arguments.joined(separator: " "))` failed (status \(process.terminationStatus)): \(message)"
            )
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
