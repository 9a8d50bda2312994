import Hummingbird

/// Refuses with 413 (`BAD_REQUEST`, `stratusErrorCode: limitExceeded`: Apple's codes have no
/// other) a request whose `Content-Length` is over the
/// configured body limit, before anything of the body is read. (A chunked body has no length
/// up front; the routes collect bodies with the same limit.) An asset upload (`POST
/// /assets/1/…`) is held to the asset limit instead (decision 0015).
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The largest body accepted, in bytes.
    let maxBytes: Int
    /// The largest asset upload accepted, in bytes.
    let maxAssetBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let isUpload = request.method == .post && request.uri.path.hasPrefix("/assets/1/")
        let limit = isUpload ? maxAssetBytes : maxBytes
        guard let length = request.headers[.contentLength].flatMap(Int.init), length > limit else {
            return try await next(request, context)
        }
        let what = isUpload ? "asset" : "request body"
        return try CloudKitErrorBody(
            uuid: context.id, serverErrorCode: "BAD_REQUEST",
            reason: "the \(what) is \(length) bytes, larger than this server's limit of \(limit) bytes",
            stratusErrorCode: "limitExceeded"
        ).response(status: .contentTooLarge)
    }
}
