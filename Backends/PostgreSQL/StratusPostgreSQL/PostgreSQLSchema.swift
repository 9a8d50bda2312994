import StratusBackend

/// Where a store lives on the server — one PostgreSQL schema — and its numbered migrations.
///
/// A store is the schema's table `kv (key bytea PRIMARY KEY, value bytea NOT NULL)` (PostgreSQL
/// compares `bytea` with `memcmp`, then by length: the SPI's key order) and
/// `stratus_schema_version (version integer)`, the highest migration applied. Opening a
/// backend applies missing migrations in one transaction under an advisory lock, so processes
/// opening the same store at once do not race; a store already at the current version is
/// recognized with two reads and no lock.
struct PostgreSQLSchema: Sendable {
    /// The schema's name: letters, digits and `_`, not starting with a digit, at most 63 bytes.
    let name: String

    /// The migrations, in order: migration `n` is `migrations[n - 1]`. Never edit one that has
    /// shipped; append a new one.
    static let migrations: [[String]] = [
        ["CREATE TABLE IF NOT EXISTS {schema}.kv (key bytea PRIMARY KEY, value bytea NOT NULL)"]
    ]

    /// The version this build writes and reads.
    static var currentVersion: Int { migrations.count }

    /// A schema named `name`, checked.
    init(name: String) throws {
        let bytes = Array(name.utf8)
        let valid =
            !bytes.isEmpty && bytes.count <= 63
            && bytes.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F
            }
            && !(bytes[0] >= 0x30 && bytes[0] <= 0x39)
        guard valid else {
            throw BackendError(
                .invalidArgument,
                "PostgreSQL: schema name '\(name)' must be 1 to 63 letters, digits or '_', not starting with a digit")
        }
        self.name = name
    }

    /// The schema, quoted.
    var quoted: String { "\"\(name)\"" }
    /// The key-value table, quoted and qualified.
    var table: String { "\(quoted).kv" }
    private var versionTable: String { "\(quoted).stratus_schema_version" }

    /// Creates the schema and applies missing migrations, or checks the store is one this
    /// build can use.
    func prepare(_ connection: PostgreSQLConnection) throws {
        if try version(connection) == PostgreSQLSchema.currentVersion { return }
        do {
            try connection.run([
                PostgreSQLStatement("BEGIN"),
                PostgreSQLStatement("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("stratus:" + name)]),
                PostgreSQLStatement("CREATE SCHEMA IF NOT EXISTS \(quoted)"),
                PostgreSQLStatement("CREATE TABLE IF NOT EXISTS \(versionTable) (version integer NOT NULL)"),
            ])
            let found = try version(connection)
            guard found <= PostgreSQLSchema.currentVersion else {
                throw BackendError(
                    .invalidArgument,
                    "PostgreSQL: schema '\(name)' holds a store of format version \(found); this build reads versions up to \(PostgreSQLSchema.currentVersion)"
                )
            }
            var statements: [PostgreSQLStatement] = []
            for migration in PostgreSQLSchema.migrations[found...] {
                statements += migration.map { PostgreSQLStatement($0.replacing("{schema}", with: quoted)) }
            }
            statements.append(PostgreSQLStatement("DELETE FROM \(versionTable)"))
            statements.append(
                PostgreSQLStatement(
                    "INSERT INTO \(versionTable) (version) VALUES ($1::bigint)",
                    [.int8(Int64(PostgreSQLSchema.currentVersion))]))
            statements.append(PostgreSQLStatement("COMMIT"))
            try connection.run(statements)
        } catch {
            if connection.isReusable == false && !connection.isBroken {
                _ = try? connection.run([PostgreSQLStatement("ROLLBACK")])
            }
            throw error
        }
    }

    /// The store's format version: 0 when the schema or its version table does not exist.
    private func version(_ connection: PostgreSQLConnection) throws -> Int {
        let exists = try connection.run([
            PostgreSQLStatement("SELECT to_regclass($1) IS NOT NULL", [.text("\(versionTable)")])
        ])
        guard exists[0].boolean(row: 0, column: 0) == true else { return 0 }
        let result = try connection.run([
            PostgreSQLStatement("SELECT coalesce(max(version), 0)::bigint FROM \(versionTable)")
        ])
        return Int(result[0].integer(row: 0, column: 0) ?? 0)
    }
}
