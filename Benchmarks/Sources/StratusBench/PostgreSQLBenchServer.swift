import Foundation

/// A private PostgreSQL server for one benchmark run, as `scripts/test-postgres-server.sh`
/// starts one for the tests — `initdb` into a temporary directory, `pg_ctl start` on a free
/// loopback port, as the `postgres` user when running as root (PostgreSQL refuses to run as
/// root) — but with durable settings: `fsync`, `synchronous_commit` and `full_page_writes`
/// on (PostgreSQL's defaults, set explicitly), as in production. Everything else is
/// PostgreSQL 15's default configuration (`shared_buffers` 128 MB, …).
final class PostgreSQLBenchServer {
    /// The directory holding the data directory, the socket directory and the logs.
    let base: String
    /// The loopback port the server listens on.
    let port: Int
    /// The directory of `initdb`, `pg_ctl` and `postgres`.
    let binaries: String
    /// The command prefix that runs a program as the server's user (empty when not root).
    private let runAs: [String]

    /// The server's URL for the `postgres` superuser, database `postgres`.
    var url: String { "postgresql://postgres@127.0.0.1:\(port)/postgres" }

    /// The settings the server is started with, beyond its address.
    static let durableSettings = ["fsync=on", "synchronous_commit=on", "full_page_writes=on"]

    /// Creates a cluster in a new temporary directory and starts it; `binaries` defaults to
    /// `STRATUS_PG_BIN`, else `/usr/lib/postgresql/15/bin`.
    init(binaries: String? = nil) throws {
        let bin =
            binaries ?? ProcessInfo.processInfo.environment["STRATUS_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
        guard FileManager.default.isExecutableFile(atPath: bin + "/initdb") else {
            throw BenchmarkFailure(
                "PostgreSQL: no initdb in \(bin) (apt-get install postgresql-15, set STRATUS_PG_BIN, or pass "
                    + "--postgres-url / STRATUS_BENCH_POSTGRES_URL)")
        }
        self.binaries = bin
        base =
            FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-pg-\(UUID().uuidString)")
            .path
        port = try Self.freeLoopbackPort()
        runAs = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        do {
            try start()
        } catch {
            try? FileManager.default.removeItem(atPath: base)
            throw error
        }
    }

    private func start() throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: base + "/data", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: base + "/sock", withIntermediateDirectories: true)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        if !runAs.isEmpty { try Self.run(["/bin/chown", "-R", "postgres:postgres", base], log: nil) }
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: base + "/data")
        // --no-sync only skips initdb's own final flush of the new cluster, not the server's.
        try Self.run(
            runAs + [
                binaries + "/initdb", "-D", base + "/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--locale=C.UTF-8", "--no-sync",
            ], log: base + "/initdb.log")
        let options =
            ["-c listen_addresses=127.0.0.1", "-p \(port)", "-k \(base)/sock"]
            + Self.durableSettings.map { "-c " + $0 }
        try Self.run(
            runAs + [
                binaries + "/pg_ctl", "-D", base + "/data", "-l", base + "/server.log", "-o",
                options.joined(separator: " "), "-w", "-t", "60", "start",
            ], log: base + "/pg_ctl.log")
    }

    /// Stops the server (`pg_ctl stop -m fast`) and removes its directory.
    func stop() {
        try? Self.run(
            runAs + [binaries + "/pg_ctl", "-D", base + "/data", "-m", "fast", "-w", "stop"], log: base + "/stop.log")
        try? FileManager.default.removeItem(atPath: base)
    }

    /// Runs `arguments` and waits; its output goes to `log` (created), and a failure throws
    /// with the log's last lines.
    ///
    /// `posix_spawn` and `waitpid`, not Foundation's `Process`: `pg_ctl start` leaves the server
    /// running as a daemon, which would inherit the descriptor `Process` watches to see its
    /// child exit and so keep `waitUntilExit()` waiting for as long as the server runs.
    private static func run(_ arguments: [String], log: String?) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkFailure("PostgreSQL: cannot run \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import: a normal exit has no signal
        // number in the low 7 bits, and its status in the next 8.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
        guard exitStatus == 0 else {
            let text = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            let tail = text.split(separator: "\n").suffix(10).joined(separator: "\n")
            throw BenchmarkFailure(
                "PostgreSQL: \(arguments.joined(separator: " ")) failed (wait status \(status))\n\(tail)")
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice for port 0).
    private static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkFailure("PostgreSQL: cannot open a socket to find a free port") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw BenchmarkFailure("PostgreSQL: cannot find a free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
