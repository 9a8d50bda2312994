import Foundation
import StratusBackend
import StratusPostgreSQL

/// The PostgreSQL backend on a server: a private PostgreSQL 15 server the run starts (durable
/// settings, loopback TCP; see ``PostgreSQLBenchServer``), or the one
/// ``TargetSettings/postgresURL`` names. Each run works in a database of its own, created for
/// it and dropped after it; each store is a schema of that database, and its location is the
/// backend's URL (`postgresql://…/database?schema=…`), which the peak-memory child opens.
struct PostgreSQLTarget: BenchmarkTarget {
    let name = "postgresql"
    /// What the session found the server to be.
    private(set) var label = "PostgreSQL (no server: outside a session)"
    /// The run's database, without options, or `nil` outside ``withSession(_:_:)``.
    private var database: BackendURL?
    /// The server's URL as the session was given it or started it, for child processes.
    private var server: String?

    var childEnvironment: [String: String] {
        server.map { ["STRATUS_BENCH_POSTGRES_URL": $0] } ?? [:]
    }

    func withSession<T>(_ settings: TargetSettings, _ body: (any BenchmarkTarget) throws -> T) throws -> T {
        var server: PostgreSQLBenchServer?
        if settings.postgresURL == nil {
            Log.detail("postgresql: starting a private server")
            server = try PostgreSQLBenchServer()
        }
        defer { server?.stop() }
        guard let text = settings.postgresURL ?? server?.url else { throw BenchmarkFailure("PostgreSQL: no server") }
        let serverURL = try BackendURL(text)
        let admin = try LibPQConnection(Self.conninfo(serverURL))
        let version = try admin.value("SHOW server_version")
        let durability = try ["fsync", "synchronous_commit", "full_page_writes"].map {
            "\($0)=\(try admin.value("SHOW \($0)"))"
        }
        let databaseName = "stratus_bench_\(getpid())_\(Int(Date().timeIntervalSince1970))"
        try admin.execute("CREATE DATABASE \(databaseName)")
        defer { try? admin.execute("DROP DATABASE IF EXISTS \(databaseName) WITH (FORCE)") }
        var target = self
        target.server = text
        target.database = BackendURL(
            scheme: serverURL.scheme, authority: serverURL.authority, path: "/" + databaseName,
            options: serverURL.options.filter { $0.name != "schema" })
        let host = serverURL.authority?.host ?? "$PGHOST"
        target.label =
            "PostgreSQL \(version), \(server == nil ? "server at \(host)" : "private server on \(host)") "
            + "(\(durability.joined(separator: ", "))), one schema per store"
        Log.detail("postgresql: \(target.label), database \(databaseName)")
        return try body(target)
    }

    func makeStore(in directory: String) throws -> BenchmarkStore {
        guard let database else {
            throw BenchmarkFailure("PostgreSQL: stores are made inside a session (a server and a database)")
        }
        let schema = "s_" + (0..<12).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        let url = database.settingOption("schema", to: schema)
        return BenchmarkStore(
            backend: try PostgreSQLBackendProvider().makeBackend(for: url), location: url.string)
    }

    func openStore(at location: String) throws -> any DatabaseBackend {
        try PostgreSQLBackendProvider().makeBackend(for: try BackendURL(location))
    }

    func rawBaseline(rows: Int, valueBytes: Int, in directory: String) throws -> RawBaseline {
        guard let database else { throw BenchmarkFailure("PostgreSQL: the raw baseline runs inside a session") }
        return try PostgreSQLRawBaseline(conninfo: Self.conninfo(database)).run(rows: rows, valueBytes: valueBytes)
    }

    /// The libpq URI of `url`: its server and database, and `sslmode` (the backend's own
    /// options, such as `schema` and `pool`, are not libpq's).
    private static func conninfo(_ url: BackendURL) -> String {
        BackendURL(
            scheme: url.scheme, authority: url.authority, path: url.path,
            options: url.options.filter { $0.name == "sslmode" }
        ).string
    }
}
