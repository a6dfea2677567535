import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SentioAPI
import SentioCore
import SentioData

/// The per-bar answer of `POST /api/v1/bars`.
public struct IngestBarStatus: Codable, Sendable, Equatable {
    /// 0-based position of the bar in the request.
    public var index: Int
    /// `accepted`, `duplicate` or `rejected`.
    public var status: String
    /// The rejection code (`unknown-symbol`, `invalid-bar`, `late-bar`, `conflicting-bar`, `suspected-split`); absent otherwise.
    public var reason: String?
    /// Why it was rejected; absent otherwise.
    public var message: String?
}

/// `POST /api/v1/bars`: counts, then one status per bar in request order.
public struct IngestResponse: Codable, Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    public var rejected: Int
    public var results: [IngestBarStatus]
}

/// `GET /healthz`.
public struct HealthBody: Codable, Sendable, Equatable {
    public var status: String
}

/// One route of the API: its path pattern (`*` is one path segment), its methods (for 405 and `Allow`) and its
/// metrics label (`/api/v1/symbols/{id}` style), all computed once.
struct KnownRoute: Sendable {
    /// The pattern's segments as UTF-8 (`*` matches any one segment).
    let segments: [[UInt8]]
    let methods: [HTTPRequest.Method]
    let label: String
    /// The `Allow` header of a 405.
    let allow: String

    init(_ pattern: [String], _ methods: [HTTPRequest.Method]) {
        segments = pattern.map { Array($0.utf8) }
        self.methods = methods
        label = "/" + pattern.map { $0 == "*" ? "{id}" : $0 }.joined(separator: "/")
        allow = methods.map(\.rawValue).joined(separator: ", ")
    }

    func allows(_ method: HTTPRequest.Method) -> Bool {
        methods.contains(method) || (method == .head && methods.contains(.get))
    }
}

/// The routes with their methods (for 405 and for the metrics' route label).
let knownRoutes: [KnownRoute] = [
    KnownRoute([""], [.get]), KnownRoute(["healthz"], [.get]), KnownRoute(["metrics"], [.get]),
    KnownRoute(["openapi.json"], [.get]), KnownRoute(["static", "app.js"], [.get]), KnownRoute(["static", "app.css"], [.get]),
    KnownRoute(["api", "v1", "signals"], [.get]), KnownRoute(["api", "v1", "symbols", "*"], [.get]),
    KnownRoute(["api", "v1", "portfolio"], [.get]), KnownRoute(["api", "v1", "trades"], [.get]),
    KnownRoute(["api", "v1", "trades.csv"], [.get]), KnownRoute(["api", "v1", "bars"], [.post]),
    KnownRoute(["ws", "signals"], [.get]), KnownRoute(["api", "dashboard"], [.get]), KnownRoute(["api", "funds"], [.get]),
    KnownRoute(["api", "funds", "*"], [.get]), KnownRoute(["api", "funds", "*", "documents"], [.get]),
    KnownRoute(["api", "crypto"], [.get]),
    KnownRoute(["api", "auth", "callback", "credentials"], [.post]), KnownRoute(["api", "invitations", "validate"], [.get]),
    KnownRoute(["api", "register"], [.post]), KnownRoute(["api", "user", "profile"], [.get]),
    KnownRoute(["api", "auth", "request-password-reset"], [.post]), KnownRoute(["api", "auth", "reset-password"], [.post]),
    KnownRoute(["reset-password"], [.get]), KnownRoute(["api", "admin", "invitations"], [.post]),
    KnownRoute(["api", "admin", "funds", "*", "events"], [.post]),
]

/// The index in `knownRoutes` of the route a path matches, or `nil`.
///
/// The path's segments are the parts between `/` after the first `/` (an empty path, or one without `/`, is the
/// one empty segment of `/`); a route matches when it has as many segments and each equals the pattern's or the
/// pattern's is `*`. Runs on every request: no allocation (the path's UTF-8 is read in place).
func matchRoute(_ path: String) -> Int? {
    if let hit = path.utf8.withContiguousStorageIfAvailable({ matchRoute(utf8: $0) }) { return hit }
    return Array(path.utf8).withUnsafeBufferPointer { matchRoute(utf8: $0) }
}

