import Crypto
import Foundation
import Stratus
import StratusServer
import Testing

/// Server-to-server keys (decision 0013.5–6): requests signed with a P-256 key the test makes.
@Suite("Auth: server-to-server keys")
struct ServerToServerTests {
    static let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let path = "/database/1/iCloud.s2s/development/public/records/modify"
    static let body = Array(#"{"operations":[]}"#.utf8)

    /// A container with a key for development, and the private key that signs.
    struct Signer {
        let store: AuthStore
        let authenticator: Authenticator
        let privateKey = P256.Signing.PrivateKey()
        let keyID: String

        init(_ store: AuthStore) throws {
            self.store = store
            authenticator = Authenticator(store: store)
            try store.createContainer("iCloud.s2s", environments: [.development, .production])
            keyID = try store.addServerKey(
                container: "iCloud.s2s", environment: .development, pem: privateKey.publicKey.pemRepresentation,
                label: "backend"
            ).id
        }

        /// The headers of a request signed over `date:base64(SHA-256(body)):path`.
        func sign(date: Date = now, dateText: String? = nil, body: [UInt8] = body, path: String = path) throws
            -> PresentedCredentials
        {
            let dateText = dateText ?? date.formatted(.iso8601)
            let message = "\(dateText):\(Data(SHA256.hash(data: body)).base64EncodedString()):\(path)"
            let signature = try privateKey.signature(for: Data(message.utf8))
            return PresentedCredentials(
                keyID: keyID, date: dateText, signature: signature.derRepresentation.base64EncodedString())
        }

        /// Both steps, as a route runs them.
        func send(
            _ credentials: PresentedCredentials, body: [UInt8] = body, path: String = path, at time: Date = now,
            environment: Namespace.Environment = .development
        ) throws(AuthFailure) -> Authentication {
            let pending = try authenticator.authenticate(
                container: "iCloud.s2s", environment: environment, credentials: credentials, now: time)
            return try authenticator.complete(pending, body: body, rawPath: path, now: time)
        }

        /// Expects `send` to be refused with a reason containing `reason`.
        func expectRefused(
            _ reason: String, _ credentials: PresentedCredentials, body: [UInt8] = body, path: String = path,
            at time: Date = now, environment: Namespace.Environment = .development,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            do {
                let accepted = try send(credentials, body: body, path: path, at: time, environment: environment)
                Issue.record("accepted as \(accepted.identity), expected: \(reason)", sourceLocation: sourceLocation)
            } catch {
                guard case .authenticationFailed(let actual) = error else {
                    Issue.record("\(error)", sourceLocation: sourceLocation)
                    return
                }
                #expect(actual.contains(reason), "\(actual)", sourceLocation: sourceLocation)
                if let signature = credentials.signature {
                    #expect(!actual.contains(signature), "never the signature", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aValidSignedRequestIsTheServerOnceAndOnlyOnce(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            #expect(signer.keyID.count == 32 && signer.keyID.allSatisfy(\.isHexDigit))
            let credentials = try signer.sign()
            let pending = try signer.authenticator.authenticate(
                container: "iCloud.s2s", environment: .development, credentials: credentials, now: Self.now)
            #expect(pending.needsSignature && pending.authenticationWithoutBody == nil)
            // A body sent too slowly: the date is checked again once it has arrived.
            #expect(throws: AuthFailure.self) {
                try signer.authenticator.complete(
                    pending, body: Self.body, rawPath: Self.path, now: Self.now.addingTimeInterval(301))
            }
            let accepted = try signer.authenticator.complete(
                pending, body: Self.body, rawPath: Self.path, now: Self.now)
            #expect(accepted.identity == .server(keyID: signer.keyID))
            #expect(accepted.container == "iCloud.s2s" && accepted.environment == .development)

            signer.expectRefused("replay", credentials)
            // The same request signed again has another nonce: not a replay.
            #expect(try signer.send(try signer.sign()).identity == .server(keyID: signer.keyID))
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func theFlippedSignatureVerifiesAndIsRefusedAsAReplay(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let credentials = try signer.sign()
            let base64 = try #require(credentials.signature)
            let der = try #require(Data(base64Encoded: base64))
            let raw = Array(try P256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation)
            let flipped = try P256.Signing.ECDSASignature(
                rawRepresentation: Array(raw.prefix(32)) + P256Order.subtract(from: Array(raw.suffix(32))))
            #expect(flipped.rawRepresentation != Data(raw), "(r, n − s) differs from (r, s)")
            let dateText = try #require(credentials.date)
            let message = "\(dateText):\(Data(SHA256.hash(data: Self.body)).base64EncodedString()):\(Self.path)"
            #expect(signer.privateKey.publicKey.isValidSignature(flipped, for: Data(message.utf8)), "malleable")

            var copy = credentials
            copy.signature = flipped.derRepresentation.base64EncodedString()
            _ = try signer.send(credentials)
            signer.expectRefused("replay", copy)
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func anyOtherBodyPathDateOrSignerFailsTheSignature(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let signature = "the signature does not match"
            signer.expectRefused(signature, try signer.sign(), body: Array(#"{"operations":[{}]}"#.utf8))
            signer.expectRefused(
                signature, try signer.sign(), path: Self.path.replacingOccurrences(of: "modify", with: "lookup"))
            signer.expectRefused(
                signature, try signer.sign(), path: Self.path.replacingOccurrences(of: "/", with: "%2F"))
            var otherDate = try signer.sign()
            otherDate.date = Self.now.addingTimeInterval(1).formatted(.iso8601)
            signer.expectRefused(signature, otherDate)
            var otherSigner = try signer.sign()
            let stranger = P256.Signing.PrivateKey()
            otherSigner.signature = try stranger.signature(for: Data("x".utf8)).derRepresentation.base64EncodedString()
            signer.expectRefused(signature, otherSigner)
            var garbage = try signer.sign()
            garbage.signature = "not base64 DER"
            signer.expectRefused("SignatureV1 is not a base64 DER", garbage)
            // None of them used up the request: the genuine one still passes.
            _ = try signer.send(try signer.sign())
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func theDateMustBeWithinFiveMinutesBackAndOneAhead(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let window = "the request's date is more than 300 s old"
            signer.expectRefused(window, try signer.sign(date: Self.now.addingTimeInterval(-301)))
            signer.expectRefused(window, try signer.sign(date: Self.now.addingTimeInterval(61)))
            _ = try signer.send(try signer.sign(date: Self.now.addingTimeInterval(-300)))
            _ = try signer.send(try signer.sign(date: Self.now.addingTimeInterval(60)))
            let fractional = Self.now.formatted(.iso8601).replacingOccurrences(of: "Z", with: ".250Z")
            _ = try signer.send(try signer.sign(dateText: fractional), at: Self.now)
            var unsigned = try signer.sign(dateText: fractional)
            unsigned.date = Self.now.formatted(.iso8601)
            signer.expectRefused("the signature does not match", unsigned)
            var malformed = try signer.sign()
            malformed.date = "yesterday"
            signer.expectRefused("ISO8601Date is not a date", malformed)
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func onlyALiveKeyOfThisContainerAndEnvironmentSigns(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let unknown = "the server-to-server key is unknown or revoked"
            var stranger = try signer.sign()
            stranger.keyID = String(repeating: "ab", count: 16)
            signer.expectRefused(unknown, stranger)
            signer.expectRefused(unknown, try signer.sign(), environment: .production)
            #expect(try store.serverKeys(container: "iCloud.s2s").map(\.label) == ["backend"])
            try store.revokeServerKey(container: "iCloud.s2s", id: signer.keyID)
            signer.expectRefused(unknown, try signer.sign())
            #expect(try store.serverKeys(container: "iCloud.s2s").first?.revoked != nil)
            #expect(throws: AuthError.self) { try store.revokeServerKey(container: "iCloud.s2s", id: "0") }
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func signingIsNotMixedWithOtherCredentials(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let token = try store.createAPIToken(container: "iCloud.s2s", environment: .development, label: "").token
            let mixed = "carries no ckAPIToken, ckWebAuthToken or query string"
            var withToken = try signer.sign()
            withToken.apiToken = token
            withToken.hasQuery = true
            signer.expectRefused(mixed, withToken)
            var withQuery = try signer.sign()
            withQuery.hasQuery = true
            signer.expectRefused(mixed, withQuery)
            var partial = try signer.sign()
            partial.signature = nil
            signer.expectRefused("carries X-Apple-CloudKit-Request-KeyID, -ISO8601Date and -SignatureV1", partial)
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func aSignedCallerMakesSessionsAndNoOneElseDoes(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let signer = try Signer(store)
            let server = try signer.send(try signer.sign())
            let made = try signer.authenticator.createSession(
                authorizedBy: server, externalUserID: "alice", ttl: 60, now: Self.now)
            #expect(made.expires == Self.now.addingTimeInterval(60))
            let session = try #require(try store.session(presented: made.token, now: Self.now))
            #expect(session.userRecordName == made.userRecordName && session.environment == .development)

            let token = try store.createAPIToken(container: "iCloud.s2s", environment: .development, label: "").token
            let pending = try signer.authenticator.authenticate(
                container: "iCloud.s2s", environment: .development,
                credentials: PresentedCredentials(apiToken: token, webAuthToken: made.token), now: Self.now)
            let user = try signer.authenticator.complete(pending, body: [], rawPath: "/", now: Self.now)
            #expect(user.identity == .user(userRecordName: made.userRecordName))
            #expect(throws: AuthFailure.self) {
                try signer.authenticator.createSession(authorizedBy: user, externalUserID: "mallory", now: Self.now)
            }
            #expect(throws: AuthFailure.self) {
                try signer.authenticator.createSession(authorizedBy: server, externalUserID: "", now: Self.now)
            }
            #expect(try signer.authenticator.revokeSession(made.token, authorizedBy: server))
            #expect(try store.session(presented: made.token, now: Self.now) == nil)
        }
    }

    @Test(arguments: AuthTestBackend.allCases)
    func theReplayGuardForgetsOnlyMinutesPastTheWindow(backend: AuthTestBackend) throws {
        try backend.withStore { store in
            let r = Array(repeating: UInt8(7), count: 32)
            let date = Date(timeIntervalSince1970: 1_800_000_000 + 30)  // mid-minute
            #expect(try store.recordSignature(keyID: "k", r: r, date: date))
            #expect(try !store.recordSignature(keyID: "k", r: r, date: date.addingTimeInterval(20)), "same minute")
            #expect(try store.recordSignature(keyID: "k", r: r, date: date.addingTimeInterval(40)), "next minute")
            try store.purgeReplayGuard(olderThan: date)
            #expect(try !store.recordSignature(keyID: "k", r: r, date: date), "its minute has not ended")
            try store.purgeReplayGuard(olderThan: date.addingTimeInterval(30))
            #expect(try store.recordSignature(keyID: "k", r: r, date: date), "its minute ended: forgotten")
            #expect(try !store.recordSignature(keyID: "k", r: r, date: date.addingTimeInterval(40)), "kept")

            let authenticator = Authenticator(store: store)
            // The minute's last date is accepted until 300 s after it; 60 s more are kept.
            try authenticator.purgeReplayGuard(now: date.addingTimeInterval(389))
            #expect(try !store.recordSignature(keyID: "k", r: r, date: date), "kept within the window")
            try authenticator.purgeReplayGuard(now: date.addingTimeInterval(390))
            #expect(try store.recordSignature(keyID: "k", r: r, date: date))
        }
    }

    @Test func onlyAP256PublicKeyIsAdded() throws {
        try AuthTestBackend.memory.withStore { store in
            try store.createContainer("iCloud.s2s", environments: [.development])
            let privateKey = P256.Signing.PrivateKey()
            for pem in [privateKey.pemRepresentation, P384.Signing.PrivateKey().publicKey.pemRepresentation, "junk"] {
                let error = #expect(throws: AuthError.self) {
                    try store.addServerKey(container: "iCloud.s2s", environment: .development, pem: pem, label: "")
                }
                #expect(error?.description.contains("P-") == true || error?.description.contains("private") == true)
                let secret = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
                #expect(error?.description.contains(secret) == false, "never the PEM")
            }
            #expect(try store.serverKeys(container: "iCloud.s2s").isEmpty)
        }
    }
}

/// The order n of P-256's group, for the `(r, n − s)` flip.
enum P256Order {
    static let n: [UInt8] = Array(
        Data(base64Encoded: "/////wAAAAD//////////7zm+q2nF56E87nKwvxjJVE=")!)

    /// n − s, 32 bytes big-endian (s < n).
    static func subtract(from s: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var difference = Int(n[index]) - Int(s[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }
}
