import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import SentioTestSupport
@testable import SentioServer
import Testing

@Suite("sentio serve: route matching and request metrics", .serialized)
struct RouteMetricsTests {
    /// The API's path patterns (`*` is one path segment), in the order of the former route list.
    static let patterns: [[String]] = [
        [""], ["healthz"], ["metrics"], ["openapi.json"], ["static", "app.js"], ["static", "app.css"],
        ["api", "v1", "signals"], ["api", "v1", "symbols", "*"], ["api", "v1", "portfolio"], ["api", "v1", "trades"],
        ["api", "v1", "trades.csv"], ["api", "v1", "bars"], ["ws", "signals"], ["api", "dashboard"], ["api", "funds"],
        ["api", "funds", "*"], ["api", "funds", "*", "documents"], ["api", "crypto"],
        ["api", "auth", "callback", "credentials"], ["api", "invitations", "validate"], ["api", "register"],
        ["api", "user", "profile"], ["api", "auth", "request-password-reset"], ["api", "auth", "reset-password"],
        ["reset-password"], ["api", "admin", "invitations"], ["api", "admin", "funds", "*", "events"],
        // The allowance app.
        ["hubs", "family", "negotiate"], ["hubs", "family"], ["api", "v1", "auth", "register"], ["api", "v1", "auth", "login"],
        ["api", "v1", "children"], ["api", "v1", "families", "current"], ["api", "v1", "transactions"],
        ["api", "v1", "transactions", "categories"], ["api", "v1", "transactions", "children", "*"],
        ["api", "v1", "children", "*", "pay-allowance"], ["api", "v1", "dashboard", "parent"], ["api", "v1", "dashboard", "child"],
        ["api", "v1", "analytics", "spending"], ["api", "v1", "goals"], ["api", "v1", "goals", "*", "progress"],
        // The investing app.
        ["api", "v1", "auth", "token"], ["api", "v1", "account"], ["api", "v1", "positions"], ["api", "v1", "orders"],
        ["api", "v1", "transfers"], ["api", "v1", "dca", "schedules"], ["api", "v1", "dca", "schedules", "*"], ["api", "v1", "ws"],
        ["api", "v1", "positions", "*"],
    ]

    /// A pattern's metrics label (`/api/v1/symbols/{id}` style).
    static func label(_ pattern: [String]) -> String {
        "/" + pattern.map { $0 == "*" ? "{id}" : $0 }.joined(separator: "/")
    }

    /// The router's matching rule written out independently (split on `/` dropping empty parts, no part is the root
    /// `/`, compare part by part, `*` matches any one part); the label of the matched pattern, `nil` for none.
    static func referenceLabel(_ path: String) -> String? {
        var segments = path.split(separator: "/").map(String.init)
        if segments.isEmpty { segments = [""] }
        for pattern in patterns where pattern.count == segments.count {
            if zip(pattern, segments).allSatisfy({ $0 == "*" || $0 == $1 }) { return label(pattern) }
        }
        return nil
    }

