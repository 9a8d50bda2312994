import Hummingbird

/// Adds `redirectURL` (the configured `authSignInUrl`) to every 421 `AUTHENTICATION_REQUIRED`
/// answer, as Apple's service names its sign-in page there (decision 0013.3). Installed only
/// when a sign-in URL is configured, so without one a 421 carries no `redirectURL`.
struct SignInRedirectMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The sign-in page.
    let url: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch var error as ServerError where error.status == .misdirectedRequest {
            error.redirectURL = url
            throw error
        }
    }
}
