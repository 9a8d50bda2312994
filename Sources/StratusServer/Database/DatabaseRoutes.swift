import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
internal import Stratus
internal import StratusWebServices

/// The Web Services endpoints under `/database/1/{container}/{environment}/{database}/`
/// (decision 0012.4): each request's path is checked, its credentials resolved, its body
/// collected within the limit, and only then handed to its operation.
struct DatabaseRoutes: Sendable {
    let server: ServerState
    let operations: [DatabaseOperation]

    static let prefix = "/database/1/:container/:environment/:database"
    /// Every method a route answers; those an operation does not take get 405.
    static let allMethods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch]

    func register(on router: Router<BasicRequestContext>) {
        for operation in operations {
            for method in Self.allMethods {
                router.on(RouterPath("\(Self.prefix)/\(operation.name)"), method: method) { request, context in
                    try await handle(operation, request, context)
                }
            }
        }
        for method in Self.allMethods {
            router.on(RouterPath("\(Self.prefix)/**"), method: method) { request, context in
                try await unknown(request, context)
            }
        }
    }

    private func handle(_ operation: DatabaseOperation, _ request: Request, _ context: BasicRequestContext)
        async throws -> Response
    {
        let path = try DatabasePath(parameters: context.parameters)
        let pending = try await authenticate(path, request, context)
        guard operation.methods.contains(request.method) else {
            throw ServerError.methodNotAllowed(operation.name, allowed: operation.methods)
        }
        let body = try await server.collectBody(request)
        let caller = try await complete(pending, path: path, operation: operation, body: body, request, context)
        var response = try await operation.handle(
            DatabaseCall(
                path: path, caller: caller, body: body, requestID: context.id, server: server,
                origin: RequestOrigin.of(request, servesTLS: server.servesTLS),
                parameters: try Self.operationParameters(context.parameters), query: Self.query(request),
                operationIDHeader: request.headers[Self.operationIDField], contentType: request.headers[.contentType],
                accept: request.headers[.accept]))
        if server.recordEncoding { response.headers[Self.acceptPostField] = Self.acceptPost }
        return response
    }

    /// `Accept-Post`: what a client may `POST`, JSON and the binary record encoding (decision
    /// 0018), so that a remote container learns from any answer that it may send the latter.
    static let acceptPostField = HTTPField.Name("Accept-Post")!
    static let acceptPost = "application/json, \(StratusRecordEncoding.mediaType)"

    /// `X-Stratus-Operation-ID` (decision 0014.11).
    static let operationIDField = HTTPField.Name("X-Stratus-Operation-ID")!

    /// The path's parameters below the database segment, percent-decoded.
    private static func operationParameters(_ parameters: Parameters) throws(ServerError) -> [String: String] {
        guard let id = try parameters.decoded("id") else { return [:] }
        return ["id": id]
    }

    /// The query's parameters, the last value of each name winning.
    private static func query(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { result[String(name)] = String(value) }
        return result
    }

    /// A path below a database that the API does not have: 404 once the credentials hold, so
    /// nobody learns anything about the server without them.
    private func unknown(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let path = try DatabasePath(parameters: context.parameters)
        _ = try await authenticate(path, request, context)
        throw ServerError.notFound(
            "\(request.uri.path) is not an endpoint of this server (decision 0012.4 lists them)")
    }
}

extension ServerError {
    /// 405 for a known endpoint asked with another method (Apple's table has no 405 code).
    static func methodNotAllowed(_ name: String, allowed: [HTTPRequest.Method]) -> ServerError {
        ServerError(
            .methodNotAllowed, "BAD_REQUEST",
            "\(name) takes \(allowed.map(\.rawValue).joined(separator: " or ")), not another method")
    }
}
