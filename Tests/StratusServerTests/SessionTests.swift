import Foundation
import Stratus
import StratusServer
import Testing

/// Users and sessions (decision 0013.4), through ``AuthStore`` and ``Authenticator``.
@Suite("Auth: users and sessions")
struct SessionTests {
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// A container with both environments and an API token for each.
    func setUp(_ store: AuthStore, container: String = "iCloud.a") throws -> [Namespace.Environment: String] {
        try store.createContainer(container, environments: [.development, .production], now: now)
        var tokens: [Namespace.Environment: String] = [:]
        for environment in Namespace.Environment.allCases {
            tokens[environment] =
                try store.createAPIToken(container: container, environment: environment, label: "", now: now).token
        }
        return tokens
    }

    func caller(
        _ authenticator: Authenticator, _ container: String, _ environment: Namespace.Environment, apiToken: String?,
        session: String?, at time: Date
    ) throws -> Authentication {
        let pending = try authenticator.authenticate(
            container: container, environment: environment,
            credentials: PresentedCredentials(apiToken: apiToken, webAuthToken: session), now: time)
        #expect(!pending.needsSignature)
        #expect(pending.authenticationWithoutBody != nil)
        return try authenticator.complete(pending, body: [], rawPath: "/database/1/\(container)", now: time)
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aUsersRecordNameIsMadeAtFirstSightAndStableAfter(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            _ = try setUp(store)
            try store.createContainer("iCloud.b", environments: [.development])
            let first = try store.createUser(container: "iCloud.a", externalID: "alice@example.com", now: now)
            #expect(first.userRecordName.count == 33 && first.userRecordName.hasPrefix("_"))
            #expect(first.userRecordName.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase })
            let again = try store.createUser(container: "iCloud.a", externalID: "alice@example.com")
            #expect(again == first, "the same user, created when first seen")
            #expect(try store.user(container: "iCloud.a", externalID: "alice@example.com") == first)
            let bob = try store.createUser(container: "iCloud.a", externalID: "bob")
            let aliceInB = try store.createUser(container: "iCloud.b", externalID: "alice@example.com")
            #expect(Set([first.userRecordName, bob.userRecordName, aliceInB.userRecordName]).count == 3)
            #expect(try store.users(container: "iCloud.a").map(\.externalID).sorted() == ["alice@example.com", "bob"])
            #expect(try store.user(container: "iCloud.a", externalID: "carol") == nil)

            let session = try store.createSession(
                container: "iCloud.a", environment: .production, externalUserID: "alice@example.com", now: now)
            #expect(session.entry.userRecordName == first.userRecordName, "a session signs in the existing user")
            #expect(throws: AuthError.self) { try store.createUser(container: "iCloud.nope", externalID: "x") }
            #expect(throws: AuthError.self) { try store.createUser(container: "iCloud.a", externalID: "") }
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aSessionSignsInItsUserUntilItExpires(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let authenticator = Authenticator(store: store)
            let made = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", ttl: 3600, now: now)
            #expect(made.token.count == 43, "32 bytes in base64url without padding")
            #expect(made.token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(made.entry.expires == now.addingTimeInterval(3600))
            let user = try #require(try store.user(container: "iCloud.a", externalID: "alice"))

            let signedIn = try caller(
                authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: made.token,
                at: now.addingTimeInterval(3599))
            #expect(signedIn.identity == .user(userRecordName: user.userRecordName))
            #expect(signedIn.sessionProblem == nil)

            let expired = try caller(
                authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: made.token,
                at: now.addingTimeInterval(3600))
            #expect(expired.identity != .user(userRecordName: user.userRecordName))
            #expect(expired.sessionProblem?.contains("unknown, expired or revoked") == true)
            #expect(expired.sessionProblem?.contains(made.token) == false, "never the token")
            #expect(try store.session(presented: made.token, now: now.addingTimeInterval(3600)) == nil)

            let later = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", ttl: 7200, now: now)
            #expect(try store.purgeExpiredSessions(now: now.addingTimeInterval(3599)) == 0)
            #expect(try store.purgeExpiredSessions(now: now.addingTimeInterval(3600)) == 1)
            #expect(try store.sessions(container: "iCloud.a").map(\.id) == [later.entry.id])
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aSessionIsValidOnlyInItsContainerAndEnvironment(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let tokensB = try setUp(store, container: "iCloud.b")
            let authenticator = Authenticator(store: store)
            let made = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            let production = try caller(
                authenticator, "iCloud.a", .production, apiToken: tokens[.production], session: made.token, at: now)
            #expect(production.sessionProblem != nil)
            #expect(production.identity != .user(userRecordName: made.entry.userRecordName))
            let otherContainer = try caller(
                authenticator, "iCloud.b", .development, apiToken: tokensB[.development], session: made.token, at: now)
            #expect(otherContainer.sessionProblem != nil)
            #expect(otherContainer.identity != .user(userRecordName: made.entry.userRecordName))

            // An API token of another environment or container is refused exactly as an unknown one.
            var reasons: Set<String> = []
            for (container, environment, token) in [
                ("iCloud.a", Namespace.Environment.production, tokens[.development]),
                ("iCloud.b", .development, tokens[.development]),
                ("iCloud.a", .development, String(repeating: "0", count: 64)),
            ] {
                let error = #expect(throws: AuthFailure.self) {
                    try caller(authenticator, container, environment, apiToken: token, session: made.token, at: now)
                }
                if case .authenticationFailed(let reason) = error { reasons.insert(reason) }
            }
            #expect(reasons.count == 1 && reasons.first?.contains("ckAPIToken") == true, "\(reasons)")
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aRevokedSessionIsRefusedAtOnce(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let authenticator = Authenticator(store: store)
            let byToken = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            let byID = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            let kept = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            #expect(try store.sessions(container: "iCloud.a").count == 3)

            #expect(try store.revokeSession(presented: byToken.token))
            #expect(try !store.revokeSession(presented: byToken.token), "already revoked")
            #expect(throws: AuthError.self) { try store.revokeSession(container: "iCloud.b", id: byID.entry.id) }
            try store.revokeSession(container: "iCloud.a", id: byID.entry.id)
            for revoked in [byToken, byID] {
                let refused = try caller(
                    authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: revoked.token,
                    at: now)
                #expect(refused.sessionProblem != nil)
            }
            let still = try caller(
                authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: kept.token, at: now)
            #expect(still.identity == .user(userRecordName: kept.entry.userRecordName))
            #expect(try store.sessions(container: "iCloud.a").map(\.id) == [kept.entry.id])
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func credentialsThatCannotStandAreRefused(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let authenticator = Authenticator(store: store, cacheLifetime: 0)
            let made = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            #expect(throws: AuthFailure.self, "a session alone, without the API token") {
                try caller(authenticator, "iCloud.a", .development, apiToken: nil, session: made.token, at: now)
            }
            #expect(throws: AuthFailure.self, "no credentials") {
                try caller(authenticator, "iCloud.a", .development, apiToken: nil, session: nil, at: now)
            }
            for ttl in [0, -1, AuthStore.maxSessionTTL + 1] {
                #expect(throws: AuthError.self) {
                    try store.createSession(
                        container: "iCloud.a", environment: .development, externalUserID: "a", ttl: ttl)
                }
            }
            _ = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "a", ttl: AuthStore.maxSessionTTL)

            try store.disableContainer("iCloud.a")
            #expect(throws: AuthFailure.self, "a disabled container") {
                try caller(
                    authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: nil, at: now)
            }
            #expect(try store.session(presented: made.token, now: now) == nil)
            try store.createContainer("iCloud.a", environments: [])
            let back = try caller(
                authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: made.token, at: now)
            #expect(back.identity == .user(userRecordName: made.entry.userRecordName), "enabled again")
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aDisabledUserIsSignedOutAndGetsNoNewSession(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let made = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            let bob = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "bob", now: now)
            try store.disableUser(container: "iCloud.a", userRecordName: made.entry.userRecordName)
            let refused = try caller(
                Authenticator(store: store), "iCloud.a", .development, apiToken: tokens[.development],
                session: made.token, at: now)
            #expect(refused.sessionProblem != nil)
            #expect(try store.session(presented: bob.token, now: now) != nil, "another user is untouched")
            #expect(throws: AuthError.self) {
                try store.createSession(container: "iCloud.a", environment: .development, externalUserID: "alice")
            }
            #expect(try store.user(container: "iCloud.a", externalID: "alice")?.disabled != nil)
            #expect(throws: AuthError.self) { try store.disableUser(container: "iCloud.a", userRecordName: "_0") }
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aRevocationTakesEffectWithinTheCacheTime(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let made = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", ttl: 60, now: now)
            let process = Authenticator(store: store)
            let signedIn = try caller(
                process, "iCloud.a", .development, apiToken: tokens[.development], session: made.token, at: now)
            #expect(signedIn.identity == .user(userRecordName: made.entry.userRecordName))
            try store.revokeSession(container: "iCloud.a", id: made.entry.id)
            let tokenID = try #require(
                try store.apiTokens(container: "iCloud.a").first { $0.environment == .development })
            try store.revokeAPIToken(container: "iCloud.a", id: tokenID.id)

            let cached = try caller(
                process, "iCloud.a", .development, apiToken: tokens[.development], session: made.token,
                at: now.addingTimeInterval(29))
            #expect(cached.identity == signedIn.identity, "kept for 30 s")
            #expect(throws: AuthFailure.self, "another process sees the revocation at once") {
                try caller(
                    Authenticator(store: store), "iCloud.a", .development, apiToken: tokens[.development],
                    session: made.token, at: now)
            }
            #expect(throws: AuthFailure.self, "after 30 s, this one too") {
                try caller(
                    process, "iCloud.a", .development, apiToken: tokens[.development], session: made.token,
                    at: now.addingTimeInterval(30))
            }
            // A session past its expiry is refused at once, cached or not.
            let fresh = try store.createSession(
                container: "iCloud.a", environment: .production, externalUserID: "alice", ttl: 10, now: now)
            let warm = try caller(
                process, "iCloud.a", .production, apiToken: tokens[.production], session: fresh.token, at: now)
            #expect(warm.sessionProblem == nil)
            let expired = try caller(
                process, "iCloud.a", .production, apiToken: tokens[.production], session: fresh.token,
                at: now.addingTimeInterval(10))
            #expect(expired.sessionProblem != nil)
        }
    }

    /// The cache-only check (run on the request's own thread): nothing until a store look-up
    /// cached every credential the request needs, then the same answer as the full check, and
    /// nothing again once the cache time is over.
    @Test(arguments: AuthTestBackend.allCases)
    func theCacheOnlyCheckAnswersWhatTheStoreCheckCached(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let tokens = try setUp(store)
            let made = try store.createSession(
                container: "iCloud.a", environment: .development, externalUserID: "alice", now: now)
            let authenticator = Authenticator(store: store)
            let presented = PresentedCredentials(apiToken: tokens[.development], webAuthToken: made.token)
            func fromCache(_ credentials: PresentedCredentials, at time: Date) throws -> PendingAuthentication? {
                try authenticator.authenticateFromCache(
                    container: "iCloud.a", environment: .development, credentials: credentials, now: time)
            }
            #expect(try fromCache(presented, at: now) == nil, "nothing cached yet")
            let apiTokenOnly = PresentedCredentials(apiToken: tokens[.development], webAuthToken: nil)
            _ = try caller(
                authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: nil, at: now)
            #expect(try fromCache(apiTokenOnly, at: now) != nil, "the token and the container are cached")
            #expect(try fromCache(presented, at: now) == nil, "the session is not cached yet")
            let full = try caller(
                authenticator, "iCloud.a", .development, apiToken: tokens[.development], session: made.token, at: now)
            let cached = try #require(try fromCache(presented, at: now))
            #expect(cached.authenticationWithoutBody == full)
            #expect(throws: AuthFailure.self, "a cached token of another environment is refused as before") {
                try authenticator.authenticateFromCache(
                    container: "iCloud.a", environment: .production, credentials: presented, now: now)
            }
            #expect(throws: AuthFailure.self, "a cached token of another container is refused as before") {
                try authenticator.authenticateFromCache(
                    container: "iCloud.b", environment: .development, credentials: presented, now: now)
            }
            #expect(try fromCache(presented, at: now.addingTimeInterval(30)) == nil, "the cache time is over")
            let wrong = PresentedCredentials(apiToken: "wrong", webAuthToken: nil)
            #expect(try fromCache(wrong, at: now) == nil, "an unknown token is never cached: the store decides")
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func theHMACKeyIsMadeOnceAndKept(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let key = try store.hmacKey()
            #expect(key.bitCount == 256)
            #expect(try store.hmacKey() == key)
            let other = try AuthTestBackend.memory.withStore { try $0.hmacKey() }
            #expect(other != key, "each store has its own")
            try store.rotateHMACKey()
            let rotated = try store.hmacKey()
            #expect(rotated != key && rotated.bitCount == 256)
            #expect(try store.hmacKey() == rotated)
        }
    }
}
