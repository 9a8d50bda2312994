import Foundation
import Hummingbird
import NIOCore
internal import Stratus

/// An authenticated request to one database, with its body: what a ``DatabaseOperation``
/// handler gets. The namespace comes from the path and the credentials only, never from the
/// body (decision 0012.10).
struct DatabaseCall: Sendable {
    var path: DatabasePath
    /// Who is asking, as the engine sees it.
    var caller: Caller
    /// The request body, collected within the configured limit.
    var body: ByteBuffer
    /// The request ID (`uuid` in error dictionaries, and the log line's).
    var requestID: String
    var server: ServerState
    /// `scheme://host[:port]` the client reached the server at, in front of the asset URLs
    /// this request answers (``RequestOrigin/of(_:servesTLS:)``).
    var origin: String = ""
    /// The path's parameters below the database (`:id` of `stratus/operations/:id/…`).
    var parameters: [String: String] = [:]
    /// The query's parameters other than the credentials' (`from`, `timeout`).
    var query: [String: String] = [:]
    /// `X-Stratus-Operation-ID`, which makes a `records/modify` idempotent (decision 0014.11).
    var operationIDHeader: String?
    /// The request's `Content-Type` and `Accept`, which say whether it speaks the binary record
    /// encoding (decision 0018).
    var contentType: String?
    var accept: String?

    /// The engine's context for this request's database: the container × environment's public
    /// database, or the caller's own private or shared database.
    func database() throws -> DatabaseContext {
        let owner = path.scope == .public ? "" : caller.userRecordName
        return try server.engine.database(
            namespace: Namespace(container: path.container, environment: path.environment, owner: owner),
            scope: path.scope, caller: caller)
    }

    /// Runs `body` on the engine's threads with this call's database.
    func withDatabase<T: Sendable>(_ body: @escaping @Sendable (DatabaseContext) throws -> T) async throws -> T {
        let call = self
        return try await server.executor.run(requestID: requestID) { try body(try call.database()) }
    }
}
