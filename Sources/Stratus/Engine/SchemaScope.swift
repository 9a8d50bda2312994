import StratusBackend
import StratusSchema

/// A container × environment: the unit that owns one CloudKit schema (decision 0020), shared
/// by the environment's public, private and shared databases, every user's namespace and the
/// embedded container of that identifier.
package struct SchemaScope: Hashable, Sendable {
    /// The container identifier.
    package var container: String
    /// The environment: development grows the schema just in time, production enforces it.
    package var environment: Namespace.Environment

    package init(container: String, environment: Namespace.Environment) {
        self.container = container
        self.environment = environment
    }

    /// `0B (container, environment)`: the schema's row.
    var key: [UInt8] {
        OrderedKey([StoreLayout.schemaTag]).appending(container).appending(environment.rawValue).bytes
    }

    /// Whether saves may add record types and fields (development's just-in-time schema).
    var growsJustInTime: Bool { environment == .development }
}

extension Engine {
    /// The schema of `scope` as `txn` sees it: empty when none was stored.
    func environmentSchema(_ scope: SchemaScope, _ txn: any BackendReadTransaction) throws -> CloudKitSchema {
        try schemaRows.schema(at: scope.key, bytes: try txn.get(scope.key))
    }

    /// Stores `schema` as the schema of `scope` in `txn`.
    func storeEnvironmentSchema(
        _ schema: CloudKitSchema, _ scope: SchemaScope, _ txn: any BackendWriteTransaction
    ) throws {
        try txn.set(scope.key, SchemaRowCache.encode(schema))
    }
}
