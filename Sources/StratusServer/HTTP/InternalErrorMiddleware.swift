import Hummingbird
import Logging

/// Turns an error that no step of the request's path translated (a failure of the server
/// itself, such as a stored entry it cannot write out, not a refusal of the request) into 500
/// `INTERNAL_ERROR` with CloudKit's error dictionary, and logs it at error under the request
/// ID. So no answer is a 500 without a body, and a failure's details reach the log, never the
/// client (decision 0012.7).
///
/// The connection's own errors pass unchanged, as Hummingbird handles them: a request whose
/// framing is malformed (a bad chunk size: 400 and the connection closed), a body whose
/// connection failed while it was read (``ConnectionFailure``: the client gone, its TLS cut),
/// a task cancelled. They are the client's, not the server's.
struct InternalErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            guard !ErrorStatus.isFromTheConnection(error) else { throw error }
            context.logger.error(
                "internal failure", metadata: ["stratus.request.id": "\(context.id)", "stratus.reason": "\(error)"])
            throw ServerError.internalFailure
        }
    }
}
