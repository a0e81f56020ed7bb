import CoreMetrics
import EscrowWire
import Prometheus
import Synchronization

/// What a compute server counts, through swift-metrics into its own Prometheus registry, which
/// the health listener serves at `/metrics` (docs/COMPUTE-SERVER.md, "Health and metrics").
/// Never a payload, a parameter or a host name: calls, outcomes, sizes and durations only.
///
/// Thread safety: may be shared; swift-metrics handlers are thread-safe.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// Calls answered, by outcome (`ok`, or the error code in lower case).
    private let outcomes: Mutex<[String: CoreMetrics.Counter]>
    let calls: CoreMetrics.Counter
    let moduleCalls: CoreMetrics.Counter
    let callDuration: CoreMetrics.Timer
    let bytesIn: CoreMetrics.Counter
    let bytesOut: CoreMetrics.Counter
    let connections: CoreMetrics.Gauge
    let inFlight: CoreMetrics.Gauge
    let moduleCacheEntries: CoreMetrics.Gauge

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Calls take from tens of microseconds to the deadline (30 s by default).
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
        outcomes = Mutex([:])
        calls = CoreMetrics.Counter(label: "escrow_compute_calls_total", dimensions: [("kind", "function")], factory: factory)
        moduleCalls = CoreMetrics.Counter(label: "escrow_compute_calls_total", dimensions: [("kind", "module")], factory: factory)
        callDuration = CoreMetrics.Timer(label: "escrow_compute_call_duration_seconds", factory: factory)
        bytesIn = CoreMetrics.Counter(label: "escrow_compute_received_bytes_total", factory: factory)
        bytesOut = CoreMetrics.Counter(label: "escrow_compute_sent_bytes_total", factory: factory)
        connections = CoreMetrics.Gauge(label: "escrow_compute_connections", factory: factory)
        inFlight = CoreMetrics.Gauge(label: "escrow_compute_calls_in_flight", factory: factory)
        moduleCacheEntries = CoreMetrics.Gauge(label: "escrow_compute_module_cache_entries", factory: factory)
    }

    /// Counts a call's answer: `ok`, or its error code (`overloaded`, `function_failed`…).
    func answered(_ code: Escrow_V1_Error.Code?) {
        let name = code.map(Self.name) ?? "ok"
        let factory = self.factory
        let counter = outcomes.withLock { outcomes in
            if let counter = outcomes[name] { return counter }
            let counter = CoreMetrics.Counter(label: "escrow_compute_answers_total", dimensions: [("outcome", name)], factory: factory)
            outcomes[name] = counter
            return counter
        }
        counter.increment()
    }

    /// `FUNCTION_FAILED` as `function_failed`.
    static func name(_ code: Escrow_V1_Error.Code) -> String {
        String(describing: code).reduce(into: "") { name, character in
            if character.isUppercase, !name.isEmpty { name += "_" }
            name += character.lowercased()
        }
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
