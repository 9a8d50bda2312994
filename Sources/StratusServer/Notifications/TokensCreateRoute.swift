import Foundation
import Hummingbird
import NIOCore
internal import Stratus
internal import StratusWebServices

/// `POST /database/1/{container}/{environment}/tokens/create` `{apnsEnvironment}` →
/// `{apnsEnvironment, apnsToken, webcourierURL}` (decision 0014.4): a courier token for the
/// signed-in user, whose `webcourierURL` long-polls that user's notifications. Apple's path has
/// no `{database}` segment, so this route stands beside ``DatabaseRoutes`` and reuses its
/// credential checks.
struct TokensCreateRoute: Sendable {
    let server: ServerState

    static let path = "/database/1/:container/:environment/tokens/create"

    /// The request body.
    private struct Body: Decodable {
        var apnsEnvironment: String?
    }

    func register(on router: Router<BasicRequestContext>) {
        for method in DatabaseRoutes.allMethods {
            router.on(RouterPath(Self.path), method: method) { request, context in
                try await handle(request, context)
            }
        }
    }

    private func handle(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (container, environment) = try Self.containerAndEnvironment(context.parameters)
        let routes = DatabaseRoutes(server: server, operations: [])
        let path = DatabasePath(container: container, environment: environment, scope: .private)
        let pending = try await routes.authenticate(path, request, context)
        guard request.method == .post else { throw ServerError.methodNotAllowed("tokens/create", allowed: [.post]) }
        let userRecordName = try Self.user(pending)
        let bytes = Array(
            try await server.collectBody(request, limit: 64 << 10, what: "tokens/create body").readableBytesView)
        let apnsEnvironment = try Self.apnsEnvironment(bytes)
        let store = server.authStore
        let engine = server.engine
        let (token, _) = try await server.executor.run(requestID: context.id) {
            // From the oldest entry still kept: what retention dropped before this token
            // existed was never its to lose (no resetRequired on its first poll).
            let namespace = Namespace(container: container, environment: environment, owner: userRecordName)
            let oldest = try engine.notificationLog(namespace: namespace).head().oldest
            return try store.createCourier(
                container: container, environment: environment, userRecordName: userRecordName,
                apnsEnvironment: apnsEnvironment, cursor: max(0, oldest - 1))
        }
        let base = RequestOrigin.of(request, servesTLS: server.servesTLS)
        let answer: JSONValue = .object([
            "apnsEnvironment": .string(apnsEnvironment),
            "apnsToken": .string(Secret.hex(SessionToken.digest(of: token).prefix(8))),
            "webcourierURL": .string("\(base)/notifications/1/\(token)"),
        ])
        return NotificationRoutes.respond(answer)
    }

    /// Only a signed-in user has a notification log: anonymous → 421, a server key → 403.
    private static func user(_ pending: PendingAuthentication) throws -> String {
        switch pending.authentication.identity {
        case .user(let userRecordName):
            return userRecordName
        case .anonymous:
            let why = pending.authentication.sessionProblem.map { " (\($0))" } ?? ""
            throw ServerError.authenticationRequired(
                "tokens/create needs a signed-in user: send a ckWebAuthToken with the ckAPIToken\(why)")
        case .server:
            throw ServerError(
                .forbidden, "ACCESS_DENIED", "a server-to-server key has no notifications; sign in a user",
                stratusErrorCode: "permissionFailure")
        }
    }

    /// `development` (the default) or `production`.
    private static func apnsEnvironment(_ bytes: [UInt8]) throws -> String {
        guard !bytes.isEmpty else { return "development" }
        let body: Body
        do {
            body = try JSONValueDecoder().decode(Body.self, from: bytes)
        } catch {
            throw ServerError.badRequest("the body is not a valid tokens/create request: \(error)")
        }
        let value = body.apnsEnvironment ?? "development"
        guard value == "development" || value == "production" else {
            throw ServerError.badRequest("apnsEnvironment is development or production, not '\(value)'")
        }
        return value
    }

    /// The container and environment segments, checked as ``DatabasePath`` checks them.
    static func containerAndEnvironment(_ parameters: Parameters) throws -> (String, Namespace.Environment) {
        guard let container = try parameters.namespaceSegment("container"), !container.isEmpty else {
            throw ServerError.notFound("the path has no container segment")
        }
        let name = try parameters.namespaceSegment("environment") ?? ""
        guard let environment = Namespace.Environment(rawValue: name) else {
            throw ServerError.notFound("'\(name)' is not an environment: use development or production")
        }
        return (container, environment)
    }

}

extension DatabasePath {
    /// A path already checked elsewhere.
    init(container: String, environment: Namespace.Environment, scope: CKDatabase.Scope) {
        self.container = container
        self.environment = environment
        self.scope = scope
    }
}