    @Test("the router's route of a path agrees with the written-out rule on 20,000 random paths (seed 1414) and the edge cases")
    func routingAgreesWithTheRule() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let routes = h.server.makeRouter().routes
        // Every route of the router, and no other, with the labels the metrics have always had.
        #expect(Set(routes.byLabel.keys) == Set(Self.patterns.map(Self.label)))
        let context = ServerContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        func routeLabel(_ path: String) async -> String? {
            let request = Request(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), body: RequestBody(buffer: ByteBuffer()))
            return await routes.route(of: request, context: context)?.label
        }
        let concrete = ["", "/", "//", "x", "/api/v1/signals", "/api/v1/signals/", "/api/v1//signals",
                        "/api/v1/symbols/", "/api/v1/symbols/TQQQ", "/api/v1/symbols/TQQQ/x", "/api/funds//documents",
                        "/api/funds/NVP-III/documents", "/API/v1/signals", "/api/v1/signal", "/api/v1/signalss",
                        "/static/app.js", "/ws/signals", "/ü/api", "/api/v1/symbols/ü", "/..%2f..%2fetc"]
        for path in concrete {
            #expect(await routeLabel(path) == Self.referenceLabel(path), "\(path)")
        }
        let words = ["", "api", "v1", "signals", "symbols", "TQQQ", "funds", "documents", "static", "app.js", "app.css",
                     "ws", "healthz", "metrics", "openapi.json", "trades", "trades.csv", "bars", "portfolio", "crypto",
                     "dashboard", "signal", "x", "..", "%2f", "ü", "account", "dca", "schedules", "auth", "token"]
        var rng = SplitMix64(seed: 1414)
        var matched = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...5, using: &rng)
            var path = ["", "", "", "x"].randomElement(using: &rng)!
            for _ in 0..<count { path += "/" + words.randomElement(using: &rng)! }
            // Paths that mostly look like the API: start from a real route's shape half of the time.
            if Bool.random(using: &rng) {
                let pattern = Self.patterns.randomElement(using: &rng)!
                path = Self.label(pattern).replacingOccurrences(of: "{id}", with: words.randomElement(using: &rng)!)
            }
            let got = await routeLabel(path)
            let expected = Self.referenceLabel(path)
            if got != nil { matched += 1 }
            #expect(got == expected, "\(path)")
            if got != expected { break }
        }
        #expect(matched > 5_000, "the random paths should often match a route")
    }

    /// The samples of a Prometheus text exposition: (name, labels, value).
    static func samples(_ text: String) -> [(name: String, labels: [String: String], value: Double)] {
        text.split(separator: "\n").compactMap { line -> (name: String, labels: [String: String], value: Double)? in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...])
            else { return nil }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else { return (String(series), [:], value) }
            var labels: [String: String] = [:]
            for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
            }
            return (String(series[..<brace]), labels, value)
        }
    }

    @Test("/metrics counts requests by route and status, and each route's latencies")
    func requestsCountedByRouteAndStatus() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        var etag = ""
        for _ in 0..<7 {
            let r = try await h.request("/api/v1/signals")
            #expect(r.status == 200)
            etag = r.headers.first(name: "ETag") ?? ""
        }
        for _ in 0..<2 {
            #expect(try await h.request("/api/v1/signals", headers: [("If-None-Match", etag)]).status == 304)
        }
        #expect(try await h.request("/api/v1/signals", method: .POST, body: "{}").status == 405)
        #expect(try await h.request("/api/v1/symbols/NOPE").status == 404)
        #expect(try await h.request("/api/v1/symbols/TQQQ").status == 200)
        #expect(try await h.request("/no/such/path").status == 404)
        #expect(try await h.request("/no/such/path", method: .OPTIONS).status == 204)

        let samples = Self.samples(try await h.request("/metrics").body)
        func requests(_ route: String, _ status: String) -> Double? {
            samples.first { $0.name == "sentio_http_requests_total" && $0.labels == ["route": route, "status": status] }?.value
        }
        func latencies(_ route: String) -> Double? {
            samples.first { $0.name == "sentio_http_request_duration_seconds_count" && $0.labels == ["route": route] }?.value
        }
        #expect(requests("/api/v1/signals", "200") == 7)
        #expect(requests("/api/v1/signals", "304") == 2)
        #expect(requests("/api/v1/signals", "405") == 1)
        #expect(requests("/api/v1/symbols/{id}", "404") == 1)
        #expect(requests("/api/v1/symbols/{id}", "200") == 1)
        #expect(requests("other", "404") == 1)
        #expect(requests("other", "204") == 1)
        #expect(latencies("/api/v1/signals") == 10)
        #expect(latencies("/api/v1/symbols/{id}") == 2)
        #expect(latencies("other") == 2)
        // A route never requested has no series (nothing is registered before its first request).
        #expect(!samples.contains { $0.labels["route"] == "/api/crypto" })
    }
}
