import Foundation
import Hummingbird
internal import Stratus
import StratusSchema
internal import StratusWebServices

/// The container environment's CloudKit schema (decision 0020.9), cktool's verbs over HTTP:
/// `schema` (export), `schema/import`, `schema/reset`, and `schema/indexes` (the declared
/// indexes still to build), under the public database's path, for a server-to-server key only —
/// the container's management credential (decision 0013).
enum SchemaEndpoints {
    static let all = [export, importing, reset, indexes]

    static let export = DatabaseOperation(name: "schema", methods: [.get, .post], writes: false, handle: handleExport)
    static let importing = DatabaseOperation(
        name: "schema/import", methods: [.post], writes: true, handle: handleImport)
    static let reset = DatabaseOperation(name: "schema/reset", methods: [.post], writes: true, handle: handleReset)
    static let indexes = DatabaseOperation(
        name: "schema/indexes", methods: [.get, .post], writes: false, handle: handleIndexes)

    /// `{"schema": "DEFINE SCHEMA …"}`: the environment's schema in canonical text.
    static func handleExport(_ call: DatabaseCall) async throws -> Response {
        try requireManagement(call)
        let schema = try await call.withDatabase { try $0.environmentSchema() }
        return call.respond(["schema": .string(schema.text)])
    }

    /// `{"schema": "…"}` → `{"changes": ["…"], "indexesBuilt": 0, "indexesPending": n}`: the
    /// schema is stored and the answer comes at once; the server's builder builds the `n`
    /// declared indexes not ready in the environment's databases in the background (decision
    /// 0020.8). A schema that does not parse, or that production's schema refuses, is 400
    /// `BAD_REQUEST` with every problem, one per line.
    static func handleImport(_ call: DatabaseCall) async throws -> Response {
        try requireManagement(call)
        let text = try call.decode(SchemaImportRequest.self).schema
        let schema: CloudKitSchema
        switch Result(catching: { () throws(SchemaErrors) in try CloudKitSchema.parse(text) }) {
        case .success(let parsed): schema = parsed
        case .failure(let errors): throw ServerError.badRequest(errors.description)
        }
        let (changes, pending) = try await call.withDatabase { database in
            (try database.importSchema(schema), try database.pendingDeclaredIndexes())
        }
        call.server.indexBuilder.wake()
        return call.respond([
            "changes": .array(changes.map { .string($0.message) }), "indexesBuilt": .integer(0),
            "indexesPending": .integer(Int64(pending)),
        ])
    }

    /// `{"indexesPending": n}`: how many declared indexes of the environment's databases are
    /// not ready yet — 0 once the builder is done.
    static func handleIndexes(_ call: DatabaseCall) async throws -> Response {
        try requireManagement(call)
        let pending = try await call.withDatabase { try $0.pendingDeclaredIndexes() }
        return call.respond(["indexesPending": .integer(Int64(pending))])
    }

    /// `{}` after resetting the development environment; 400 for production.
    static func handleReset(_ call: DatabaseCall) async throws -> Response {
        try requireManagement(call)
        try await call.withDatabase { try $0.resetSchema() }
        return call.respond([:])
    }

    /// Only a server-to-server key (the engine's admin caller) reads or changes the schema.
    private static func requireManagement(_ call: DatabaseCall) throws {
        guard call.caller.role == .admin else {
            throw ServerError(
                .forbidden, "ACCESS_DENIED",
                "the schema endpoints need a server-to-server key, the container's management credential",
                stratusErrorCode: "permissionFailure")
        }
    }
}

/// The body of `schema/import`.
struct SchemaImportRequest: Decodable {
    var schema: String
}
