import Hummingbird

/// Refuses with 413 and `LIMIT_EXCEEDED` a request whose `Content-Length` is over the
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
            uuid: context.id, serverErrorCode: "LIMIT_EXCEEDED",
            reason: "the request body is \(length) bytes; this server accepts at most \(maxBytes)"
        ).response(status: .contentTooLarge)
    }
}
