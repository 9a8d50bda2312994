import Crypto
import Foundation

/// The headers of a request signed with a server-to-server key (decision 0013.5): the key ID,
/// the date, and an ECDSA P-256 signature over `date:base64(SHA-256(body)):path`, where `path`
/// is the request's raw path as sent. Each attempt is signed anew: the server refuses a
/// signature it has seen (its replay guard) and dates older than a few minutes.
enum RemoteSigner {
    /// The headers for `body` sent to `path` now.
    static func headers(keyID: String, privateKey: P256.Signing.PrivateKey, path: String, body: [UInt8]?)
        throws -> [(String, String)]
    {
        let date = Date().formatted(.iso8601)
        let digest = Data(SHA256.hash(data: body ?? [])).base64EncodedString()
        let signature = try privateKey.signature(for: Data("\(date):\(digest):\(path)".utf8))
        return [
            ("X-Apple-CloudKit-Request-KeyID", keyID),
            ("X-Apple-CloudKit-Request-ISO8601Date", date),
            ("X-Apple-CloudKit-Request-SignatureV1", signature.derRepresentation.base64EncodedString()),
        ]
    }
}
