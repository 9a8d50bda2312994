import Hummingbird

/// Refuses every request that reaches it with 401 and CloudKit's `AUTHENTICATION_FAILED`:
/// nothing but `/health` answers without credentials, and no credential scheme exists yet
/// (decision 0013).
struct CredentialsRequiredMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try CloudKitErrorBody(
            uuid: context.id, serverErrorCode: "AUTHENTICATION_FAILED",
            reason: "\(request.method) \(request.uri.path) needs credentials (an API token, a session or a "
                + "server-to-server key), and this server accepts none yet"
        ).response(status: .unauthorized)
    }
}
