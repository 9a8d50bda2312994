import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
internal import Stratus

/// The asset URLs (decision 0012.8): `POST /assets/1/{grant}?e=…&s=…` takes an upload's bytes
/// and answers its receipt; `GET /assets/1/download/{ticket}?e=…&s=…` answers stored content.
/// Both are capabilities: they need no credentials, only a signature that verifies and has not
/// expired — otherwise 401 `AUTHENTICATION_FAILED`, as for any bad credential.
struct AssetRoutes: Sendable {
    let server: ServerState

    func register(on router: Router<BasicRequestContext>) {
        router.post("/assets/1/:ticket") { request, context in try await upload(request, context) }
        router.get("/assets/1/download/:ticket") { request, context in try await download(request, context) }
    }

    private func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (ticket, key) = try verified(.upload, request, context)
        guard ticket.fields.count == 9, let database = AssetDatabase(fields: ticket.fields[0..<4]) else {
            throw Self.badSignature
        }
        let body = try await body(request)
        let engine = server.engine
        // Copying, hashing (up to 50 MiB) and staging run on the engine's threads, never on
        // the event loop that serves other connections.
        let (contentID, checksum, size) = try await server.executor.run(requestID: context.id) {
            let bytes = Array(body.readableBytesView)
            let checksum = Data(SHA256.hash(data: bytes)).base64EncodedString()
            return (try database.context(engine).stageAsset(bytes, label: checksum), checksum, Int64(bytes.count))
        }
        let receipt = AssetReceipt(database: database, contentID: contentID, size: size)
        return JSONBody.response([
            "singleFile": [
                "fileChecksum": .string(checksum), "size": .integer(size),
                "receipt": .string(receipt.text(key: key, now: Date())),
            ]
        ])
    }

    private func download(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (ticket, _) = try verified(.download, request, context)
        guard ticket.fields.count == 5, let database = AssetDatabase(fields: ticket.fields[0..<4]) else {
            throw Self.badSignature
        }
        let contentID = ticket.fields[4]
        guard let first = try await part(0, of: contentID, in: database, requestID: context.id) else {
            throw ServerError(
                .notFound, "NOT_FOUND", "the asset is no longer stored (its record was changed or deleted)",
                stratusErrorCode: "unknownItem")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.cacheControl] = "private, no-store"
        guard first.more else {
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: first.bytes)))
        }
        let routes = self
        let requestID = context.id
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await routes.stream(contentID, in: database, after: first.bytes, requestID: requestID, to: &writer)
            })
    }

    /// Writes `first` and then the content's other parts, each read in its own short read
    /// (decision 0015.4). Content whose parts vanish meanwhile (its record was deleted) ends
    /// the stream with an error, so the client sees a cut transfer, never a short file.
    private func stream(
        _ contentID: String, in database: AssetDatabase, after first: [UInt8], requestID: String,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        try await writer.write(ByteBuffer(bytes: first))
        var index: Int64 = 1
        while true {
            guard let next = try await part(index, of: contentID, in: database, requestID: requestID) else {
                // A full last part is followed by nothing: the content ended exactly there —
                // unless part 0 is gone, which means the content was deleted mid-transfer.
                guard try await part(0, of: contentID, in: database, requestID: requestID) != nil else {
                    throw ServerError.notFound("the asset was deleted during its download")
                }
                break
            }
            try await writer.write(ByteBuffer(bytes: next.bytes))
            guard next.more else { break }
            index += 1
        }
        try await writer.finish(nil)
    }

    private func part(_ index: Int64, of contentID: String, in database: AssetDatabase, requestID: String)
        async throws -> (bytes: [UInt8], more: Bool)?
    {
        let engine = server.engine
        return try await server.executor.run(requestID: requestID) {
            try database.context(engine).assetContentPart(contentID, index: index)
        }
    }

    /// The ticket in the path, its signature and expiry checked, with the key that signed it.
    private func verified(_ purpose: AssetTicket.Purpose, _ request: Request, _ context: BasicRequestContext)
        throws(ServerError) -> (AssetTicket, SymmetricKey)
    {
        guard let key = server.assetKeys.current else { throw Self.keyUnavailable }
        let query = request.uri.queryParameters
        guard let fields = try context.parameters.decoded("ticket"), let expiryText = query["e"],
            let expiry = Int64(String(expiryText)), let signature = query["s"],
            let ticket = AssetTicket.decode(purpose: purpose, fields: fields, expiry: expiry),
            ticket.isSigned(String(signature), with: key)
        else { throw Self.badSignature }
        guard expiry > Int64(Date().timeIntervalSince1970) else {
            throw ServerError.authenticationFailed(
                "this asset URL has expired (upload URLs last 15 minutes, download URLs an hour): ask for a new one")
        }
        return (ticket, key)
    }

    /// The body, refused with 413 beyond ``StratusServer/Limits/maximumAssetBytes``.
    private func body(_ request: Request) async throws -> ByteBuffer {
        try await server.collectBody(request, limit: server.limits.maximumAssetBytes, what: "asset")
    }

    static let badSignature = ServerError.authenticationFailed(
        "this asset URL's signature does not verify: use the URL exactly as the server gave it")

    static let keyUnavailable = ServerError(
        .serviceUnavailable, "TRY_AGAIN_LATER", "the server's signing key is not loaded yet", retryAfter: 1,
        stratusErrorCode: "serviceUnavailable")
}
