public import StratusBackend

/// Makes ``PostgreSQLBackend``s from `postgresql:` URLs.
///
/// ```
/// postgresql://user:password@host:5432/database?pool=8&sslmode=require&schema=stratus
/// postgresql:///app            (host, port, user, password from PGHOST, PGPORT, PGUSER, PGPASSWORD)
/// postgresql:                  (everything from the PG* environment variables)
/// ```
///
/// Options: `pool` (1…256, default 4), `sslmode` (libpq's), `schema` (default `stratus`),
/// `connectTimeout` (a duration, default `10s`). Parts the URL leaves out fall back to the
/// standard `PG*` environment variables, then to libpq's defaults.
public struct PostgreSQLBackendProvider: BackendProvider {
    /// A provider.
    public init() {}

    /// `postgresql`.
    public var scheme: String { "postgresql" }

    /// One line for listings.
    public var summary: String { "PostgreSQL: many Stratus processes on one server, one schema per store" }

    /// The URL forms.
    public var examples: [String] {
        ["postgresql://stratus:secret@db.internal:5432/app?pool=8&sslmode=require", "postgresql:///app?schema=tenant1"]
    }

    /// `pool`, `sslmode`, `schema` and `connectTimeout`.
    public var options: [BackendOption] {
        [
            BackendOption(
                name: "pool", accepted: "1 to 256", defaultValue: "4",
                summary: "how many connections (and so concurrent transactions) the backend holds"),
            BackendOption(
                name: "sslmode", accepted: "disable | allow | prefer | require | verify-ca | verify-full",
                defaultValue: "$PGSSLMODE, else prefer", summary: "libpq's TLS mode"),
            BackendOption(
                name: "schema", accepted: "letters, digits and _, up to 63", defaultValue: "stratus",
                summary: "the PostgreSQL schema holding the store; created and migrated by the backend"),
            BackendOption(
                name: "connectTimeout", accepted: "a duration: 2s, 10s, 1m", defaultValue: "10s",
                summary: "how long a connection attempt may take"),
        ]
    }

    /// The configuration `url` describes, without connecting.
    ///
    /// - Throws: ``BackendConfigurationError`` naming a bad location or option value.
    public func configuration(for url: BackendURL) throws -> PostgreSQLBackend.Configuration {
        var configuration = PostgreSQLBackend.Configuration()
        if let authority = url.authority {
            configuration.host = authority.host.isEmpty ? nil : authority.host
            configuration.port = authority.port
            configuration.user = authority.user
            configuration.password = authority.password
        }
        var database = url.path
        if database.hasPrefix("/") { database.removeFirst() }
        guard !database.contains("/") else {
            throw BackendConfigurationError.invalidLocation(
                url, "the path names one database: postgresql://host/database")
        }
        configuration.database = database.isEmpty ? nil : database
        let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
        configuration.sslMode = try url.choice("sslmode", modes.map { ($0, Optional($0)) }, default: nil)
        configuration.poolSize = try url.integer("pool", in: 1...256, default: 4)
        configuration.connectTimeout = try url.duration("connectTimeout", default: .seconds(10))
        if let schema = url.option("schema") {
            guard (try? PostgreSQLSchema(name: schema)) != nil else {
                throw BackendConfigurationError.invalidOptionValue(
                    "schema", of: url, expected: "1 to 63 letters, digits or _, not starting with a digit")
            }
            configuration.schema = schema
        }
        return configuration
    }

    /// Connects to the server `url` names and prepares its store.
    public func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
        try PostgreSQLBackend(configuration: configuration(for: url))
    }

    /// A new schema with a random name on `url`'s server (`url`'s `schema` is ignored),
    /// dropped with everything in it by `destroy()`.
    public func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage {
        _ = try configuration(for: url)
        return PostgreSQLTemporaryStorage(like: url)
    }
}
