import Crypto
import Foundation
package import Stratus

/// The credentials a request presents, as the routes read them (decision 0013): no HTTP types.
package struct PresentedCredentials: Sendable {
    /// The `ckAPIToken` query parameter.
    package var apiToken: String?
    /// The `ckWebAuthToken` query parameter.
    package var webAuthToken: String?
    /// The `X-Apple-CloudKit-Request-KeyID` header.
    package var keyID: String?
    /// The `X-Apple-CloudKit-Request-ISO8601Date` header.
    package var date: String?
    /// The `X-Apple-CloudKit-Request-SignatureV1` header.
    package var signature: String?
    /// Whether the request has a query string at all (a signed request must not).
    package var hasQuery: Bool

    /// Credentials from their parts; absent ones are `nil`. `hasQuery` defaults to whether a
    /// query parameter is given; the routes pass whether the URL has a query string at all.
    package init(
        apiToken: String? = nil, webAuthToken: String? = nil, keyID: String? = nil, date: String? = nil,
        signature: String? = nil, hasQuery: Bool? = nil
    ) {
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
        self.keyID = keyID
        self.date = date
        self.signature = signature
        self.hasQuery = hasQuery ?? (apiToken != nil || webAuthToken != nil)
    }

    /// Whether any of the three server-to-server headers is present.
    var isSigned: Bool { keyID != nil || date != nil || signature != nil }
}

/// Who is calling, once the credentials are checked.
package enum CallerIdentity: Sendable, Hashable {
    /// An API token alone: public database reads (decision 0013.3).
    case anonymous(apiTokenID: String)
    /// An API token with a live session of this user.
    case user(userRecordName: String)
    /// A server-to-server key: admin of the public database (decision 0013.5).
    case server(keyID: String)
}

/// A request's checked credentials.
package struct Authentication: Sendable, Hashable {
    /// The container the credentials are valid in (the path's).
    package var container: String
    /// The environment the credentials are valid in (the path's).
    package var environment: Namespace.Environment
    /// Who is calling.
    package var identity: CallerIdentity
    /// Set when a `ckWebAuthToken` was presented but is unknown, expired or revoked: the caller
    /// is then anonymous, and a route that needs a user answers 421 `AUTHENTICATION_REQUIRED`
    /// with this reason. It never holds the token.
    package var sessionProblem: String?
}

/// The credentials checked before the body is read (decision 0012.5); ``Authenticator/complete(_:body:rawPath:now:)``
/// finishes them with the body.
package struct PendingAuthentication: Sendable {
    /// What is known without the body; for a signed request, not yet true (its signature is
    /// unchecked), hence not visible outside.
    var authentication: Authentication
    /// Whether the body must be read and the signature checked before the request may go on.
    package var needsSignature: Bool { signed != nil }
    /// The caller, when it is known without the body (no signature to check), so a route can
    /// refuse (421, 403) before reading it; `nil` for a signed request.
    package var authenticationWithoutBody: Authentication? { signed == nil ? authentication : nil }
    /// A signed request's parts, checked but for the signature over the body.
    var signed: SignedRequest?
}

/// A server-to-server request whose headers, key and date are checked.
struct SignedRequest: Sendable {
    var key: P256.Signing.PublicKey
    var keyID: String
    var date: String
    var parsedDate: Date
    var signature: P256.Signing.ECDSASignature
}

/// Why credentials were refused.
package enum AuthFailure: Error, Sendable {
    /// 401 `AUTHENTICATION_FAILED`; the reason names the check that failed and never holds a
    /// credential or says whether it is valid elsewhere.
    case authenticationFailed(reason: String)
    /// 403 `ACCESS_DENIED`: valid credentials that may not do this.
    case accessDenied(reason: String)
    /// 400 `BAD_REQUEST`: a malformed request (a session's TTL, a user ID).
    case badRequest(reason: String)
    /// 503 `TRY_AGAIN_LATER`: the credentials could not be checked now (the in-memory replay
    /// guard is full); a retry with a new signature may pass.
    case busy(reason: String)
    /// The store failed while checking: answer as the engine's error maps (503, 500), not 401.
    case store(any Error)
}

/// A session made through ``Authenticator/createSession(authorizedBy:externalUserID:ttl:now:)``.
package struct CreatedSession: Sendable, Hashable {
    /// The `ckWebAuthToken`, shown this once.
    package var token: String
    /// The user it signs in.
    package var userRecordName: String
    /// When it stops being valid.
    package var expires: Date
}
