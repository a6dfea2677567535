import Foundation
import HummingbirdWSClient
import JWTKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket
import SentioBacktest
import SentioContractDecoders
import SentioCore
import SentioData
import SentioLive
@testable import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// Test Sign in with Apple keys: an RS256 key in the JWKS (`kid` "test-key-1"), and what forges tokens.
struct AppleTestKeys: Sendable {
    static let audience = "app.growfolio.tests"
    static let kid = "test-key-1"
    let jwks: String
    let main: JWTKeyCollection
    /// Another key signing under the JWKS's kid (a bad signature).
    let forger: JWTKeyCollection
    /// The right key under a kid the JWKS does not have.
    let unknownKid: JWTKeyCollection

    static func make() async throws -> AppleTestKeys {
        let key = try Insecure.RSA.PrivateKey(pem: try String(contentsOfFile: fixturePath("investing/apple-test-key.pem"), encoding: .utf8))
        let other = try Insecure.RSA.PrivateKey(pem: try String(contentsOfFile: fixturePath("investing/other-test-key.pem"), encoding: .utf8))
        // The public half of apple-test-key.pem (Tests/Fixtures/investing/README.md).
        let jwks = try String(contentsOfFile: fixturePath("investing/apple-test-jwks.json"), encoding: .utf8)
        let main = JWTKeyCollection(), forger = JWTKeyCollection(), unknown = JWTKeyCollection()
        await main.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        await forger.add(rsa: other, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        await unknown.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: "not-in-the-jwks"))
        return AppleTestKeys(jwks: jwks, main: main, forger: forger, unknownKid: unknown)
    }

    /// An identity token of `sub` expiring `expiresIn` seconds from now (whole seconds).
    func token(_ sub: String, expiresIn: Double = 3_600, audience: String = AppleTestKeys.audience,
               issuer: String = "https://appleid.apple.com", signer: JWTKeyCollection? = nil) async throws -> String {
        let now = Date()
        let exp = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + expiresIn).rounded(.down))
        let payload = AppleIdentityToken(
            issuer: IssuerClaim(value: issuer), audience: AudienceClaim(value: audience), expires: ExpirationClaim(value: exp),
            issuedAt: IssuedAtClaim(value: now), subject: SubjectClaim(value: sub), email: "\(sub)@privaterelay.example")
        let kid = signer === unknownKid ? "not-in-the-jwks" : Self.kid
        return try await (signer ?? main).sign(payload, kid: JWKIdentifier(string: kid))
    }
}

/// An interactive WebSocket client: records the text messages and the close frame, sends on request, and answers
/// heartbeats with `pong` when `answersHeartbeats`.
final class GrowfolioClient: Sendable {
    let messages = NIOLockedValueBox<[String]>([])
    let closeFrame = NIOLockedValueBox<WebSocketCloseFrame?>(nil)
    let finished = NIOLockedValueBox(false)
    let failure = NIOLockedValueBox<String?>(nil)
    let answersHeartbeats: NIOLockedValueBox<Bool>
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    init(_ url: String, answersHeartbeats: Bool = true) {
        let (stream, outgoing) = AsyncStream<String>.makeStream()
        self.outgoing = outgoing
        let answers = NIOLockedValueBox(answersHeartbeats)
        self.answersHeartbeats = answers
        let messages = self.messages, closeFrame = self.closeFrame, finished = self.finished, failure = self.failure
        task = Task {
            var logger = Logger(label: "growfolio-client")
            logger.logLevel = .critical
            do {
                let frame = try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for await text in stream { try await outbound.write(.text(text)) } }
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            messages.withLockedValue { $0.append(text) }
                            if answers.withLockedValue({ $0 }), Growfolio.kind(text)?.event == "heartbeat" {
                                try await outbound.write(.text(#"{"type":"pong"}"#))
                            }
                        }
                        group.cancelAll()
                    }
                }
                closeFrame.withLockedValue { $0 = frame }
            } catch {
                failure.withLockedValue { $0 = "\(error)" }
            }
            finished.withLockedValue { $0 = true }
        }
    }

    func send(_ text: String) { outgoing.yield(text) }

    func stop() { task.cancel() }

    /// The first message at or after index `from` whose event (or type, for acks and errors) is `name`.
    @discardableResult
    func next(_ name: String, from: Int = 0, seconds: Double = 20) async throws -> (index: Int, text: String) {
        var found: (Int, String)?
        try await pollUntil("waited for '\(name)'; got \(messages.withLockedValue { $0 }.compactMap { Growfolio.kind($0).map { $0.event ?? $0.type } })", seconds: seconds,
            failFast: { [self] in finished.withLockedValue { $0 } && found == nil ? "the socket closed (\(closeCode.map(String.init) ?? "no frame"))" : nil }) {
            let all = messages.withLockedValue { $0 }
            for i in from..<max(from, all.count) {
                if let k = Growfolio.kind(all[i]), (k.event ?? k.type) == name {
                    found = (i, all[i])
                    return true
                }
            }
            return false
        }
        return found!
    }

    var count: Int { messages.withLockedValue { $0.count } }
    var closeCode: Int? {
        let frame: WebSocketCloseFrame? = closeFrame.withLockedValue { $0 }
        return frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
    }
    var events: [String] { messages.withLockedValue { $0 }.compactMap { Growfolio.kind($0)?.event } }

    func waitUntilClosed(_ what: String, seconds: Double = 20) async throws -> Int? {
        try await pollUntil("\(what): the socket did not close; got \(events)", seconds: seconds) { finished.withLockedValue { $0 } }
        return closeCode
    }
}

