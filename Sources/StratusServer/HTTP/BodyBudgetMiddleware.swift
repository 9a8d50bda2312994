import Hummingbird

/// Gives each request a ``BodyLease`` of the server's ``BodyBudget`` and releases it when the
/// response is made: the bodies ``ServerState/collectBody(_:limit:what:)`` reads are counted
/// against it.
struct BodyBudgetMiddleware<Context: RequestContext>: RouterMiddleware {
    let budget: BodyBudget

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let lease = BodyLease(budget: budget)
        defer { lease.releaseAll() }
        return try await BodyLease.$current.withValue(lease) { try await next(request, context) }
    }
}
