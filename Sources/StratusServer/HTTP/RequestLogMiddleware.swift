import Hummingbird
import Logging
import NIOCore

/// One info line per request: method, path, status, duration and the request ID. The path is
/// the route's template (`/notifications/1/:token`) when a route took the request, so a
/// capability in the path never reaches the log, and the query (which carries tokens) never
/// does (decision 0013.8); a path no route took has a courier token masked too.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        let status: HTTPResponse.Status
        do {
            let response = try await next(request, context)
            status = response.status
            log(request, context, status: status, since: start)
            return response
        } catch {
            log(request, context, status: ErrorStatus.of(error), since: start)
            throw error
        }
    }

    /// The path as logged: a courier URL's token is a capability (decision 0013.8), so
    /// `/notifications/1/{token}…` is logged with the template in its place.
    static func loggedPath(_ path: String) -> String {
        let prefix = "/notifications/1/"
        guard path.hasPrefix(prefix) else { return path }
        let rest = path.dropFirst(prefix.count)
        let tail = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        return prefix + "{token}" + tail
    }

    private func log(
        _ request: Request, _ context: Context, status: HTTPResponse.Status, since start: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "request",
            metadata: [
                "stratus.http.method": "\(request.method)",
                "stratus.http.path": "\(context.endpointPath ?? Self.loggedPath(request.uri.path))",
                "stratus.http.status": "\(status.code)", "stratus.duration_ms": "\(milliseconds)",
                "stratus.request.id": "\(context.id)",
            ])
    }
}
