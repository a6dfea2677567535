import SentioContractDecoders
import AsyncHTTPClient
import Foundation
import NIOHTTP1
import SentioAPI
import SentioCore
import SentioData
import SentioServer
import SentioTestSupport
import Testing

@Suite("sentio serve: endpoints over real HTTP", .serialized)
struct ServerEndpointTests {
    @Test("every signals-app endpoint answers its contract shape (strict decoders)")
    func endpointsDecodeStrictly() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }

        let signals = try await h.request("/api/v1/signals")
        #expect(signals.status == 200)
        let decoded = try Strict.decode(StrictSignalsResponse.self, signals.body)
        #expect(Set(decoded.signals.map(\.symbol)).union(decoded.warmingUp.map(\.symbol)) == Set(testSymbols))

        let portfolio = try await h.request("/api/v1/portfolio")
        #expect(portfolio.status == 200, "\(portfolio.body)")
        _ = try Strict.decode(StrictPortfolio.self, portfolio.body)

        let trades = try await h.request("/api/v1/trades")
        #expect(trades.status == 200, "\(trades.body)")
        let history = try Strict.decode(StrictTradeHistory.self, trades.body)
        #expect(history.totalTrades == history.trades.count)

        let csv = try await h.request("/api/v1/trades.csv")
        #expect(csv.status == 200)
        #expect(csv.headers.first(name: "Content-Type")?.hasPrefix("text/csv") == true)
        let lines = csv.body.split(separator: "\n")
        #expect(lines.first?.hasPrefix("id,symbol,entryPrice,exitPrice,shares,entryTime,exitTime,pnl,pnlPercent,signalType") == true)
        #expect(lines.count == history.totalTrades + 1)

        let health = try await h.request("/healthz")
        #expect(health.status == 200)
        #expect(health.body == #"{"status":"ok"}"# || health.body.contains(#""status": "ok""#) || health.body.contains(#""status":"ok""#))

        let metrics = try await h.request("/metrics")
        #expect(metrics.status == 200)
        for name in ["sentio_http_requests_total", "sentio_http_request_duration_seconds", "sentio_bars_ingested_total",
                     "sentio_websocket_clients", "sentio_journal_commit_seconds"] {
            #expect(metrics.body.contains(name), "metrics lacks \(name)")
        }
    }

    @Test("symbol detail: historicalData covers the timeframe (1D, 5D, 1M, 3M); unknown symbol 404; bad timeframe 400")
    func symbolTimeframes() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let series = try OHLCVReader.read(path: repositoryRoot.appendingPathComponent("Data/market/TQQQ.csv").path)
        let served = Array(series.timestamps.prefix(480))
        // Daily bars: one bar per trading day. Months counted on the last bar's date (independent calendar math).
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        let lastDate = Date(timeIntervalSince1970: TimeInterval(served.last!))
        func barsAfter(months: Int) -> Int {
            let lastDay = calendar.startOfDay(for: lastDate)
            let cut = calendar.date(byAdding: .month, value: -months, to: lastDay)!
            return served.filter { calendar.startOfDay(for: Date(timeIntervalSince1970: TimeInterval($0))) > cut }.count
        }
        let expected = ["1D": 1, "5D": 5, "1M": barsAfter(months: 1), "3M": barsAfter(months: 3)]
        for (timeframe, count) in expected {
            let r = try await h.request("/api/v1/symbols/TQQQ?timeframe=\(timeframe)")
            #expect(r.status == 200, "\(timeframe): \(r.body)")
            let detail = try Strict.decode(StrictSymbolDetail.self, r.body)
            #expect(detail.historicalData.count == count, "\(timeframe)")
            #expect(detail.historicalData.last.map { Int64($0.timestamp.timeIntervalSince1970) } == served.last)
            #expect(detail.price == series.close[479])
        }
        let plain = try await h.request("/api/v1/symbols/TQQQ")
        #expect(try Strict.decode(StrictSymbolDetail.self, plain.body).historicalData.count == 1)
        let unknown = try await h.request("/api/v1/symbols/NOPE")
        #expect(unknown.status == 404)
        #expect(try JSONDecoder().decode(APIErrorBody.self, from: Data(unknown.body.utf8)).error.contains("NOPE"))
        let bad = try await h.request("/api/v1/symbols/TQQQ?timeframe=2W")
        #expect(bad.status == 400)
        #expect(bad.body.contains("timeframe"))
    }

    @Test("ETag and If-None-Match → 304; a new bar changes the ETag")
    func etags() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        for path in ["/api/v1/signals", "/api/v1/portfolio", "/api/v1/trades", "/api/v1/symbols/SQQQ?timeframe=5D", "/openapi.json", "/"] {
            let first = try await h.request(path)
            let tag = try #require(first.headers.first(name: "ETag"), "\(path) has no ETag")
            let again = try await h.request(path, headers: [("If-None-Match", tag)])
            #expect(again.status == 304, "\(path)")
            #expect(again.body.isEmpty)
            let other = try await h.request(path, headers: [("If-None-Match", "\"other\"")])
            #expect(other.status == 200)
        }
        let before = try await h.request("/api/v1/signals")
        let steps = try sampleSteps()
        _ = try await h.ingest(steps[480])
        let after = try await h.request("/api/v1/signals", headers: [("If-None-Match", before.headers.first(name: "ETag")!)])
        #expect(after.status == 200)
        #expect(after.headers.first(name: "ETag") != before.headers.first(name: "ETag"))
    }

    @Test("CORS header on successes, errors and preflight; --cors-origin is used")
    func cors() async throws {
        let h = try await ServerHarness(configure: { $0.corsOrigin = "https://app.example" })
        defer { Task { try? await h.stop() } }
        for path in ["/api/v1/signals", "/api/v1/symbols/NOPE", "/nowhere"] {
            let r = try await h.request(path)
            #expect(r.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example", "\(path)")
        }
        let preflight = try await h.request("/api/v1/bars", method: .OPTIONS, headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(preflight.status == 204)
        #expect(preflight.headers.first(name: "Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(preflight.headers.first(name: "Access-Control-Allow-Headers")?.contains("Authorization") == true)
    }

    @Test("errors are JSON with the right status: 404, 405 (with Allow), path escapes")
    func errors() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let cases: [(String, HTTPMethod, Int)] = [
            ("/nowhere", .GET, 404), ("/..%2f..%2fetc%2fpasswd", .GET, 404), ("/static/..%2f..%2fPackage.swift", .GET, 404),
            ("/api/v1/signals", .DELETE, 405), ("/api/v1/bars", .GET, 405), ("/api/v1/portfolio", .PUT, 405),
        ]
        for (path, method, status) in cases {
            let r = try await h.request(path, method: method)
            #expect(r.status == status, "\(method) \(path): \(r.status)")
            let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(r.body.utf8))
            #expect(!body.error.isEmpty)
            if status == 405 { #expect(r.headers.first(name: "Allow") != nil) }
        }
    }

    @Test("rate limit per client IP: the (N+1)th request in a minute is 429 with Retry-After; 0 = off")
    func rateLimit() async throws {
        let h = try await ServerHarness(configure: { $0.rateLimit = 5 })
        defer { Task { try? await h.stop() } }
        var statuses: [Int] = []
        var retryAfter: String?
        // Windows are fixed minutes: a minute boundary may fall inside the loop and restart the count. Of 12 requests
        // (2 × 5 + 2) within one minute boundary, one window holds at least 6, so its 6th is refused.
        for _ in 0..<12 where retryAfter == nil {
            let r = try await h.request("/api/v1/signals")
            statuses.append(r.status)
            if r.status == 429 { retryAfter = r.headers.first(name: "Retry-After") }
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 200 } || statuses.contains(200))
        #expect(statuses.contains(429))
        #expect(statuses.filter { $0 == 200 }.count >= 5, "\(statuses)")
        let seconds = try #require(retryAfter.flatMap(Int.init))
        #expect((1...60).contains(seconds))
        // Operations endpoints are not limited.
        #expect(try await h.request("/healthz").status == 200)

        let off = try await ServerHarness(configure: { $0.rateLimit = 0 })
        defer { Task { try? await off.stop() } }
        for _ in 0..<120 { #expect(try await off.request("/api/v1/signals").status == 200) }
    }

    @Test("the OpenAPI document: served from the binary, equal to Resources/openapi.json, 3.1, every route documented")
    func openAPI() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let r = try await h.request("/openapi.json")
        #expect(r.status == 200)
        let file = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/SentioServer/Resources/openapi.json"), encoding: .utf8)
        #expect(r.body.trimmingCharacters(in: .whitespacesAndNewlines) == file.trimmingCharacters(in: .whitespacesAndNewlines))
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
        #expect(doc["openapi"] as? String == "3.1.0")
        let paths = try #require(doc["paths"] as? [String: Any])
        for p in ["/api/v1/signals", "/api/v1/symbols/{symbol}", "/api/v1/portfolio", "/api/v1/trades", "/api/v1/trades.csv",
                  "/api/v1/bars", "/ws/signals", "/api/dashboard", "/api/funds", "/api/funds/{id}", "/api/funds/{id}/documents",
                  "/api/crypto", "/healthz", "/metrics", "/openapi.json", "/", "/api/auth/callback/credentials",
                  "/api/invitations/validate", "/api/register", "/api/user/profile", "/api/auth/request-password-reset",
                  "/api/auth/reset-password", "/reset-password", "/api/admin/invitations", "/api/admin/funds/{id}/events",
                  "/api/v1/auth/register", "/api/v1/auth/login", "/api/v1/children", "/api/v1/families/current",
                  "/api/v1/transactions", "/api/v1/transactions/categories", "/api/v1/transactions/children/{childId}",
                  "/api/v1/children/{id}/pay-allowance", "/api/v1/dashboard/parent", "/api/v1/dashboard/child",
                  "/api/v1/analytics/spending", "/api/v1/goals", "/api/v1/goals/{id}/progress", "/hubs/family/negotiate",
                  "/hubs/family",
                  "/api/v1/auth/token", "/api/v1/account", "/api/v1/positions", "/api/v1/orders", "/api/v1/transfers",
                  "/api/v1/dca/schedules", "/api/v1/dca/schedules/{id}", "/api/v1/ws", "/api/v1/positions/{symbol}"] {
            #expect(paths[p] != nil, "\(p) undocumented")
        }
    }

    @Test("the web page and its assets are served from the binary")
    func webPage() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let page = try await h.request("/")
        #expect(page.status == 200)
        #expect(page.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.body.contains("/static/app.js") && page.body.contains("portfolio-value"))
        #expect(!page.body.contains("http://") && !page.body.contains("https://"), "the page fetches nothing from the internet")
        let script = try await h.request("/static/app.js")
        #expect(script.status == 200 && script.body.contains("/ws/signals"))
        // The LP portal's login form posts to the login endpoint and then reads the dashboard with the token.
        #expect(page.body.contains(#"<form id="login" method="post">"#) && page.body.contains(#"type="password""#))
        #expect(script.body.contains("/api/auth/callback/credentials") && script.body.contains("Bearer ") && script.body.contains("/api/dashboard"))
        let style = try await h.request("/static/app.css")
        #expect(style.status == 200 && style.body.contains(".card"))
    }
}
