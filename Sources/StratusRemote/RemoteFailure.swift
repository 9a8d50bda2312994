import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Stratus

/// The `CKError`s of what goes wrong between a remote container and its server, when the
/// server's own error dictionary does not say (decision 0016.5). Messages name the request's
/// path, never its URL: the query string holds the credentials.
enum RemoteFailure {
    /// An error of `code` that says `message`.
    static func error(_ code: CKError.Code, _ message: String, retryAfter: Double? = nil) -> CKError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let retryAfter { info[CKErrorRetryAfterKey] = NSNumber(value: retryAfter) }
        return CKError(code, userInfo: info)
    }

    /// A failed exchange: a server that cannot be reached, or not over TLS, is
    /// `networkUnavailable`; a connection
    /// that broke, or an answer that did not come in time, `networkFailure` (the request may
    /// have been applied).
    static func transport(_ error: any Error, path: String) -> CKError {
        if let known = error as? CKError { return known }
        if let tls = error as? NIOSSLError, case .handshakeFailed = tls {
            // A certificate that does not verify stays so: not retried, and said plainly.
            return Self.error(
                .networkUnavailable,
                "no TLS connection to the server for \(path): \(error); a server with a self-signed or private-CA "
                    + "certificate needs RemoteServer.trustedCertificatesFile")
        }
        if isUnreachable(error) {
            return Self.error(.networkUnavailable, "the server cannot be reached for \(path): \(error)")
        }
        return Self.error(.networkFailure, "the request to \(path) failed before its answer arrived: \(error)")
    }

    /// Whether `error` says no connection was ever made.
    private static func isUnreachable(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let client = error as? HTTPClientError, client == .connectTimeout { return true }
        if let io = error as? IOError {
            return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(io.errnoCode)
        }
        return false
    }

    /// A status whose body is not a CloudKit error dictionary (a proxy's page, an empty body);
    /// a 503 or 429 waits `retryAfter` (its `Retry-After` header), else 1 s.
    static func status(_ status: Int, path: String, retryAfter: Double? = nil) -> CKError {
        let message = "the server answered \(path) with HTTP \(status) and no CloudKit error"
        let wait = retryAfter.map { max(0, $0) } ?? 1
        switch status {
        case 503: return error(.serviceUnavailable, message, retryAfter: wait)
        case 429: return error(.requestRateLimited, message, retryAfter: wait)
        case 401, 421: return error(.notAuthenticated, message)
        case 403: return error(.permissionFailure, message)
        case 413: return error(.limitExceeded, message)
        case 500...599: return error(.serverResponseLost, message)
        default: return error(.invalidArguments, message)
        }
    }
}
