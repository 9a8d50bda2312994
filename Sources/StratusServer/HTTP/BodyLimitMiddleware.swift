import Hummingbird

/// Refuses with 413 (`BAD_REQUEST`, `stratusErrorCode: limitExceeded`: Apple's codes have no
/// other) a request whose `Content-Length` is over the
/// configured body limit, before anything of the body is read. (A chunked body has no length
/// up front; the routes collect bodies with the same limit.)
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The largest body accepted, in bytes.
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let length = request.headers[.contentLength].flatMap(Int.init), length > maxBytes else {
            return try await next(request, context)
        }
        return try CloudKitErrorBody(
            uuid: context.id, serverErrorCode: "BAD_REQUEST",
            reason: "the request body is \(length) bytes, larger than this server's limit of \(maxBytes) bytes",
            stratusErrorCode: "limitExceeded"
        ).response(status: .contentTooLarge)
    }
}
