import Crypto
import Foundation
package import Stratus

/// Checks the credentials of a request (decision 0013), in two steps so that the body is read
/// only once the cheap checks pass (decision 0012.5):
/// ``authenticate(container:environment:credentials:now:)`` before the body,
/// ``complete(_:body:rawPath:now:)`` with it.
///
/// Every refusal is ``AuthFailure/authenticationFailed(reason:)`` naming the check that failed;
/// a credential of another container or environment is refused exactly as an unknown one.
package struct Authenticator: Sendable {
    /// Where credentials are stored.
    package let store: AuthStore
    /// How old a signed request's date may be: 300 s unless set (`authS2sMaxAgeSeconds`), at
    /// most 600 (Apple's 10 minutes).
    package let signatureMaxAge: TimeInterval
    /// How far ahead of the server's clock a signed request's date may be: 60 s.
    package let signatureMaxSkew: TimeInterval = 60
    /// Credentials found, kept per process (shared by copies of this authenticator).
    let cache: CredentialCache
    /// Where the replay guard keeps the signatures it has seen (decision 0013.6).
    package let replayGuard: ReplayGuardStorage
    /// The in-process guard, when ``replayGuard`` is `memory` (shared by copies).
    let memoryGuard: MemoryReplayGuard?
    /// Whether a credential the cache lacks is read from the store; `false` for
    /// ``authenticateFromCache(container:environment:credentials:now:)``, which must not block.
    private(set) var readsStore = true

    /// Where the replay guard keeps signatures: the store, or this process's memory.
    package enum ReplayGuardStorage: Sendable {
        /// `06 07` in the store, seen by every stratusd on it.
        case store
        /// This process's own guard (a single stratusd only).
        case memory(capacity: Int)
    }

    /// An authenticator over `store`; `signatureMaxAge` is clamped to [1, 600] seconds.
    /// Credentials found are kept `cacheLifetime` seconds (decision 0013.8: 30), so a
    /// revocation takes effect within that time; 0 looks every request up. `replayGuard` says
    /// where signatures seen are kept (`authReplayGuard`).
    package init(
        store: AuthStore, signatureMaxAge: TimeInterval = 300, cacheLifetime: TimeInterval = 30,
        replayGuard: ReplayGuardStorage = .store
    ) {
        self.store = store
        let maxAge = min(max(signatureMaxAge, 1), 600)
        self.signatureMaxAge = maxAge
        cache = CredentialCache(lifetime: max(cacheLifetime, 0))
        self.replayGuard = replayGuard
        if case .memory(let capacity) = replayGuard {
            memoryGuard = MemoryReplayGuard(capacity: capacity, window: maxAge)
        } else {
            memoryGuard = nil
        }
    }

    /// Checks everything that needs no body: which credential scheme, the container, the API
    /// token and session, or a signed request's headers, key and date.
    package func authenticate(
        container: String, environment: Namespace.Environment, credentials: PresentedCredentials, now: Date = Date()
    ) throws(AuthFailure) -> PendingAuthentication {
        // The container is checked after the credential: an unknown container then reads
        // exactly as a credential of another container, telling nobody which containers exist.
        if credentials.isSigned {
            let signed = try checkSigned(container: container, environment: environment, credentials, now: now)
            try checkContainer(container, environment, now: now)
            let identity = CallerIdentity.server(keyID: signed.keyID)
            return PendingAuthentication(
                authentication: Authentication(container: container, environment: environment, identity: identity),
                signed: signed)
        }
        guard let apiToken = credentials.apiToken else {
            throw .authenticationFailed(
                reason: credentials.webAuthToken == nil
                    ? "no credentials: send a ckAPIToken, or sign the request with a server-to-server key"
                    : "a ckWebAuthToken is sent with the container's ckAPIToken")
        }
        let token = try credential(.apiToken(Self.hash(apiToken)), now: now) {
            try store.apiToken(presented: apiToken)
        }
        guard let token, token.container == container, token.environment == environment else {
            throw .authenticationFailed(
                reason: "the ckAPIToken is unknown or revoked for this container and environment")
        }
        try checkContainer(container, environment, now: now)
        let authentication = try user(
            of: credentials.webAuthToken,
            Authentication(container: container, environment: environment, identity: .anonymous(apiTokenID: token.id)),
            now: now)
        return PendingAuthentication(authentication: authentication, signed: nil)
    }

    /// The caller with the session `webAuthToken` names, or anonymous with the reason it was refused.
    func user(of webAuthToken: String?, _ anonymous: Authentication, now: Date) throws(AuthFailure) -> Authentication {
        guard let webAuthToken else { return anonymous }
        let session = try credential(.session(Self.hash(webAuthToken)), now: now) {
            try store.session(presented: webAuthToken, now: now)
        }
        guard let session, now < session.expires, session.container == anonymous.container,
            session.environment == anonymous.environment
        else {
            var refused = anonymous
            refused.sessionProblem =
                "the ckWebAuthToken is unknown, expired or revoked for this container and environment"
            return refused
        }
        var authentication = anonymous
        authentication.identity = .user(userRecordName: session.userRecordName)
        return authentication
    }

    /// Refuses an unknown or disabled container, or one without `environment`.
    func checkContainer(_ container: String, _ environment: Namespace.Environment, now: Date) throws(AuthFailure) {
        let entry = try credential(.container(container), now: now) { try store.container(container) }
        guard let entry, entry.disabled == nil, entry.environments.contains(environment) else {
            throw .authenticationFailed(
                reason: "no enabled container '\(container)' with a \(environment.rawValue) environment")
        }
    }

    /// The SHA-256 of a presented secret, as the cache's key.
    static func hash(_ secret: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(secret.utf8)))
    }

    /// Runs a store look-up, reporting a store failure as such (not as refused credentials).
    func lookUp<T>(_ body: () throws -> T) throws(AuthFailure) -> T {
        do { return try body() } catch { throw .store(error) }
    }

    /// What `key` names: from the cache, else from the store with `fetch` — unless this
    /// authenticator does not read the store, which then throws ``CredentialCacheMiss``
    /// (as ``AuthFailure/store(_:)``).
    func credential<T: Sendable>(_ key: CredentialCache.Key, now: Date, fetch: () throws -> T?) throws(AuthFailure)
        -> T?
    {
        let readsStore = self.readsStore
        return try lookUp {
            try cache.value(key, now: now) {
                guard readsStore else { throw CredentialCacheMiss() }
                return try fetch()
            }
        }
    }

    /// ``authenticate(container:environment:credentials:now:)`` from the credential cache
    /// alone, so a caller on threads that must not block can run it: the same checks on the
    /// same values, or `nil` when a credential it needs is not cached (then ask the store).
    package func authenticateFromCache(
        container: String, environment: Namespace.Environment, credentials: PresentedCredentials, now: Date = Date()
    ) throws(AuthFailure) -> PendingAuthentication? {
        var cacheOnly = self
        cacheOnly.readsStore = false
        do {
            return try cacheOnly.authenticate(
                container: container, environment: environment, credentials: credentials, now: now)
        } catch .store(let error) where error is CredentialCacheMiss {
            return nil
        }
    }

    /// Finishes `pending` with the raw body and the raw request path (as received, not
    /// percent-decoded): a signed request's date again (a body sent slowly does not stretch
    /// the window), its signature, then the replay guard. Other requests pass unchanged.
    package func complete(_ pending: PendingAuthentication, body: [UInt8], rawPath: String, now: Date = Date())
        throws(AuthFailure) -> Authentication
    {
        guard let signed = pending.signed else { return pending.authentication }
        _ = try checkDate(signed.date, now: now)
        try verify(signed, body: body, rawPath: rawPath)
        try guardReplay(signed, now: now)
        return pending.authentication
    }

    /// Clears the replay guard's minutes that no accepted date can fall in any more (run once a
    /// minute, decision 0013.6).
    package func purgeReplayGuard(now: Date = Date()) throws {
        if let memoryGuard {
            memoryGuard.evict(now: now)
        } else {
            try store.purgeReplayGuard(olderThan: now.addingTimeInterval(-signatureMaxAge - 60))
        }
    }
}
