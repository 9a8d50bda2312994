import Foundation

/// A private PostgreSQL 15 server for one benchmark run, started by
/// `scripts/postgres-server.sh` — the one place that knows how to `initdb`, start and stop a
/// private server, which the test run and the restart test use too — but with durable
/// settings: `fsync`, `synchronous_commit` and `full_page_writes` on (PostgreSQL's defaults,
/// set explicitly; the test server turns them off), as in production. Everything else is
/// PostgreSQL 15's default configuration (`shared_buffers` 128 MB, …).
final class PostgreSQLBenchServer {
    /// The directory holding the data directory, the socket directory and the logs.
    let base: String
    /// The server's URL for the `postgres` superuser, database `postgres`.
    let url: String

    /// The settings the server is started with, beyond its address.
    static let durableSettings = ["fsync=on", "synchronous_commit=on", "full_page_writes=on"]

    /// `scripts/postgres-server.sh` of the tree this harness was built from.
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-server.sh").path

    /// The settings of the Kinto peer's server (`run-peer.sh`), for `stratus-bench http`'s
    /// side-by-side figures: no durability at all.
    static let peerSettings = ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]

    /// Creates a cluster in a new temporary directory and starts it with `settings` (the
    /// script honours `STRATUS_PG_BIN`, else `/usr/lib/postgresql/15/bin`).
    init(settings: [String] = durableSettings) throws {
        base =
            FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-pg-\(UUID().uuidString)")
            .path
        do {
            try Self.run(["start", base] + settings.flatMap { ["-c", $0] })
            url = try String(contentsOfFile: base + "/url", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            try? Self.run(["stop", base])
            throw error
        }
    }

    /// Stops the server and removes its directory.
    func stop() {
        try? Self.run(["stop", base])
    }

    /// Runs the script with `arguments` and waits; a failure throws with what it printed on
    /// standard error.
    ///
    /// `posix_spawn` and `waitpid`, not Foundation's `Process`: `pg_ctl start` leaves the server
    /// running as a daemon, and `Process` would wait for every holder of the descriptor it
    /// watches (the script closes them, but nothing here should depend on it).
    private static func run(_ arguments: [String]) throws {
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-bench-pg-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let command = ["/bin/bash", script] + arguments
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkFailure("PostgreSQL: cannot run \(script): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import: a normal exit has no signal
        // number in the low 7 bits, and its status in the next 8.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
        guard exitStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw BenchmarkFailure(
                text.isEmpty ? "PostgreSQL: postgres-server.sh \(arguments[0]) failed (wait status \(status))" : text)
        }
    }
}
