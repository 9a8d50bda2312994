import Dispatch
import Hummingbird
import Metrics

/// Records what Hummingbird's `MetricsMiddleware` records for each request, under the same
/// names and dimensions (`hb.requests`, `http.server.request.duration`, `hb.request.errors`,
/// `http.server.active_requests`; `Docs/Server.md` lists them), without making every answer a
/// body written later.
///
/// Hummingbird's middleware wraps each response body in a closure that records the request once
/// the body is written. A body in a closure loses Hummingbird's one-write path for a body held
/// whole, so the status line and headers went out in one `write` and the body in another, and the
/// client woke twice per answer. This middleware wraps only bodies of unknown length, the
/// streamed ones (change answers in pieces, event streams, asset downloads), whose time includes
/// sending them; a streamed body that is never written is recorded when it is dropped
/// (``RequestRecording``). A body held whole is recorded when the handler returns it (decision
/// 0012.5), and so is a closure body that declares its length: a handler that streams must
/// leave the length unset for its sending to be timed.
///
/// The metrics factory is the one of the process's metrics system when the middleware is
/// made: bootstrap the metrics system before making the router (as `stratusd` does).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: RequestMetricsCache

    /// Records into `factory`: the process's metrics system unless a test gives its own.
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        metrics = RequestMetricsCache(factory: factory)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = metrics.activeRequests(request.method)
        active.increment()
        do {
            var response = try await next(request, context)
            let key = RequestMetricsCache.Key(
                route: context.endpointPath ?? "Unknown", method: request.method, status: response.status)
            let metrics = self.metrics
            let record: @Sendable () -> Void = {
                let endpoint = metrics.endpoint(key)
                endpoint.requests.increment()
                endpoint.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
                active.decrement()
            }
            if response.body.contentLength == nil {
                let body = response.body
                let recording = RequestRecording(record)
                response.body = ResponseBody { writer in
                    defer { recording.finish() }
                    try await body.write(writer)
                }
            } else {
                record()
            }
            return response
        } catch {
            let status = ErrorStatus.of(error)
            let endpoint = metrics.endpoint(
                .init(route: context.endpointPath ?? "NotFound", method: request.method, status: status))
            endpoint.requests.increment()
            endpoint.errors.increment()
            active.decrement()
            throw error
        }
    }
}
