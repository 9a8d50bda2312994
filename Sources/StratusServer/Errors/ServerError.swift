import Foundation
import Hummingbird
import NIOCore

/// A request refused as a whole: an HTTP status and one CloudKit error dictionary
/// (decision 0012.7). Thrown anywhere on a request's path; Hummingbird turns it into the
/// response, so a refusal never becomes a 500.
struct ServerError: Error, HTTPResponseError, Sendable {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// One of Apple's `serverErrorCode` values, such as `BAD_REQUEST`.
    var serverErrorCode: String
    /// What was wrong, for a person; names the item or the part of the request.
    var reason: String
    /// Seconds to wait before retrying; absent when retrying will not help.
    var retryAfter: Int?
    /// The `CKError.Code` name, so a Stratus client rebuilds the exact error.
    var stratusErrorCode: String?
    /// Where to sign in, on a 421 when `authSignInUrl` is configured (``SignInRedirectMiddleware``).
    var redirectURL: String?

    init(
        _ status: HTTPResponse.Status, _ serverErrorCode: String, _ reason: String, retryAfter: Int? = nil,
        stratusErrorCode: String? = nil
    ) {
        self.status = status
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.retryAfter = retryAfter
        self.stratusErrorCode = stratusErrorCode
    }

    /// 400 `BAD_REQUEST`: the request itself is malformed.
    static func badRequest(_ reason: String, stratusErrorCode: String? = "invalidArguments") -> ServerError {
        ServerError(.badRequest, "BAD_REQUEST", reason, stratusErrorCode: stratusErrorCode)
    }

    /// 401 `AUTHENTICATION_FAILED`: missing or wrong credentials.
    static func authenticationFailed(_ reason: String) -> ServerError {
        ServerError(.unauthorized, "AUTHENTICATION_FAILED", reason)
    }

    /// 421 `AUTHENTICATION_REQUIRED`: the request needs a signed-in user.
    static func authenticationRequired(_ reason: String) -> ServerError {
        ServerError(.misdirectedRequest, "AUTHENTICATION_REQUIRED", reason, stratusErrorCode: "notAuthenticated")
    }

    /// 404 `NOT_FOUND` for a path the API does not have.
    static func notFound(_ reason: String) -> ServerError {
        ServerError(.notFound, "NOT_FOUND", reason)
    }

    /// What a client is told of a failure of the server itself: logged with the request ID,
    /// never shown.
    static let internalFailureReason = "the server failed; its log has the details under this request's uuid"

    /// 500 `INTERNAL_ERROR`: the server failed, not the request (``internalFailureReason``).
    static var internalFailure: ServerError {
        ServerError(.internalServerError, "INTERNAL_ERROR", internalFailureReason, stratusErrorCode: "internalError")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try CloudKitErrorBody(
            uuid: context.id, serverErrorCode: serverErrorCode, reason: reason, retryAfter: retryAfter,
            stratusErrorCode: stratusErrorCode, redirectURL: redirectURL
        ).response(status: status)
    }
}
