import Hummingbird
import Logging

/// Turns an error that no step of the request's path translated (a failure of the server
/// itself, such as a stored entry it cannot write out, not a refusal of the request) into 500
/// `INTERNAL_ERROR` with CloudKit's error dictionary, and logs it at error under the request
/// ID. So no answer is a 500 without a body, and a failure's details reach the log, never the
/// client (decision 0012.7).
///
/// A task cancelled because its client left is not a failure: its error passes unchanged.
struct InternalErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            context.logger.error(
                "internal failure", metadata: ["stratus.request.id": "\(context.id)", "stratus.reason": "\(error)"])
            throw ServerError.internalFailure
        }
    }
}
