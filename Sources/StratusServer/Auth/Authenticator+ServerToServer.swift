import Crypto
import Foundation
internal import Stratus

/// Signed requests (decision 0013.5), checked in the decision's order: headers, key, date,
/// signature, replay guard.
extension Authenticator {
    /// Checks 1 to 3 and decodes the signature: all that needs no body.
    func checkSigned(
        container: String, environment: Namespace.Environment, _ credentials: PresentedCredentials, now: Date
    ) throws(AuthFailure) -> SignedRequest {
        guard let keyID = credentials.keyID, let date = credentials.date, let signature = credentials.signature
        else {
            throw .authenticationFailed(
                reason: "a signed request carries X-Apple-CloudKit-Request-KeyID, -ISO8601Date and -SignatureV1")
        }
        guard credentials.apiToken == nil, credentials.webAuthToken == nil, !credentials.hasQuery else {
            throw .authenticationFailed(
                reason: "a signed request carries no ckAPIToken, ckWebAuthToken or query string")
        }
        let entry = try credential(.serverKey(container: container, environment: environment, id: keyID), now: now) {
            try store.serverKey(container: container, environment: environment, id: keyID)
        }
        guard let entry, let key = try? P256.Signing.PublicKey(derRepresentation: entry.publicKey) else {
            throw .authenticationFailed(
                reason: "the server-to-server key is unknown or revoked for this container and environment")
        }
        let parsedDate = try checkDate(date, now: now)
        guard let der = Data(base64Encoded: signature),
            let decoded = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else {
            throw .authenticationFailed(
                reason: "X-Apple-CloudKit-Request-SignatureV1 is not a base64 DER ECDSA signature")
        }
        return SignedRequest(key: key, keyID: keyID, date: date, parsedDate: parsedDate, signature: decoded)
    }

    /// The date, when it lies within [now − ``signatureMaxAge``, now + ``signatureMaxSkew``].
    func checkDate(_ date: String, now: Date) throws(AuthFailure) -> Date {
        guard let parsed = Self.parseISO8601(date) else {
            throw .authenticationFailed(
                reason: "X-Apple-CloudKit-Request-ISO8601Date is not a date like 2026-01-31T12:00:00Z")
        }
        let age = now.timeIntervalSince(parsed)
        guard age <= signatureMaxAge, age >= -signatureMaxSkew else {
            throw .authenticationFailed(
                reason: "the request's date is more than \(Int(signatureMaxAge)) s old "
                    + "or \(Int(signatureMaxSkew)) s ahead of the server's clock")
        }
        return parsed
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, with or without fractional seconds.
    static func parseISO8601(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// Check 4: the signature over `date:base64(SHA-256(body)):rawPath`.
    func verify(_ signed: SignedRequest, body: [UInt8], rawPath: String) throws(AuthFailure) {
        let bodyHash = Data(SHA256.hash(data: body)).base64EncodedString()
        let message = Data("\(signed.date):\(bodyHash):\(rawPath)".utf8)
        guard signed.key.isValidSignature(signed.signature, for: message) else {
            throw .authenticationFailed(
                reason: "the signature does not match this date, body and path for this key")
        }
    }

    /// Check 5: the first signature with this key, minute and `r` passes; any other is a replay.
    /// The in-memory guard, when full of signatures still inside the window, refuses as busy.
    func guardReplay(_ signed: SignedRequest, now: Date) throws(AuthFailure) {
        let r = Array(signed.signature.rawRepresentation.prefix(32))
        let first: Bool
        if let memoryGuard {
            switch memoryGuard.record(keyID: signed.keyID, r: r, date: signed.parsedDate, now: now) {
            case .first: first = true
            case .replay: first = false
            case .full:
                throw .busy(reason: "too many signed requests within the signing window; retry in a moment")
            }
        } else {
            first = try lookUp { try store.recordSignature(keyID: signed.keyID, r: r, date: signed.parsedDate) }
        }
        guard first else {
            throw .authenticationFailed(reason: "this signed request was already received (a replay)")
        }
    }
}