/// A server with the investing app on (the test keys' JWKS), bars posted through `/api/v1/bars`.
func investingHarness(keys: AppleTestKeys, configure: @escaping @Sendable (inout InvestingService.Options) -> Void = { _ in }) async throws -> ServerHarness {
    try await ServerHarness(preload: 0, investing: { database in
        var options = InvestingService.Options()
        configure(&options)
        return InvestingService(
            brokerage: try PaperBrokerage(database: database), verifier: try await AppleIdentityVerifier(jwks: keys.jwks, audience: AppleTestKeys.audience),
            options: options)
    })
}

extension ServerHarness {
    func investing(_ path: String, method: HTTPMethod = .GET, token: String?, body: String? = nil) async throws -> Reply {
        try await request(path, method: method, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [], body: body)
    }

    func signIn(_ token: String, first: String? = nil, last: String? = nil) async throws -> GAuthTokenResponse {
        var body = #"{"identity_token":"\#(token)""#
        if let first { body += #","user_first_name":"\#(first)""# }
        if let last { body += #","user_last_name":"\#(last)""# }
        let reply = try await request("/api/v1/auth/token", method: .POST, body: body + "}")
        guard reply.status == 200 else { throw HarnessError("sign-in: \(reply.status) \(reply.body)") }
        return try Growfolio.body(GAuthTokenResponse.self, reply.body)
    }

    func socket(_ token: String?, answersHeartbeats: Bool = true) -> GrowfolioClient {
        var url = "ws://127.0.0.1:\(port)/api/v1/ws?device_type=ios&app_version=1.2.3"
        if let token { url += "&token=\(token)" }
        return GrowfolioClient(url, answersHeartbeats: answersHeartbeats)
    }
}

/// Daily bars from `start` (UTC seconds): a GBPUSD bar and a TQQQ bar per day.
func investingBars(start: Int64, days: Int, rate: Double = 1.25, price: Double = 50) -> [[FeedBar]] {
    (0..<days).map { d in
        let t = start + Int64(d) * 86_400
        let p = price * (1 + 0.01 * Double(d))
        return [
            FeedBar(symbol: "GBPUSD", bar: Bar(timestamp: t, open: rate, high: rate, low: rate, close: rate, volume: 0)),
            FeedBar(symbol: "TQQQ", bar: Bar(timestamp: t, open: p, high: p * 1.01, low: p * 0.99, close: p * 1.005, volume: 1_000)),
        ]
    }
}

@Suite("sentio serve: the investing app (Growfolio)", .serialized)
struct InvestingTests {
    @Test("POST /api/v1/auth/token creates the investor and an ACTIVE paper account once (the first sign-in's name kept); every bad token is 401")
    func signIn() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys)
        defer { Task { try? await h.stop() } }
        let first = try await h.signIn(try await keys.token("user-a"), first: "Ada", last: "Lovelace")
        #expect(first.user_id == "user-a" && first.name == "Ada Lovelace" && first.alpaca_account_status == "ACTIVE")
        #expect(first.email == "user-a@privaterelay.example")
        let again = try await h.signIn(try await keys.token("user-a"), first: "Other", last: "Name")
        #expect(again.name == "Ada Lovelace")

        let account = try await h.investing("/api/v1/account", token: try await keys.token("user-a"))
        #expect(account.status == 200)
        let a = try Growfolio.body(GAccount.self, account.body)
        #expect(a.status == "ACTIVE" && a.cash_gbp.text == "0.00" && a.currency == "GBP")

        let bad: [(String, String)] = [
            ("expired", try await keys.token("user-a", expiresIn: -120)),
            ("wrong audience", try await keys.token("user-a", audience: "someone.else")),
            ("wrong issuer", try await keys.token("user-a", issuer: "https://evil.example")),
            ("bad signature", try await keys.token("user-a", signer: keys.forger)),
            ("unknown kid", try await keys.token("user-a", signer: keys.unknownKid)),
            ("HS256", try await signedJWT(sub: "user-a", exp: Date().addingTimeInterval(3600), secret: ServerHarness.jwtSecret)),
            ("alg none", unsignedJWT(payload: #"{"iss":"https://appleid.apple.com","aud":"app.growfolio.tests","sub":"user-a","exp":9999999999,"iat":0}"#)),
            ("garbage", "not-a-jwt"),
        ]
        for (what, token) in bad {
            let r = try await h.investing("/api/v1/account", token: token)
            #expect(r.status == 401, "\(what): \(r.status) \(r.body)")
            let s = try await h.request("/api/v1/auth/token", method: .POST, body: #"{"identity_token":"\#(token)"}"#)
            #expect(s.status == 401, "\(what) sign-in: \(s.status) \(s.body)")
        }
        #expect(try await h.investing("/api/v1/account", token: nil).status == 401)
        // A valid token of someone who never signed in.
        #expect(try await h.investing("/api/v1/account", token: try await keys.token("stranger")).status == 404)
    }

    @Test("the manual's flow: welcome, subscribe quotes → ack, quote_updated; a DCA schedule executes as order_created → order_fill → dca_executed; only the owner sees it; REST agrees")
    func dcaFlow() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys) { $0.quoteSpreadBasisPoints = 10 }
        defer { Task { try? await h.stop() } }
        let token = try await keys.token("user-a"), other = try await keys.token("user-b")
        _ = try await h.signIn(token, first: "Ada")
        _ = try await h.signIn(other, first: "Bob")
        let a = h.socket(token), b = h.socket(other)
        defer { a.stop(); b.stop() }
        let welcome = try Growfolio.message(GWelcome.self, try await a.next("system").text)
        #expect(welcome.type == .system && welcome.event == nil)
        #expect(welcome.data.subscriptions == ["orders", "positions", "account", "dca", "transfers"] && welcome.data.heartbeat_interval == 30)
        _ = try await b.next("system")

        // A deposit: transfer_complete and cash_changed on the owner's socket.
        let deposit = try await h.investing("/api/v1/transfers", method: .POST, token: token,
                                            body: #"{"direction":"INCOMING","amount":"1000.00","currency":"GBP"}"#)
        #expect(deposit.status == 201, "\(deposit.body)")
        let transfer = try Growfolio.body(GTransfer.self, deposit.body)
        #expect(transfer.status == "COMPLETE" && transfer.amount.text == "1000.00")
        let complete = try Growfolio.message(GTransfer.self, try await a.next("transfer_complete").text)
        #expect(complete.data.transfer_id == transfer.transfer_id)
        _ = try Growfolio.message(GCashChanged.self, try await a.next("cash_changed").text)
        // A withdrawal of more than the cash is refused at once.
        #expect(try await h.investing("/api/v1/transfers", method: .POST, token: token,
                                      body: #"{"direction":"OUTGOING","amount":"1000.01","currency":"GBP"}"#).status == 400)

        a.send(#"{"type":"subscribe","channels":["quotes","fx"],"symbols":["tqqq"],"extra":"ignored"}"#)
        let ack = try Growfolio.message(GAck.self, try await a.next("ack").text)
        #expect(ack.data.action == .subscribed && ack.data.channels == ["quotes", "fx"])

        let start: Int64 = 1_735_689_600  // 2025-01-01
        let schedule = try await h.investing("/api/v1/dca/schedules", method: .POST, token: token,
                                             body: #"{"symbol":"TQQQ","amount_gbp":"100","every":"month","start":"2025-01-01"}"#)
        #expect(schedule.status == 201, "\(schedule.body)")
        let s = try Growfolio.body(GSchedule.self, schedule.body)
        let bars = investingBars(start: start, days: 3)
        for step in bars { #expect(try await h.ingest(step).status == 200) }

        let quote = try Growfolio.message(GQuote.self, try await a.next("quote_updated").text)
        #expect(quote.data.symbol == "TQQQ" && quote.data.price_usd.text == "50.2500" && quote.data.fx_rate.text == "1.250000")
        // Half-spread 10 bps of the last price.
        #expect(quote.data.bid.text == String(format: "%.4f", 50.0 * 1.005 * (1 - 10.0 / 10_000)) && quote.data.ask.text == String(format: "%.4f", 50.0 * 1.005 * (1 + 10.0 / 10_000)))
        #expect(quote.data.price_gbp.text == "40.2000" && quote.data.change_percent.text == "0.00")
        #expect(quote.data.timestamp.text == "2025-01-01T00:00:00.000000")
        _ = try Growfolio.message(GFXRate.self, try await a.next("fx_rate_updated").text)

        let created = try await a.next("order_created")
        let fill = try await a.next("order_fill", from: created.index)
        let executed = try await a.next("dca_executed", from: fill.index)
        let c = try Growfolio.message(GOrder.self, created.text), f = try Growfolio.message(GOrder.self, fill.text)
        let e = try Growfolio.message(GDCAExecuted.self, executed.text)
        #expect(c.data.status == "new" && c.data.dca_schedule_id == s.id && c.data.filled_price == nil)
        #expect(f.data.status == "filled" && f.data.event == "fill" && f.data.order_id == c.data.order_id)
        // Filled at the second bar's open (50.50 USD) at 1.25, with the backtest's default 0.1 % commission.
        #expect(e.data.price_usd.text == "50.5000" && e.data.fx_rate.text == "1.250000" && e.data.amount_gbp.text == "100.00")
        let quantity = (100.0 / (50.5 / 1.25 * 1.001))
        #expect(e.data.filled_qty.text == String(format: "%.8f", quantity))
        _ = try Growfolio.message(GPosition.self, try await a.next("position_created").text)

        // REST agrees; the other investor saw none of it.
        let orders = try Growfolio.body(GOrders.self, try await h.investing("/api/v1/orders", token: token).body)
        #expect(orders.orders.map(\.status) == ["filled"] && orders.orders[0].order_id == c.data.order_id)
        let positions = try Growfolio.body(GPositions.self, try await h.investing("/api/v1/positions", token: token).body)
        #expect(positions.positions.map(\.symbol) == ["TQQQ"] && positions.positions[0].quantity.text == e.data.filled_qty.text)
        let account = try Growfolio.body(GAccount.self, try await h.investing("/api/v1/account", token: token).body)
        #expect(account.cash_gbp.text == "900.00" && account.fx_rate?.text == "1.250000" && account.cash_usd?.text == "1125.00")
        let listed = try Growfolio.body(GSchedules.self, try await h.investing("/api/v1/dca/schedules", token: token).body)
        #expect(listed.schedules.map(\.id) == [s.id])
        #expect(b.events.allSatisfy { !["order_created", "order_fill", "dca_executed", "position_created", "cash_changed", "transfer_complete", "quote_updated"].contains($0) })

        // Deleting the schedule: 204, then 404.
        #expect(try await h.investing("/api/v1/dca/schedules/\(s.id)", method: .DELETE, token: token).status == 204)
        #expect(try await h.investing("/api/v1/dca/schedules/\(s.id)", method: .DELETE, token: token).status == 404)
        #expect(try await h.investing("/api/v1/dca/schedules/\(s.id)", method: .DELETE, token: other).status == 404)
    }

    @Test("withdrawals: more than the free cash is a 400 at once; otherwise PENDING (202), settled after the next bar's DCA executions: transfer_failed with the reason when the cash no longer covers it, else transfer_complete, cash_changed and buying_power_changed")
    func withdrawals() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys)
        defer { Task { try? await h.stop() } }
        let token = try await keys.token("user-a")
        _ = try await h.signIn(token)
        let a = h.socket(token)
        defer { a.stop() }
        _ = try await a.next("system")
        func transfer(_ direction: String, _ amount: String) async throws -> ServerHarness.Reply {
            try await h.investing("/api/v1/transfers", method: .POST, token: token,
                                  body: #"{"direction":"\#(direction)","amount":"\#(amount)","currency":"GBP"}"#)
        }
        #expect(try await transfer("INCOMING", "1000").status == 201)
        let refused = try await transfer("OUTGOING", "1000.01")
        #expect(refused.status == 400 && refused.body.contains("insufficient cash: 1000.00 GBP can be withdrawn"), "\(refused.body)")
        for (direction, amount) in [("SIDEWAYS", "1"), ("OUTGOING", "0"), ("OUTGOING", "-5"), ("OUTGOING", "ten")] {
            #expect(try await transfer(direction, amount).status == 400, "\(direction) \(amount)")
        }
        // A monthly schedule of 600 reserves its budget at the first bar; a withdrawal of 700 pending then fails.
        #expect(try await h.investing("/api/v1/dca/schedules", method: .POST, token: token,
                                      body: #"{"symbol":"TQQQ","amount_gbp":"600","every":"month","start":"2025-01-01"}"#).status == 201)
        let pending = try await transfer("OUTGOING", "700")
        #expect(pending.status == 202, "\(pending.body)")
        let p = try Growfolio.body(GTransfer.self, pending.body)
        #expect(p.status == "PENDING" && p.direction == .OUTGOING && p.amount.text == "700.00" && p.currency == "GBP")
        // The 700 pending leaves 300 to withdraw.
        #expect(try await transfer("OUTGOING", "300.01").status == 400)
        let bars = investingBars(start: 1_735_689_600, days: 2)
        #expect(try await h.ingest(bars[0]).status == 200)
        let created = try await a.next("order_created")
        // The order reserves its 600: the buying power falls to 400 before the withdrawal is settled.
        let reserved = try Growfolio.message(GBuyingPowerChanged.self, try await a.next("buying_power_changed", from: created.index).text)
        #expect(reserved.data.buying_power_gbp.text == "400.00")
        let failed = try await a.next("transfer_failed", from: created.index)
        let f = try Growfolio.message(GTransferFailed.self, failed.text)
        #expect(f.data.transfer_id == p.transfer_id && f.data.status == "FAILED" && f.data.amount.text == "700.00" && f.data.direction == .OUTGOING)
        #expect(f.data.reason.hasPrefix("insufficient cash: 400.00 GBP free at settlement"), "\(f.data.reason)")
        #expect(try Growfolio.body(GAccount.self, try await h.investing("/api/v1/account", token: token).body).cash_gbp.text == "1000.00")

        // 300 pending: the order fills at the next bar's open (spending its 600), then the withdrawal completes.
        let second = try Growfolio.body(GTransfer.self, try await transfer("OUTGOING", "300").body)
        let seen = a.count
        #expect(try await h.ingest(bars[1]).status == 200)
        let fill = try await a.next("order_fill", from: seen)
        let complete = try await a.next("transfer_complete", from: fill.index)
        let c = try Growfolio.message(GTransfer.self, complete.text)
        #expect(c.data.transfer_id == second.transfer_id && c.data.status == "COMPLETE" && c.data.direction == .OUTGOING)
        let cash = try await a.next("cash_changed", from: complete.index)
        #expect(try Growfolio.message(GCashChanged.self, cash.text).data.cash_gbp.text == "100.00")
        // buying_power_changed beside every cash change (and when a purchase reserves or frees its budget).
        let power = try Growfolio.message(GBuyingPowerChanged.self, try await a.next("buying_power_changed", from: cash.index).text)
        #expect(power.data.buying_power_gbp.text == "100.00" && power.data.fx_rate?.text == "1.250000" && power.data.buying_power_usd?.text == "125.00")
        let account = try Growfolio.body(GAccount.self, try await h.investing("/api/v1/account", token: token).body)
        #expect(account.cash_gbp.text == "100.00" && account.buying_power_gbp.text == "100.00")
        #expect(a.events.filter { $0 == "transfer_failed" || $0 == "transfer_complete" }.count == 3)
    }

    @Test("DELETE /api/v1/positions/{symbol} (qty, percentage, or all): a market sale filled at the symbol's next bar by SellFill — order_created → order_fill (sell) → position_updated or position_closed → cash_changed; REST agrees")
    func closePosition() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys)
        defer { Task { try? await h.stop() } }
        let token = try await keys.token("user-a"), other = try await keys.token("user-b")
        _ = try await h.signIn(token)
        _ = try await h.signIn(other)
        let a = h.socket(token)
        defer { a.stop() }
        _ = try await a.next("system")
        #expect(try await h.investing("/api/v1/transfers", method: .POST, token: token,
                                      body: #"{"direction":"INCOMING","amount":"1000","currency":"GBP"}"#).status == 201)
        #expect(try await h.investing("/api/v1/dca/schedules", method: .POST, token: token,
                                      body: #"{"symbol":"TQQQ","amount_gbp":"100","every":"month","start":"2025-01-01"}"#).status == 201)
        let bars = investingBars(start: 1_735_689_600, days: 4)
        for step in bars[0..<2] { #expect(try await h.ingest(step).status == 200) }
        _ = try Growfolio.message(GPosition.self, try await a.next("position_created").text)
        // The exact figures (the wire rounds them).
        let (held, cashBefore) = try #require(h.server.investing?.withBrokerage { ($0.positions("user-a")[0].quantity, $0.cashGBP("user-a")) })

        func close(_ query: String, as user: String) async throws -> ServerHarness.Reply {
            try await h.investing("/api/v1/positions/TQQQ\(query)", method: .DELETE, token: user)
        }
        for query in ["?qty=abc", "?qty=-1", "?qty=0", "?qty=1&percentage=5", "?percentage=101", "?percentage=0", "?qty=\(held * 2)"] {
            let r = try await close(query, as: token)
            #expect(r.status == 400, "\(query): \(r.status) \(r.body)")
        }
        #expect(try await h.investing("/api/v1/positions/MSFT", method: .DELETE, token: token).status == 404)
        #expect(try await close("", as: other).status == 404)

        // Half of it: filled at the third bar's open (50 × 1.02 USD) at 1.25, commission 0.1 %.
        let half = try await close("?percentage=50", as: token)
        #expect(half.status == 200, "\(half.body)")
        let order = try Growfolio.body(GRestOrder.self, half.body)
        #expect(order.side == .sell && order.status == "new" && order.filled_qty.text == "0.00000000" && order.dca_schedule_id == nil)
        let buy = try await a.next("order_created")
        let sellCreated = try Growfolio.message(GOrder.self, try await a.next("order_created", from: buy.index + 1).text)
        #expect(sellCreated.data.side == .sell && sellCreated.data.order_id == order.order_id && sellCreated.data.status == "new")
        let seen = a.count
        #expect(try await h.ingest(bars[2]).status == 200)
        let fill = try await a.next("order_fill", from: seen)
        let f = try Growfolio.message(GOrder.self, fill.text)
        let sale = SellFill.fill(quantity: held * 50 / 100, price: 50 * (1 + 0.01 * Double(2)) / 1.25, costs: TradingCosts(commissionRate: 0.001))
        #expect(f.data.side == .sell && f.data.status == "filled" && f.data.order_id == order.order_id && f.data.event == "fill")
        #expect(f.data.filled_qty.text == String(format: "%.8f", sale.quantity) && f.data.filled_price?.text == String(format: "%.4f", sale.fillPrice * 1.25))
        let updated = try Growfolio.message(GPosition.self, try await a.next("position_updated", from: fill.index).text)
        #expect(updated.data.quantity.text == String(format: "%.8f", held - sale.quantity))
        let cash = try Growfolio.message(GCashChanged.self, try await a.next("cash_changed", from: fill.index).text)
        #expect(cash.data.cash_gbp.text == String(format: "%.2f", cashBefore + sale.net))
        #expect(h.server.investing?.withBrokerage { $0.cashGBP("user-a") } == cashBefore + sale.net)

        // The rest (no query: all): closed at the fourth bar.
        #expect(try await close("", as: token).status == 200)
        #expect(try await close("", as: token).status == 400)  // a sale of the whole position is already pending
        let before = a.count
        #expect(try await h.ingest(bars[3]).status == 200)
        let last = try await a.next("order_fill", from: before)
        let closed = try Growfolio.message(GPosition.self, try await a.next("position_closed", from: last.index).text)
        #expect(closed.data.symbol == "TQQQ" && closed.data.quantity.text == "0.00000000")
        _ = try Growfolio.message(GCashChanged.self, try await a.next("cash_changed", from: last.index).text)
        #expect(try Growfolio.body(GPositions.self, try await h.investing("/api/v1/positions", token: token).body).positions.isEmpty)
        let orders = try Growfolio.body(GOrders.self, try await h.investing("/api/v1/orders", token: token).body).orders
        #expect(orders.map(\.side) == [.buy, .sell, .sell] && orders.allSatisfy { $0.status == "filled" })
        #expect(orders[1].amount_gbp.text == String(format: "%.2f", sale.net))
        #expect(try await close("", as: token).status == 404)  // nothing left
        let account = try Growfolio.body(GAccount.self, try await h.investing("/api/v1/account", token: token).body)
        #expect(account.cash_gbp.value > 900)
    }

    @Test("a schedule due without enough cash sends dca_failed with the reason; cash stays 0")
    func dcaFailed() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys)
        defer { Task { try? await h.stop() } }
        let token = try await keys.token("user-a")
        _ = try await h.signIn(token)
        let a = h.socket(token)
        defer { a.stop() }
        _ = try await a.next("system")
        #expect(try await h.investing("/api/v1/dca/schedules", method: .POST, token: token,
                                      body: #"{"symbol":"TQQQ","amount_gbp":25.5,"every":"week","start":"2025-01-01T00:00:00Z"}"#).status == 201)
        for step in investingBars(start: 1_735_689_600, days: 2) { _ = try await h.ingest(step) }
        let failed = try Growfolio.message(GDCAFailed.self, try await a.next("dca_failed").text)
        #expect(failed.data.reason.hasPrefix("insufficient cash") && failed.data.amount_gbp.text == "25.50")
        let account = try Growfolio.body(GAccount.self, try await h.investing("/api/v1/account", token: token).body)
        #expect(account.cash_gbp.text == "0.00")
        #expect(try Growfolio.body(GOrders.self, try await h.investing("/api/v1/orders", token: token).body).orders.isEmpty)
        for body in [#"{"symbol":"TQQQ","amount_gbp":"-1","every":"week"}"#, #"{"symbol":"TQQQ","amount_gbp":"1","every":"day"}"#,
                     #"{"symbol":"TQQQ","amount_gbp":"1","every":"week","start":"soon"}"#, #"{"symbol":"TQQQ"}"#] {
            #expect(try await h.investing("/api/v1/dca/schedules", method: .POST, token: token, body: body).status == 400, "\(body)")
        }
    }

    @Test("client messages: malformed → error and the socket stays; quotes without symbols → error; unknown channel → error; refresh_token → token_refreshed or 'Token refresh failed: …'; unsubscribe → ack")
    func clientMessages() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys)
        defer { Task { try? await h.stop() } }
        let token = try await keys.token("user-a")
        _ = try await h.signIn(token)
        let a = h.socket(token)
        defer { a.stop() }
        _ = try await a.next("system")
        var seen = a.count
        for bad in ["not json", #"{"channels":["quotes"]}"#, #"{"type":"subscribe","channels":"quotes"}"#, #"{"type":"dance"}"#,
                    #"{"type":"subscribe","channels":["quotes"]}"#, #"{"type":"subscribe","channels":["nope"]}"#, #"{"type":"refresh_token"}"#] {
            a.send(bad)
            let e = try await a.next("error", from: seen)
            _ = try Growfolio.message(GError.self, e.text)
            seen = e.index + 1
        }
        a.send(#"{"type":"refresh_token","token":"garbage"}"#)
        let failed = try Growfolio.message(GError.self, try await a.next("error", from: seen).text)
        #expect(failed.data.error.hasPrefix("Token refresh failed: "))
        seen = a.count
        a.send(#"{"type":"refresh_token","token":"\#(try await keys.token("user-b"))"}"#)
        let otherUser = try await a.next("error", from: seen)
        #expect(try Growfolio.message(GError.self, otherUser.text).data.error == "Token refresh failed: the token is for another user")
        let fresh = try await keys.token("user-a", expiresIn: 7_200)
        a.send(#"{"type":"refresh_token","token":"\#(fresh)"}"#)
        let refreshed = try Growfolio.message(GTokenRefreshed.self, try await a.next("token_refreshed").text)
        #expect(abs(refreshed.data.expires_at.epochSeconds - (Date().timeIntervalSince1970 + 7_200)) < 30)
        a.send(#"{"type":"subscribe","channels":["quotes"],"symbols":["AAPL","MSFT"]}"#)
        let sub = try await a.next("ack", from: otherUser.index)
        a.send(#"{"type":"unsubscribe","channels":["quotes"],"symbols":["AAPL"]}"#)
        let unsub = try Growfolio.message(GAck.self, try await a.next("ack", from: sub.index + 1).text)
        #expect(unsub.data.action == .unsubscribed && unsub.data.channels == ["quotes"])
        #expect(a.closeCode == nil && !a.finished.withLockedValue { $0 })
    }

    @Test("close codes: 4001 missing or invalid token, 4003 unknown user, 4005 over --ws-max-connections, 4002 after token_expiring, 1008 without pong, 4006 after server_shutdown")
    func closeCodes() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys) {
            $0.maxConnections = 2
            $0.heartbeatSeconds = 1
            // A pong may come late on a loaded machine (the whole suite runs at once): 8 s of grace keeps a client
            // that answers connected; the silent one is closed after 1 + 8 s.
            $0.pongGraceSeconds = 8
        }
        let token = try await keys.token("user-a")
        _ = try await h.signIn(token)
        #expect(try await h.socket(nil).waitUntilClosed("no token") == 4001)
        #expect(try await h.socket("garbage").waitUntilClosed("garbage") == 4001)
        #expect(try await h.socket(try await keys.token("user-a", expiresIn: -120)).waitUntilClosed("expired") == 4001)
        #expect(try await h.socket(try await keys.token("stranger")).waitUntilClosed("stranger") == 4003)

        // Expiry: token_expiring once (≤ 60 s left), then 4002 at exp.
        let expiring = h.socket(try await keys.token("user-a", expiresIn: 3))
        let warning = try Growfolio.message(GTokenExpiring.self, try await expiring.next("token_expiring").text)
        #expect(warning.data.expires_in_seconds <= 3 && warning.data.expires_in_seconds >= 0)
        #expect(try await expiring.waitUntilClosed("expiring") == 4002)
        #expect(expiring.events.filter { $0 == "token_expiring" }.count == 1)

        // No pong: closed after the interval plus the grace; a client answering heartbeats stays.
        let silent = h.socket(token, answersHeartbeats: false), polite = h.socket(token)
        _ = try Growfolio.message(GHeartbeat.self, try await silent.next("heartbeat").text)
        #expect(try await silent.waitUntilClosed("silent") == 1008)
        _ = try await polite.next("heartbeat")
        try await pollUntil("the silent client still counts", seconds: 20) { h.server.investing?.hub.connectionCount == 1 }
        // Two clients now (polite and a second one); a third is refused with 4005.
        let second = h.socket(token)
        _ = try await second.next("system")
        #expect(try await h.socket(token).waitUntilClosed("third") == 4005)
        #expect(polite.closeCode == nil)

        await h.server.shutdown()
        try await h.runTask.value
        _ = try Growfolio.message(GServerShutdown.self, try await polite.next("server_shutdown").text)
        #expect(try await polite.waitUntilClosed("polite") == 4006)
        #expect(try await second.waitUntilClosed("second") == 4006)
    }
}

@Suite("sentio serve: the investing app, played by a third-party client (Python websockets)", .serialized)
struct InvestingThirdPartyClientTests {
    @Test("growfolio_flow.py: sign in, welcome, quotes, heartbeats, refresh, a DCA execution; close codes 4001, 4003, 4005, 4002, 1008 and 4006")
    func pythonFlow() async throws {
        let keys = try await AppleTestKeys.make()
        let h = try await investingHarness(keys: keys) {
            $0.heartbeatSeconds = 1
            // A pong may come late on a loaded machine (the whole suite runs at once): 8 s of grace keeps a client
            // that answers connected; the silent one is closed after 1 + 8 s.
            $0.pongGraceSeconds = 8
            $0.maxConnections = 2
        }
        let output = NIOLockedValueBox("")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            repositoryRoot.appendingPathComponent("Tests/SentioServerTests/growfolio-flow.sh").path, h.base, ServerHarness.ingestToken,
            fixturePath("investing/apple-test-key.pem"), AppleTestKeys.audience,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The venv may be made first (pip): a generous bound, a hang guard only.
        try await pollUntil("the client never got to the shutdown step: \(output.withLockedValue { $0 })", seconds: 600,
                            failFast: { process.isRunning ? nil : "the client exited" }) {
            output.withLockedValue { $0 }.contains("awaiting shutdown")
        }
        await h.server.shutdown()
        try await h.runTask.value
        try await pollUntil("the client did not finish", seconds: 120) { !process.isRunning }
        pipe.fileHandleForReading.readabilityHandler = nil
        let text = output.withLockedValue { $0 } + String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains(" passed, 0 failed"), "\(text)")
    }
}
