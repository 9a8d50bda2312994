import Foundation
import Stratus
import StratusSchema

extension ConformanceContext {
    /// A container in `environment` over the case's storage (decision 0020): an embedded
    /// container with that environment, or the storage's own (a remote one addresses the
    /// server's environment).
    public func container(identifier: String = "iCloud.conformance", environment: CKContainer.Environment) throws
        -> CKContainer
    {
        if let remote = storage as? any ContainerStorage {
            return try must("a \(environment) container of the storage") {
                try remote.container(identifier: identifier, environment: environment)
            }
        }
        return CKContainer(identifier: identifier, backend: try open(), environment: environment)
    }

    /// Imports `text` as the schema of `identifier` in `environment`, as `stratus schema import`
    /// does: through an engine on the storage itself, the administrator's path (a server
    /// shares the store, so its namespaces see the schema at once).
    func importSchema(
        _ text: String, identifier: String = "iCloud.conformance", environment: Namespace.Environment
    ) throws {
        let schema = try must("the schema parses") { try CloudKitSchema.parse(text) }
        let engine = try must("an engine on the storage") { try Engine(backend: try open()) }
        _ = try must("the schema imports") {
            try engine.importSchema(schema, into: SchemaScope(container: identifier, environment: environment))
        }
    }

    /// The schema of `identifier` in `environment`, read from the storage.
    func environmentSchema(identifier: String = "iCloud.conformance", environment: Namespace.Environment) throws
        -> CloudKitSchema
    {
        let engine = try must("an engine on the storage") { try Engine(backend: try open()) }
        return try must("the schema reads") {
            try engine.schema(of: SchemaScope(container: identifier, environment: environment))
        }
    }
}

extension ContainerStorage {
    /// A development container is ``container(identifier:)``'s; a storage that serves only
    /// development cannot make a production one.
    public func container(identifier: String, environment: CKContainer.Environment) throws -> CKContainer {
        guard environment == .development else {
            throw CKError(.badContainer, userInfo: [NSLocalizedDescriptionKey: "this storage serves development only"])
        }
        return try container(identifier: identifier)
    }
}
