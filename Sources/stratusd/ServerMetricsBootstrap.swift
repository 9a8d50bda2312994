import Metrics
import Prometheus

/// The process's metrics system: Prometheus, bootstrapped once when `stratusd serve` starts
/// (libraries never bootstrap; decision 0013.7).
enum ServerMetricsBootstrap {
    /// Bootstraps swift-metrics with a Prometheus registry and returns the registry, whose
    /// text the metrics listener serves.
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }
}
