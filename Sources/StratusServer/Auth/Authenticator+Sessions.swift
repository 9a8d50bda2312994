import Foundation

/// Sessions made and revoked over HTTP (decision 0013.4), by the routes of
/// `/auth/1/{container}/{environment}/sessions/…`.
extension Authenticator {
    /// Makes a session for the user `externalUserID` names, in the container × environment of
    /// `authentication`, which must be a server-to-server key's.
    ///
    /// - Throws: ``AuthFailure/accessDenied(reason:)`` for any other caller,
    ///   ``AuthFailure/badRequest(reason:)`` for a malformed user ID or TTL or a disabled user.
    package func createSession(
        authorizedBy authentication: Authentication, externalUserID: String,
        ttl: TimeInterval = AuthStore.defaultSessionTTL, now: Date = Date()
    ) throws(AuthFailure) -> CreatedSession {
        guard case .server = authentication.identity else {
            throw .accessDenied(reason: "sessions are created by a request signed with a server-to-server key")
        }
        do {
            let made = try store.createSession(
                container: authentication.container, environment: authentication.environment,
                externalUserID: externalUserID, ttl: ttl, now: now)
            return CreatedSession(
                token: made.token, userRecordName: made.entry.userRecordName, expires: made.entry.expires)
        } catch let refusal as AuthError {
            throw .badRequest(reason: refusal.description)
        } catch {
            throw .store(error)
        }
    }

    /// Revokes the session `webAuthToken` presents, when it belongs to the container and
    /// environment of `authentication`; `false` when there was no such session.
    package func revokeSession(_ webAuthToken: String, authorizedBy authentication: Authentication)
        throws(AuthFailure) -> Bool
    {
        let session = try lookUp { try store.session(presented: webAuthToken, now: .distantPast) }
        guard let session, session.container == authentication.container,
            session.environment == authentication.environment
        else { return false }
        cache.forget(.session(Self.hash(webAuthToken)))
        return try lookUp { try store.revokeSession(presented: webAuthToken) }
    }
}
