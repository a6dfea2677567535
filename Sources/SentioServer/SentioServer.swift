import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import SentioAPI
import SentioData
import ServiceLifecycle

/// How `sentio serve` serves.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 8080
    /// `Access-Control-Allow-Origin` of every response.
    public var corsOrigin = "*"
    /// Requests per client IP per minute on the public `/api/v1` GETs; 0 = off.
    public var rateLimit = 100
    /// Largest accepted request body, in bytes (413 above).
    public var maxBody = 1 << 20
    /// `SENTIO_INGEST_TOKEN`; `nil` turns `POST /api/v1/bars` off (404).
    public var ingestToken: String?
    /// `SENTIO_JWT_SECRET` (at least 32 bytes): the HS256 key of the LP portal's tokens, given to
    /// ``AccountService``; without it the portal is off (every portal request is 401, login 503).
    public var jwtSecret: String?
    /// The public base URL of the server, the start of password-reset links (`--public-url`); `nil`:
    /// `http://HOST:PORT` of the listening socket.
    public var publicURL: String?
    /// Messages a WebSocket client may fall behind before it is closed.
    public var webSocketBuffer = 256

    public init() {}
}

/// The body of every error response: `{"error": "message"}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public init(error: String) { self.error = error }
}

/// An error with its HTTP status and extra headers, answered as ``APIErrorBody``.
struct ServerError: Error {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]
}

/// One encoded GET body with its ETag, and the headers of its 200 response, built once: every response shares the
/// one `ByteBuffer` (a reference to the same storage, never a copy of the bytes).
struct CachedBody: Sendable {
    let bytes: ByteBuffer
    let etag: String
    let contentType: String
    /// `Content-Type`, `ETag`, `Cache-Control: no-cache`.
    let headers: HTTPFields

    init(_ text: String, contentType: String = "application/json; charset=utf-8") {
        bytes = ByteBuffer(string: text)
        // FNV-1a 64 over the bytes: a strong validator of this exact representation.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        etag = "\"" + String(h, radix: 16) + "-" + String(text.utf8.count, radix: 16) + "\""
        self.contentType = contentType
        headers = [.contentType: contentType, .eTag: etag, .cacheControl: "no-cache"]
    }
}

/// The engine side: the backend, serialized; publishes to the hub and invalidates the caches.
actor LiveEngine {
    private let backend: any LiveBackend
    let hub: SignalHub
    let cache: NIOLockedValueBox<[String: CachedBody]>
    let metrics: ServerMetrics

    init(backend: sending any LiveBackend, hub: SignalHub, metrics: ServerMetrics) {
        self.backend = backend
        self.hub = hub
        self.metrics = metrics
        cache = NIOLockedValueBox([:])
        hub.seed(Self.encode(backend.currentMessages()))
    }

    static func encode(_ messages: [LiveMessage]) -> [(symbol: String, text: String)] {
        // One line per message (APIJSON's encoding without its layout), without the NDJSON line feed.
        messages.compactMap { m in (try? APIJSON.encodeLine(m)).map { (m.data.symbol, String($0.dropLast())) } }
    }

    func ingest(_ bars: [FeedBar]) throws -> [BarOutcome] {
        let start = ContinuousClock.now
        let result = try backend.ingest(bars)
        metrics.commit.record(ContinuousClock.now - start)
        let accepted = result.outcomes.filter { $0 == .accepted }.count
        if accepted > 0 {
            metrics.barsIngested.increment(by: Int64(accepted))
            cache.withLockedValue { $0.removeAll(keepingCapacity: true) }
        }
        hub.publish(Self.encode(result.messages))
        return result.outcomes
    }

    func tick() throws {
        let (changed, messages) = try backend.tick(now: Date().timeIntervalSince1970)
        if changed { cache.withLockedValue { $0.removeAll(keepingCapacity: true) } }
        hub.publish(Self.encode(messages))
    }

    /// The cached body for `key`, if any: read without entering the actor (a hit never waits for an ingestion).
    nonisolated func cachedBody(_ key: String) -> CachedBody? {
        cache.withLockedValue { $0[key] }
    }

    /// The cached body for `key`, computing it with `make` on a miss.
    func body(_ key: String, _ make: @Sendable (any LiveBackend) throws -> CachedBody) throws -> CachedBody {
        if let hit = cache.withLockedValue({ $0[key] }) { return hit }
        let body = try make(backend)
        cache.withLockedValue { $0[key] = body }
        return body
    }

    func finish() throws { try backend.finish() }
}

/// The Prometheus metrics of one server.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let barsIngested: Counter
    let webSocketClients: Gauge
    let commit: DurationHistogram
    static let buckets: [Duration] = [.microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(10),
                                      .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5)]

    init() {
        barsIngested = registry.makeCounter(name: "sentio_bars_ingested_total", help: "Bars accepted by the live session")
        webSocketClients = registry.makeGauge(name: "sentio_websocket_clients", help: "Connected WebSocket clients")
        commit = registry.makeDurationHistogram(
            name: "sentio_journal_commit_seconds", buckets: Self.buckets, help: "Time to make an ingestion batch durable")
        let registry = self.registry
        routes = (knownRoutes.map(\.label) + ["other"]).map { RouteMetrics(label: $0, registry: registry) }
    }

    /// The request metrics of each route of `knownRoutes` (same index), then of every other path (`other`).
    let routes: [RouteMetrics]

    /// Counts one request of the route at `route` in `knownRoutes` (`nil`: label `other`) with its status, and
    /// records its latency.
    func request(route: Int?, status: Int, duration: Duration) {
        routes[route ?? routes.count - 1].record(status: status, duration: duration)
    }
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

/// The request context: the router's WebSocket support plus the client's address (for rate limiting).
public struct ServerContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<ServerContext>
    /// The client's address, read from the connection when asked (only the rate limiter asks).
    public var remoteAddress: SocketAddress? { channel.remoteAddress }
    /// The connection (a WebSocket that cannot take its close frame is closed through it).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
