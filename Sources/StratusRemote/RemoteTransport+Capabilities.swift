import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Stratus
import StratusWebServices

/// Exchanges with the URLs a server hands out — an asset's upload and download URLs
/// (decision 0012.8). They are capabilities: they carry their own signature, so no
/// credentials are added, and errors name what the URL was for, never the URL.
extension RemoteTransport {
    /// `POST`s `bytes` to the upload URL `url` and answers the JSON of a 200 (the receipt).
    func upload(_ bytes: [UInt8], to url: String, what: String) throws(CKError) -> JSONValue {
        try RemoteRetry.idempotent.run { () throws(CKError) -> JSONValue in
            let answer = try capabilityExchange(.POST, url, body: bytes, what: what)
            do {
                return try JSONValue.parse(answer)
            } catch {
                throw RemoteFailure.error(.serverResponseLost, "the answer to the \(what) is not JSON: \(error)")
            }
        }
    }

    /// The bytes at the download URL `url`.
    func download(_ url: String, what: String) throws(CKError) -> [UInt8] {
        try RemoteRetry.idempotent.run { () throws(CKError) -> [UInt8] in
            try capabilityExchange(.GET, url, body: nil, what: what)
        }
    }

    /// One exchange with a capability URL: the body of a 200, or the error its answer says.
    private func capabilityExchange(_ method: HTTPMethod, _ url: String, body: [UInt8]?, what: String)
        throws(CKError) -> [UInt8]
    {
        let answer: HTTPClient.Response
        do {
            var request = try HTTPClient.Request(url: url, method: method)
            if let body {
                request.headers.add(name: "Content-Type", value: "application/octet-stream")
                request.body = .bytes(body)
            }
            let deadline = NIODeadline.now() + .nanoseconds(server.requestTimeout.nanoseconds)
            answer = try client.execute(request: request, deadline: deadline).wait()
        } catch {
            throw RemoteFailure.transport(error, path: what)
        }
        let bytes = answer.body.map { Array($0.readableBytesView) } ?? []
        guard answer.status == .ok else {
            guard let json = try? JSONValue.parse(bytes) else {
                throw RemoteFailure.status(Int(answer.status.code), path: what)
            }
            throw WSErrorReader.error(from: json, status: Int(answer.status.code), translator: WSRecordTranslator())
        }
        return bytes
    }
}
