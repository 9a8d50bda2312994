public import StratusBackend

/// A fresh schema with a random name on a server, for one test: what
/// ``PostgreSQLBackendProvider/makeTemporaryStorage(like:)`` makes.
public struct PostgreSQLTemporaryStorage: TemporaryStorage {
    /// The URL of the storage: the original one with `schema` set to the new schema.
    public let url: BackendURL

    /// Storage in a new schema named `stratus_tmp_` and 16 random hexadecimal digits, on the
    /// server `url` names. Nothing is created until the first ``open()``.
    public init(like url: BackendURL) {
        let suffix = (0..<16).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        self.url = url.settingOption("schema", to: "stratus_tmp_" + suffix)
    }

    /// A new handle on the schema (created on the first).
    public func open() throws -> any DatabaseBackend {
        try PostgreSQLBackendProvider().makeBackend(for: url)
    }

    /// Drops the schema and everything in it.
    public func destroy() throws {
        var configuration = try PostgreSQLBackendProvider().configuration(for: url)
        let schema = try PostgreSQLSchema(name: configuration.schema)
        configuration.poolSize = 1
        let connection = try PostgreSQLConnection(
            parameters: configuration.connectionParameters, redact: [configuration.password].compactMap { $0 })
        defer { connection.close() }
        try connection.run([PostgreSQLStatement("DROP SCHEMA IF EXISTS \(schema.quoted) CASCADE")])
    }
}
