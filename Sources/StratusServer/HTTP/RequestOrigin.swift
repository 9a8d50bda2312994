import HTTPTypes
import Hummingbird

/// `scheme://host[:port]` as the client reached the server: the base of every URL the server
/// hands out (asset upload and download URLs, `webcourierURL`).
enum RequestOrigin {
    /// The origin of `request`: its `Host`, `https` when this listener serves TLS or a proxy in
    /// front says `X-Forwarded-Proto: https`; empty when the request names no host (the URLs
    /// are then relative).
    static func of(_ request: Request, servesTLS: Bool) -> String {
        guard let authority = request.head.authority, !authority.isEmpty else { return "" }
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]
        return (servesTLS || forwarded == "https" ? "https://" : "http://") + authority
    }
}
