import Hummingbird
import Metrics
import Synchronization

/// The metrics of each route, method and status, and of requests in flight per method, made
/// once and kept: asking the metrics factory for a counter by its label and dimensions on every
/// request would cost a lookup there each time.
final class RequestMetricsCache: Sendable {
    /// What one set of endpoint metrics is kept for.
    struct Key: Hashable, Sendable {
        var route: String
        var method: HTTPRequest.Method
        var status: HTTPResponse.Status
    }

    /// The counters and timer of one ``Key``.
    struct Endpoint: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter

        init(_ key: Key, factory: any MetricsFactory) {
            let dimensions = [
                ("http.route", key.route), ("http.request.method", key.method.rawValue),
                ("http.response.status_code", String(key.status.code)),
            ]
            requests = Counter(label: "hb.requests", dimensions: dimensions, factory: factory)
            duration = Timer(
                label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                factory: factory)
            // The same route and method; the status as Hummingbird names it for errors.
            errors = Counter(
                label: "hb.request.errors",
                dimensions: dimensions.dropLast() + [("error.type", String(key.status.code))],
                factory: factory)
        }
    }

    private let factory: any MetricsFactory
    private let endpoints = Mutex<[Key: Endpoint]>([:])
    private let active = Mutex<[HTTPRequest.Method: Meter]>([:])

    /// Metrics made by `factory`: the process's metrics system unless a test gives its own.
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// The metrics of `key`, made the first time it is asked for.
    func endpoint(_ key: Key) -> Endpoint {
        endpoints.withLock { endpoints in
            if let endpoint = endpoints[key] { return endpoint }
            let endpoint = Endpoint(key, factory: factory)
            endpoints[key] = endpoint
            return endpoint
        }
    }

    /// The gauge of `method`'s requests in flight.
    func activeRequests(_ method: HTTPRequest.Method) -> Meter {
        active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)],
                factory: factory)
            meters[method] = meter
            return meter
        }
    }
}
