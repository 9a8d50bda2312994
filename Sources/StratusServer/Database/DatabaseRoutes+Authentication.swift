import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
internal import Stratus

/// The credentials step of every database request (decision 0013): the cheap checks before
/// the body, the signature with it, then what the caller may do in this database.
extension DatabaseRoutes {
    /// Checks the credentials that need no body.
    func authenticate(_ path: DatabasePath, _ request: Request, _ context: BasicRequestContext) async throws
        -> PendingAuthentication
    {
        try await server.authenticate(
            container: path.container, environment: path.environment, request, requestID: context.id)
    }

    /// Finishes the credentials with the body (a signed request's signature and replay guard)
    /// and decides what the caller may do here: the engine's ``Caller``.
    ///
    /// - Throws: 421 `AUTHENTICATION_REQUIRED` when the operation needs a user and there is
    ///   none; 403 `ACCESS_DENIED` for a server key outside the public database.
    func complete(
        _ pending: PendingAuthentication, path: DatabasePath, operation: DatabaseOperation, body: ByteBuffer,
        _ request: Request, _ context: BasicRequestContext
    ) async throws -> Caller {
        let authentication = try await server.verifySignature(pending, body: body, request, requestID: context.id)
        return try Self.caller(authentication, path: path, operation: operation)
    }

    /// The engine's caller for `authentication` in `path`'s database, or the refusal.
    static func caller(_ authentication: Authentication, path: DatabasePath, operation: DatabaseOperation)
        throws(ServerError) -> Caller
    {
        switch authentication.identity {
        case .server(let keyID):
            guard path.scope == .public else {
                throw ServerError(
                    .forbidden, "ACCESS_DENIED",
                    "a server-to-server key reaches the public database only, not the \(path.scope.name) database",
                    stratusErrorCode: "permissionFailure")
            }
            return Caller(userRecordName: "_server_" + keyID, role: .admin)
        case .user(let userRecordName):
            return Caller(userRecordName: userRecordName, role: .user)
        case .anonymous:
            // A session that was sent but refused is 421 everywhere (0013's matrix), so a client
            // whose session ended learns it on its next read rather than reading anonymously.
            if let problem = authentication.sessionProblem {
                throw .authenticationRequired(
                    "the ckWebAuthToken was refused (\(problem)): sign the user in again")
            }
            if operation.writes || path.scope != .public {
                throw .authenticationRequired(
                    "\(operation.name) in the \(path.scope.name) database needs a signed-in user: "
                        + "send a ckWebAuthToken with the ckAPIToken")
            }
            return Caller(userRecordName: Self.anonymousUserRecordName, role: .anonymous)
        }
    }

    /// The record name `users/caller` reports for a caller with no session.
    static let anonymousUserRecordName = "_anonymous"
}

extension PresentedCredentials {
    /// The credentials `request` carries: `ckAPIToken` and `ckWebAuthToken` from the query,
    /// the server-to-server headers.
    init(_ request: Request) {
        let query = request.uri.queryParameters
        self.init(
            apiToken: query["ckAPIToken"].map(String.init), webAuthToken: query["ckWebAuthToken"].map(String.init),
            keyID: request.headers[HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!],
            date: request.headers[HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!],
            signature: request.headers[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!],
            hasQuery: !(request.uri.query ?? "").isEmpty)
    }
}

extension ServerError {
    /// The response for a refused credential.
    init(_ failure: AuthFailure) {
        switch failure {
        case .authenticationFailed(let reason): self = .authenticationFailed(reason)
        case .accessDenied(let reason):
            self.init(.forbidden, "ACCESS_DENIED", reason, stratusErrorCode: "permissionFailure")
        case .badRequest(let reason): self = .badRequest(reason)
        case .busy(let reason):
            self.init(
                .serviceUnavailable, "TRY_AGAIN_LATER", reason, retryAfter: 1, stratusErrorCode: "serviceUnavailable")
        case .store(let error as CKError): self.init(error)
        case .store:
            self.init(
                .serviceUnavailable, "TRY_AGAIN_LATER", "the store did not answer while checking credentials",
                retryAfter: 1, stratusErrorCode: "serviceUnavailable")
        }
    }
}

extension CKDatabase.Scope {
    /// `public`, `private` or `shared`, as in the path.
    var name: String {
        switch self {
        case .public: return "public"
        case .private: return "private"
        case .shared: return "shared"
        @unknown default: return "unknown"
        }
    }
}