private func matchRoute(utf8 path: UnsafeBufferPointer<UInt8>) -> Int? {
    let slash = UInt8(ascii: "/")
    // The first segment (up to the first "/") is not part of the route.
    guard let first = path.firstIndex(of: slash) else {
        return knownRoutes.firstIndex { $0.segments.count == 1 && ($0.segments[0] == [UInt8(ascii: "*")] || $0.segments[0].isEmpty) }
    }
    routes: for index in knownRoutes.indices {
        let route = knownRoutes[index]
        var start = first + 1
        for j in route.segments.indices {
            let pattern = route.segments[j]
            // The segment path[start..<end]: up to the next "/" or the end.
            var end = start
            while end < path.count, path[end] != slash { end += 1 }
            if !(pattern.count == 1 && pattern[0] == UInt8(ascii: "*")) {
                guard end - start == pattern.count else { continue routes }
                for k in 0..<pattern.count where path[start + k] != pattern[k] { continue routes }
            }
            if j == route.segments.count - 1 {
                // The last pattern segment must end the path.
                guard end == path.count else { continue routes }
            } else {
                // More pattern segments: the path must go on after a "/".
                guard end < path.count else { continue routes }
                start = end + 1
            }
        }
        return index
    }
    return nil
}

func jsonResponse(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
    var h = headers
    h[.contentType] = "application/json; charset=utf-8"
    return Response(status: status, headers: h, body: .init(byteBuffer: ByteBuffer(string: text)))
}

func errorResponse(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
    let text = (try? APIJSON.encode(APIErrorBody(error: message))) ?? "{\"error\":\"internal error\"}"
    return jsonResponse(status, text, headers: headers)
}

/// Outermost: metrics, CORS, and every error as `{"error"}` JSON.
struct EdgeMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let metrics: ServerMetrics
    let logger: Logger
    /// The CORS headers of every response (`Vary: Origin` when the origin is not `*`), built once; only this
    /// middleware sets them.
    let cors: HTTPFields

    init(metrics: ServerMetrics, corsOrigin: String, logger: Logger) {
        self.metrics = metrics
        self.logger = logger
        var cors: HTTPFields = [.accessControlAllowOrigin: corsOrigin, .accessControlExposeHeaders: "ETag, Retry-After"]
        if corsOrigin != "*" { cors[.vary] = "Origin" }
        self.cors = cors
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let routeIndex = matchRoute(request.uri.path)
        let route = routeIndex.map { knownRoutes[$0] }
        // nil: no known route (the router answers 404, or 204 to OPTIONS).
        let allowed = route?.allows(request.method)
        var response: Response
        if allowed != true, request.method == .options {
            response = Response(status: .noContent, headers: [
                .accessControlAllowMethods: "GET, POST, OPTIONS",
                .accessControlAllowHeaders: "Authorization, Content-Type, If-None-Match",
                .accessControlMaxAge: "600",
            ])
        } else if allowed == false, let route {
            response = errorResponse(.methodNotAllowed, "method \(request.method) is not allowed on \(route.label)",
                headers: [.allow: route.allow])
        } else {
            do {
                response = try await next(request, context)
            } catch let e as ServerError {
                response = errorResponse(e.status, e.message, headers: e.headers)
            } catch let e as HTTPError {
                let message: String
                switch e.status {
                case .notFound: message = "no such resource: \(request.uri.path)"
                case .contentTooLarge: message = "the request body is larger than the limit (--max-body)"
                default: message = e.body ?? e.status.reasonPhrase
                }
                response = errorResponse(e.status, message, headers: e.headers)
            } catch {
                logger.error("\(request.method) \(request.uri.path): \(error)")
                response = errorResponse(.internalServerError, "internal error")
            }
        }
        response.headers.append(contentsOf: cors)
        metrics.request(route: routeIndex, status: Int(response.status.code), duration: ContinuousClock.now - start)
        return response
    }
}

