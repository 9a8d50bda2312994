import StratusBackend

extension PostgreSQLBackend {
    /// How a ``PostgreSQLBackend`` reaches its server and where its store lives.
    ///
    /// Every property has a default. A connection parameter left `nil` falls back to libpq's
    /// standard environment variables (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
    /// `PGDATABASE`, `PGSSLMODE`, …) and then to libpq's defaults (the local socket, the user
    /// name as database). The ``description`` never shows the password.
    public struct Configuration: Sendable, Hashable, CustomStringConvertible {
        /// The server's host name, address, or Unix socket directory (starting with `/`).
        public var host: String?
        /// The server's port.
        public var port: Int?
        /// The user name.
        public var user: String?
        /// The password; never logged or put in an error message.
        public var password: String?
        /// The database.
        public var database: String?
        /// libpq's `sslmode`: `disable`, `allow`, `prefer`, `require`, `verify-ca` or
        /// `verify-full`.
        public var sslMode: String?
        /// The PostgreSQL schema holding the store, created if missing. Defaults to `stratus`.
        public var schema: String
        /// The most connections the backend holds (one per running transaction). At least 1;
        /// defaults to 4.
        public var poolSize: Int
        /// How long a connection attempt may take. Defaults to 10 seconds.
        public var connectTimeout: Duration
        /// How long a transaction waits for a free pooled connection before failing with
        /// `busy`. Defaults to 30 seconds.
        public var poolWaitLimit: Duration
        /// The `application_name` the server shows in `pg_stat_activity`. Defaults to `stratus`.
        public var applicationName = "stratus"
        /// How write transactions are isolated. Only tests change it: `readCommitted` breaks
        /// serializability on purpose, to show that the concurrency tests catch lost changes.
        package var writeIsolation: WriteIsolation = .serializable

        /// The isolation of write transactions.
        package enum WriteIsolation: Sendable, Hashable {
            case serializable, readCommitted
        }

        /// A configuration; every argument has a default.
        public init(
            host: String? = nil, port: Int? = nil, user: String? = nil, password: String? = nil,
            database: String? = nil, sslMode: String? = nil, schema: String = "stratus", poolSize: Int = 4,
            connectTimeout: Duration = .seconds(10), poolWaitLimit: Duration = .seconds(30)
        ) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
            self.database = database
            self.sslMode = sslMode
            self.schema = schema
            self.poolSize = poolSize
            self.connectTimeout = connectTimeout
            self.poolWaitLimit = poolWaitLimit
        }

        /// The configuration for people and logs, password hidden.
        public var description: String {
            "PostgreSQL(host: \(host ?? "$PGHOST"), port: \(port.map(String.init) ?? "$PGPORT"), "
                + "user: \(user ?? "$PGUSER"), password: \(password == nil ? "none" : "***"), "
                + "database: \(database ?? "$PGDATABASE"), schema: \(schema), pool: \(poolSize))"
        }

        /// The server and database as a `postgresql:` URL with the schema as an option; its
        /// ``BackendURL/description``, the only form that is logged, shows the password as
        /// `***`.
        var url: BackendURL {
            BackendURL(
                scheme: "postgresql",
                authority: BackendURL.Authority(user: user, password: password, host: host ?? "", port: port),
                path: database.map { "/" + $0 } ?? "", options: [BackendURL.Option(name: "schema", value: schema)])
        }

        /// libpq connection keywords and values (passed as arrays, never as a conninfo string,
        /// so no value needs quoting or escaping).
        package var connectionParameters: [(String, String)] {
            var parameters: [(String, String)] = []
            if let host { parameters.append(("host", host)) }
            if let port { parameters.append(("port", String(port))) }
            if let user { parameters.append(("user", user)) }
            if let password { parameters.append(("password", password)) }
            if let database { parameters.append(("dbname", database)) }
            if let sslMode { parameters.append(("sslmode", sslMode)) }
            let seconds = max(connectTimeout.components.seconds, 2)
            parameters.append(("connect_timeout", String(seconds)))
            parameters.append(("application_name", applicationName))
            return parameters
        }
    }
}
