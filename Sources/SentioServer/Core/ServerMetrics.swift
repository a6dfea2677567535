import NIOConcurrencyHelpers
import Prometheus

/// The Prometheus metrics of one server.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let barsIngested: Counter
    let webSocketClients: Gauge
    let commit: DurationHistogram
    /// The investing app: the paper brokerage's commit of a batch (with the live session: their one joint commit),
    /// and the fan-out of its events to the sockets (the events' encoding included, also recorded alone).
    let investingCommit: DurationHistogram
    let investingFanout: DurationHistogram
    let investingEncode: DurationHistogram
    static let buckets: [Duration] = [.microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(10),
                                      .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5)]

    init() {
        barsIngested = registry.makeCounter(name: "sentio_bars_ingested_total", help: "Bars accepted by the live session")
        webSocketClients = registry.makeGauge(name: "sentio_websocket_clients", help: "Connected WebSocket clients")
        commit = registry.makeDurationHistogram(
            name: "sentio_journal_commit_seconds", buckets: Self.buckets, help: "Time to make an ingestion batch durable")
        investingCommit = registry.makeDurationHistogram(
            name: "sentio_investing_commit_seconds", buckets: Self.buckets, help: "Time to make a batch durable in the paper brokerage (with the live session: their joint commit)")
        investingFanout = registry.makeDurationHistogram(
            name: "sentio_investing_fanout_seconds", buckets: Self.buckets, help: "Time to queue a batch's investing events on every socket")
        investingEncode = registry.makeDurationHistogram(
            name: "sentio_investing_encode_seconds", buckets: Self.buckets, help: "Time to encode a batch's investing events (part of the fan-out)")
        other = RouteMetrics(label: "other", registry: registry)
    }

    /// The request metrics of every path that is no route of the router (label `other`).
    let other: RouteMetrics
}

/// One route's request metrics: `sentio_http_requests_total{route, status}` and
/// `sentio_http_request_duration_seconds{route}`, resolved in the registry once (on the route's first request and on
/// each status's first), so a request costs one uncontended lock, an integer lookup and the two updates — not the
/// registry's name and label validation, label-set hashing and registry lock.
final class RouteMetrics: Sendable {
    let label: String
    private let registry: PrometheusCollectorRegistry
    private struct Resolved {
        var duration: DurationHistogram?
        var counters: [Int: Counter] = [:]
    }
    private let resolved = NIOLockedValueBox(Resolved())

    init(label: String, registry: PrometheusCollectorRegistry) {
        self.label = label
        self.registry = registry
    }

    func record(status: Int, duration: Duration) {
        let (histogram, counter) = resolved.withLockedValue { r -> (DurationHistogram, Counter) in
            let histogram = r.duration ?? registry.makeDurationHistogram(
                name: "sentio_http_request_duration_seconds", labels: [("route", label)], buckets: ServerMetrics.buckets,
                help: "HTTP request latency by route")
            r.duration = histogram
            if let counter = r.counters[status] { return (histogram, counter) }
            let counter = registry.makeCounter(
                name: "sentio_http_requests_total", labels: [("route", label), ("status", String(status))],
                help: "HTTP requests by route and status")
            r.counters[status] = counter
            return (histogram, counter)
        }
        counter.increment()
        histogram.record(duration)
    }
}

