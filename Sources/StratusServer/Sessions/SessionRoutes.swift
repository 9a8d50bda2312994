import Foundation
import Hummingbird
import NIOCore
internal import Stratus
internal import StratusWebServices

/// `POST /auth/1/{container}/{environment}/sessions/create|revoke` (decision 0013.4): the
/// app's own backend, signing with a server-to-server key, vouches for its users and gets them
/// sessions (`ckWebAuthToken`); a session can also revoke itself.
struct SessionRoutes: Sendable {
    let server: ServerState

    /// `sessions/create`'s body.
    struct CreateRequest: Decodable, Sendable {
        /// The user's ID in the app's own sign-in.
        var userID: String
        /// Seconds until the session expires (the server's default when absent).
        var ttlSeconds: Int?
    }

    /// `sessions/revoke`'s body.
    struct RevokeRequest: Decodable, Sendable {
        var ckWebAuthToken: String
    }

    func register(on router: Router<BasicRequestContext>) {
        let prefix = "/auth/1/:container/:environment/sessions"
        router.post(RouterPath("\(prefix)/create")) { request, context in try await create(request, context) }
        router.post(RouterPath("\(prefix)/revoke")) { request, context in try await revoke(request, context) }
    }

    private func create(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (authentication, body) = try await authenticated(request, context)
        let asked = try JSONBody.decode(CreateRequest.self, from: body)
        let ttl = asked.ttlSeconds.map(TimeInterval.init) ?? server.auth.sessionTTL
        let authenticator = server.authenticator
        let made = try await server.executor.run(requestID: context.id) {
            do {
                return try authenticator.createSession(
                    authorizedBy: authentication, externalUserID: asked.userID, ttl: ttl)
            } catch let failure as AuthFailure {
                throw ServerError(failure)
            }
        }
        return JSONBody.response([
            "ckWebAuthToken": .string(made.token), "userRecordName": .string(made.userRecordName),
            "expires": .integer(WSRecordTranslator.milliseconds(made.expires)),
        ])
    }

    private func revoke(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (authentication, body) = try await authenticated(request, context)
        let asked = try JSONBody.decode(RevokeRequest.self, from: body)
        if case .server = authentication.identity {
        } else if PresentedCredentials(request).webAuthToken != asked.ckWebAuthToken {
            throw ServerError(
                .forbidden, "ACCESS_DENIED",
                "a session revokes only itself; revoking another needs a server-to-server key",
                stratusErrorCode: "permissionFailure")
        }
        let authenticator = server.authenticator
        let revoked = try await server.executor.run(requestID: context.id) {
            do {
                return try authenticator.revokeSession(asked.ckWebAuthToken, authorizedBy: authentication)
            } catch let failure as AuthFailure {
                throw ServerError(failure)
            }
        }
        guard revoked else { throw ServerError.notFound("no such session in this container and environment") }
        return JSONBody.response(["revoked": true])
    }

    /// The checked credentials and the body: the path's container and environment, the
    /// credentials before the body, the signature with it.
    private func authenticated(_ request: Request, _ context: BasicRequestContext) async throws
        -> (Authentication, ByteBuffer)
    {
        let container = try context.parameters.namespaceSegment("container") ?? ""
        let name = try context.parameters.namespaceSegment("environment") ?? ""
        guard let environment = Namespace.Environment(rawValue: name) else {
            throw ServerError.notFound("'\(name)' is not an environment: use development or production")
        }
        let pending = try await server.authenticate(
            container: container, environment: environment, request, requestID: context.id)
        let body = try await server.collectBody(request)
        let authentication = try await server.verifySignature(pending, body: body, request, requestID: context.id)
        return (authentication, body)
    }
}
