import Hummingbird

/// Answers every request that no route took with 401 and CloudKit's
/// `AUTHENTICATION_FAILED`: without credentials nothing but `/health` answers, and a path the
/// server does not have is not confirmed to someone who has none (decision 0013.7).
struct CredentialsRequiredMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try CloudKitErrorBody(
            uuid: context.id, serverErrorCode: "AUTHENTICATION_FAILED",
            reason: "\(request.method) \(request.uri.path) needs credentials: an API token (ckAPIToken), "
                + "a session (ckWebAuthToken) or a server-to-server key"
        ).response(status: .unauthorized)
    }
}
