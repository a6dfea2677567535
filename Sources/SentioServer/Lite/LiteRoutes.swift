import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SentioAPI
import SentioCore
import SentioData

// Sentio Lite, the trading-signals app: its web page, the public read-only API under /api/v1 (rate-limited), bar
// ingestion and the signals WebSocket. Routes thin: each reads the live engine's cached contract bodies.

extension SentioHTTPServer {
    /// Adds Sentio Lite's routes: `/`, `/static/app.js`, `/static/app.css`, `GET /api/v1/signals`,
    /// `/api/v1/symbols/{id}`, `/api/v1/portfolio`, `/api/v1/trades`, `/api/v1/trades.csv`, `POST /api/v1/bars` and
    /// the WebSocket `/ws/signals`.
    func addLiteRoutes(to routes: RouteTable) {
        let engine = self.engine, hub = self.hub, metrics = self.metrics, limiter = self.rateLimiter

        // The web page (it also holds the LP portal's login form).
        let page = CachedBody(WebAssets.html, contentType: "text/html; charset=utf-8")
        let script = CachedBody(WebAssets.script, contentType: "text/javascript; charset=utf-8")
        let style = CachedBody(WebAssets.style, contentType: "text/css; charset=utf-8")
        routes.get("/") { request, _ in Self.conditional(request, page) }
        routes.get("/static/app.js") { request, _ in Self.conditional(request, script) }
        routes.get("/static/app.css") { request, _ in Self.conditional(request, style) }

        // Signals app: public, read-only, rate-limited.
        let api = routes.group("api/v1")
        @Sendable func limited(_ request: Request, _ context: ServerContext) throws {
            // Off (0): nothing to look up (not even the client's address).
            guard limiter.perMinute > 0 else { return }
            let client = context.remoteAddress?.ipAddress ?? "unknown"
            if let wait = limiter.check(client) {
                throw ServerError(status: .tooManyRequests,
                    message: "rate limit: more than \(limiter.perMinute) requests per minute from \(client)",
                    headers: [.retryAfter: String(max(1, wait))])
            }
        }
        api.get("signals") { request, context in
            try limited(request, context)
            // The cached body without another async call (the common case: the app polls between updates).
            if let hit = engine.cachedBody("signals") { return Self.conditional(request, hit) }
            return Self.conditional(request, try await Self.contract(engine, "signals") { try APIJSON.encode(try $0.signals()) })
        }
        // `{id}`: the pattern is the metrics label (`/api/v1/symbols/{id}`); the OpenAPI document calls it `{symbol}`.
        api.get("symbols/{id}") { request, context in
            try limited(request, context)
            let symbol = try context.parameters.require("id")
            let text = request.uri.queryParameters.get("timeframe") ?? "1D"
            guard let timeframe = Timeframe(rawValue: text) else {
                throw ServerError(status: .badRequest, message: "query parameter 'timeframe': '\(text)' is not one of 1D, 5D, 1M, 3M")
            }
            return Self.conditional(request, try await Self.contract(engine, "symbol:\(symbol):\(text)") { backend in
                guard let detail = try backend.symbolDetail(symbol, timeframe: timeframe) else {
                    throw ServerError(status: .notFound, message: "unknown symbol '\(symbol)'")
                }
                return try APIJSON.encode(detail)
            })
        }
        api.get("portfolio") { request, context in
            try limited(request, context)
            return Self.conditional(request, try await Self.contract(engine, "portfolio") { try APIJSON.encode(try $0.portfolio()) })
        }
        api.get("trades") { request, context in
            try limited(request, context)
            return Self.conditional(request, try await Self.contract(engine, "trades") { try APIJSON.encode(try $0.tradeHistory()) })
        }
        api.get("trades.csv") { request, context in
            try limited(request, context)
            return Self.conditional(request, try await engine.body("trades.csv") { backend in
                do { return CachedBody(try backend.tradeHistory().csv(), contentType: "text/csv; charset=utf-8") }
                catch let e as APIContractError { throw ServerError(status: .notFound, message: e.description) }
            })
        }

        // Ingestion.
        let token = options.ingestToken, maxBody = options.maxBody
        api.post("bars") { request, context in
            guard let token else {
                throw ServerError(status: .notFound, message: "ingestion is off (no SENTIO_INGEST_TOKEN configured)")
            }
            guard let given = Self.bearer(request), Self.constantTimeEqual(given, token) else {
                throw ServerError(status: .unauthorized, message: "a valid ingestion token is required (Authorization: Bearer TOKEN)",
                                  headers: [.wwwAuthenticate: "Bearer"])
            }
            let body = try await Self.rawBody(request, maxBody: maxBody)
            let bars = try BarsBody.decode(body, contentType: request.headers[.contentType])
            let outcomes = try await engine.ingest(bars)
            var results: [IngestBarStatus] = []
            var counts = (0, 0, 0)
            for (i, o) in outcomes.enumerated() {
                switch o {
                case .accepted: counts.0 += 1; results.append(IngestBarStatus(index: i, status: "accepted"))
                case .duplicate: counts.1 += 1; results.append(IngestBarStatus(index: i, status: "duplicate"))
                case .rejected(let reason, let message):
                    counts.2 += 1
                    results.append(IngestBarStatus(index: i, status: "rejected", reason: reason, message: message))
                }
            }
            return jsonResponse(.ok, try APIJSON.encode(IngestResponse(
                accepted: counts.0, duplicates: counts.1, rejected: counts.2, results: results)))
        }

        // WebSocket.
        routes.ws("/ws/signals") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, context in
            hub.handlerStarted()
            defer { hub.handlerEnded() }
            let channel = context.requestContext.channel
            // Data frames go straight to the channel (ChannelSink); this handler only reads and closes.
            guard let client = hub.subscribe({ id in
                ChannelSink(channel: channel, capacity: hub.capacity) { hub.drop(id, .slow) }
            }) else {
                try await outbound.close(.goingAway, reason: "server shutting down")
                return
            }
            metrics.webSocketClients.increment()
            defer {
                hub.unsubscribe(client.id)
                metrics.webSocketClients.decrement()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Reading keeps control frames (ping, close) flowing; when the client leaves, we stop.
                    for try await _ in inbound {}
                }
                group.addTask {
                    for await end in client.ended {
                        // A dropped client gets its close frame if it still reads; one that does not read has a
                        // full TCP window, so the frame cannot go out: after 2 s the connection is closed outright.
                        _ = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
                        switch end {
                        case .slow:
                            try await outbound.close(.policyViolation,
                                reason: "slow consumer: more than \(hub.capacity) messages behind")
                        case .shutdown:
                            try await outbound.close(.goingAway, reason: "server shutting down")
                        }
                        // Wait for the reader to see the close handshake end.
                        try await Task.sleep(for: .seconds(2))
                        return
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    /// A contract body from the engine's cache; an `APIContractError` (no data yet) is a 404.
    static func contract(_ engine: LiveEngine, _ key: String, _ make: @escaping @Sendable (any LiveBackend) throws -> String) async throws -> CachedBody {
        if let hit = engine.cachedBody(key) { return hit }
        return try await engine.body(key) { backend in
            do { return CachedBody(try make(backend)) }
            catch let e as APIContractError { throw ServerError(status: .notFound, message: e.description) }
        }
    }
}