extension SentioHTTPServer {
    func makeRouter() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: EdgeMiddleware(metrics: metrics, corsOrigin: options.corsOrigin, logger: logger))
        let engine = self.engine, hub = self.hub, metrics = self.metrics, limiter = self.rateLimiter

        // Operations.
        router.get("/healthz") { _, _ in jsonResponse(.ok, try APIJSON.encode(HealthBody(status: "ok"))) }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
        let openAPI = CachedBody(OpenAPIDocument.json)
        router.get("/openapi.json") { request, _ in Self.conditional(request, openAPI) }
        let page = CachedBody(WebAssets.html, contentType: "text/html; charset=utf-8")
        let script = CachedBody(WebAssets.script, contentType: "text/javascript; charset=utf-8")
        let style = CachedBody(WebAssets.style, contentType: "text/css; charset=utf-8")
        router.get("/") { request, _ in Self.conditional(request, page) }
        router.get("/static/app.js") { request, _ in Self.conditional(request, script) }
        router.get("/static/app.css") { request, _ in Self.conditional(request, style) }
        let resetPage = CachedBody(WebAssets.resetPage, contentType: "text/html; charset=utf-8")
        router.get("/reset-password") { request, _ in Self.conditional(request, resetPage) }

        // Signals app: public, read-only, rate-limited.
        let api = router.group("api/v1")
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
        api.get("symbols/{symbol}") { request, context in
            try limited(request, context)
            let symbol = try context.parameters.require("symbol")
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
            let tooLarge = ServerError(status: .contentTooLarge, message: "the request body is larger than the limit (--max-body \(maxBody) bytes)")
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBody { throw tooLarge }
            var request = request
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: maxBody) } catch is NIOTooManyBytesError { throw tooLarge }
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

        // LP portal (Portal/PortalRoutes.swift).
        addPortalRoutes(to: router)

        // WebSocket.
        router.ws("/ws/signals") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, context in
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
        return router
    }

    /// A contract body from the engine's cache; an `APIContractError` (no data yet) is a 404.
    static func contract(_ engine: LiveEngine, _ key: String, _ make: @escaping @Sendable (any LiveBackend) throws -> String) async throws -> CachedBody {
        if let hit = engine.cachedBody(key) { return hit }
        return try await engine.body(key) { backend in
            do { return CachedBody(try make(backend)) }
            catch let e as APIContractError { throw ServerError(status: .notFound, message: e.description) }
        }
    }

    /// 304 when `If-None-Match` names the body's ETag (or `*`), else 200 with the body.
    static func conditional(_ request: Request, _ body: CachedBody) -> Response {
        if let given = request.headers[.ifNoneMatch] {
            let tags = given.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains(where: { $0 == "*" || $0 == body.etag || $0 == "W/" + body.etag }) {
                return Response(status: .notModified, headers: [.eTag: body.etag])
            }
        }
        return Response(status: .ok, headers: body.headers, body: .init(byteBuffer: body.bytes))
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }
}

/// The body of `POST /api/v1/bars`: NDJSON (one bar object per line) or a JSON array of bar objects, each read by
/// SentioData's strict `NDJSONBars` decoder. A body that is not that (bad JSON, a missing or extra key, a wrong
/// type, a value breaking the OHLCV rules) is a 400 naming the line (NDJSON) or element (array) and the field;
/// nothing of it is ingested.
enum BarsBody {
    static func decode(_ buffer: ByteBuffer, contentType: String?) throws -> [FeedBar] {
        let bytes = Array(buffer.readableBytesView)
        let firstNonSpace = bytes.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        if firstNonSpace == UInt8(ascii: "[") {
            return try decodeArray(bytes)
        }
        var bars: [FeedBar] = []
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            guard let result = NDJSONBars.decode(line: String(decoding: line, as: UTF8.self), number: lineNumber, source: "body") else {
                continue
            }
            switch result {
            case .success(let bar): bars.append(bar)
            case .failure(let error): throw ServerError(status: .badRequest, message: error.description)
            }
        }
        guard !bars.isEmpty else { throw ServerError(status: .badRequest, message: "body: no bar (expected NDJSON lines or a JSON array of bars)") }
        return bars
    }

    /// Splits a JSON array into its top-level elements (tracking strings and nesting) and decodes each.
    static func decodeArray(_ bytes: [UInt8]) throws -> [FeedBar] {
        var i = 0
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        skipSpace()
        i += 1  // "["
        var bars: [FeedBar] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            throw ServerError(status: .badRequest, message: "body: the array holds no bar")
        }
        var element = 0
        while true {
            skipSpace()
            let start = i
            var depth = 0, inString = false, escaped = false
            while i < bytes.count {
                let c = bytes[i]
                if inString {
                    if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
                } else if c == 0x22 { inString = true }
                else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { depth += 1 }
                else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    if depth == 0 { break }
                    depth -= 1
                } else if c == UInt8(ascii: ","), depth == 0 { break }
                i += 1
            }
            guard i < bytes.count else {
                throw ServerError(status: .badRequest, message: "body: element \(element): the array is not closed")
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            switch NDJSONBars.decode(line: text, number: element + 1, source: "body") {
            case .success(let bar)?: bars.append(bar)
            case .failure(let error)?:
                var message = "body: element \(element)"
                if let field = error.field { message += ": field '\(field)'" }
                throw ServerError(status: .badRequest, message: message + ": " + error.message)
            case nil: throw ServerError(status: .badRequest, message: "body: element \(element) is empty")
            }
            element += 1
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            i += 1  // ","
        }
        skipSpace()
        guard i == bytes.count else { throw ServerError(status: .badRequest, message: "body: text after the array") }
        return bars
    }
}
