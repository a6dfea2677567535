import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdWebSocket
import NIOConcurrencyHelpers
import NIOCore
import SentioAPI
import SentioLive
import SentioStore

// The investing app (Growfolio): Apple sign-in, the paper account, DCA schedules and the real-time WebSocket.
// Routes thin: parse, call the InvestingService (the paper brokerage, off the event loop), encode.

/// The request context of the investing app's authenticated routes: the Apple identity of the request's bearer
/// token, set by the core's one `BearerAuthenticator`.
struct InvestingContext: ChildRequestContext, AuthRequestContext {
    typealias ParentContext = ServerContext
    var coreContext: CoreRequestContextStorage
    var identity: AppleIdentity?

    init(context: ServerContext) throws {
        coreContext = context.coreContext
        identity = nil
    }
}

extension InvestingService: BearerTokenVerifier {
    func identity(ofBearer token: String) async throws -> AppleIdentity {
        do { return try await verifier.verify(token) } catch let e as AppleTokenError {
            throw ServerError(status: .unauthorized, message: "invalid identity token: \(e.description)", headers: [.wwwAuthenticate: "Bearer"])
        }
    }
}

extension SentioHTTPServer {
    /// Adds the investing app's routes: `POST /api/v1/auth/token`, `GET /api/v1/account`, `/api/v1/positions`,
    /// `DELETE /api/v1/positions/{symbol}`, `/api/v1/orders`, `POST /api/v1/transfers`, `GET|POST /api/v1/dca/schedules`,
    /// `DELETE /api/v1/dca/schedules/{id}` and the WebSocket `/api/v1/ws`. Without an ``InvestingService`` (no
    /// `--apple-jwks`) they answer 503.
    func addInvestingRoutes(to routes: RouteTable) {
        let investing = self.investing, maxBody = options.maxBody
        let api = routes.group("api/v1")
        @Sendable func service() throws -> InvestingService {
            guard let investing else {
                throw ServerError(status: .serviceUnavailable, message: "the investing app is off: start the server with --apple-jwks FILE and --apple-audience ID")
            }
            return investing
        }
        @Sendable func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            do { return try await Self.offload(work) } catch let e as PaperBrokerageError {
                throw ServerError(status: e.kind == .notFound ? .notFound : .badRequest, message: e.description)
            }
        }

        api.post("auth/token") { request, _ in
            let investing = try service()
            let body = try await Self.jsonBody(request, as: AuthTokenRequest.self, maxBody: maxBody)
            let identity = try await investing.identity(ofBearer: body.identityToken)
            let now = Int64(Date().timeIntervalSince1970)
            let (investor, _) = try await offload {
                try investing.withBrokerage {
                    try $0.signIn(id: identity.userID, email: identity.email, firstName: body.userFirstName, lastName: body.userLastName, now: now)
                }
            }
            return try Self.encoded(AuthTokenResponse(
                userID: investor.id, email: investor.email, name: Self.name(investor), alpacaAccountStatus: investor.status))
        }

        // The routes of signed-in investors: behind the one bearer authenticator, over the Apple verifier.
        let member: RouterGroup<InvestingContext>
        if let investing {
            member = api.group(context: InvestingContext.self).add(middleware: BearerAuthenticator<InvestingContext, InvestingService>(verifier: investing))
        } else {
            member = api.group(context: InvestingContext.self).add(middleware: InvestingOff())
        }
        @Sendable func investor(_ context: InvestingContext) throws -> (InvestingService, String) {
            let identity = try context.requireIdentity()
            let investing = try service()
            guard investing.withBrokerage({ $0.investor(identity.userID) }) != nil else {
                throw ServerError(status: .notFound, message: "user not found: sign in with POST /api/v1/auth/token first")
            }
            return (investing, identity.userID)
        }

        member.get("account") { _, context in
            let (investing, user) = try investor(context)
            let response = investing.withBrokerage { b -> InvestingAccountResponse in
                let cash = b.cashGBP(user), power = b.buyingPowerGBP(user), rate = b.latestRate
                func money(_ x: Double?) -> String? { x.map { String(format: "%.2f", $0) } }
                return InvestingAccountResponse(
                    accountID: user, status: b.investor(user)?.status ?? "ACTIVE", currency: "GBP", cashGBP: money(cash)!,
                    cashUSD: money(rate.map { cash * $0 }), buyingPowerGBP: money(power)!, buyingPowerUSD: money(rate.map { power * $0 }),
                    fxRate: rate.map { String(format: "%.6f", $0) })
            }
            return try Self.encoded(response)
        }
        member.get("positions") { _, context in
            let (investing, user) = try investor(context)
            let response = investing.withBrokerage { b in
                let rate = b.latestRate
                return InvestingPositionsResponse(positions: b.positions(user).map { p in
                    let value = p.lastPriceUSD.map { $0 * p.quantity }
                    return InvestingPosition(
                        symbol: p.symbol, quantity: String(format: "%.8f", p.quantity), costGBP: String(format: "%.2f", p.costGBP),
                        priceUSD: p.lastPriceUSD.map { String(format: "%.4f", $0) }, marketValueUSD: value.map { String(format: "%.2f", $0) },
                        marketValueGBP: value.flatMap { v in rate.map { String(format: "%.2f", v / $0) } })
                })
            }
            return try Self.encoded(response)
        }
        member.get("orders") { _, context in
            let (investing, user) = try investor(context)
            return try Self.encoded(InvestingOrdersResponse(orders: investing.withBrokerage { $0.orders(user) }.map(InvestingOrder.init)))
        }
        member.post("transfers") { request, context in
            let (investing, user) = try investor(context)
            let body = try await Self.jsonBody(request, as: TransferRequest.self, maxBody: maxBody)
            let now = Int64(Date().timeIntervalSince1970), id = UUID().uuidString.lowercased()
            let transfer = try await offload {
                try investing.perform {
                    try $0.transfer(userID: user, id: id, direction: body.direction, amount: body.amount.value, currency: body.currency, now: now)
                }
            }
            // A deposit is complete (201); a withdrawal is accepted, pending until the next bar (202).
            return try Self.encoded(TransferResponse(transfer), status: transfer.status == "PENDING" ? .accepted : .created)
        }
        // Alpaca's close position: a market sale of all (default), `qty` shares or `percentage` % of the position,
        // filled at the symbol's next bar.
        // (The parameter is `{id}` as in `/api/v1/symbols/{id}`: the route's metrics label; OpenAPI names it `symbol`.)
        member.delete("positions/{id}") { request, context in
            let (investing, user) = try investor(context)
            let symbol = try context.parameters.require("id").uppercased()
            func number(_ name: String) throws -> Double? {
                guard let text = request.uri.queryParameters.get(name) else { return nil }
                guard text.range(of: #"^[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil, let x = Double(text), x.isFinite else {
                    throw ServerError(status: .badRequest, message: "\(name): '\(text)' is not a positive decimal")
                }
                return x
            }
            let quantity = try number("qty"), percentage = try number("percentage")
            let now = Int64(Date().timeIntervalSince1970), id = UUID().uuidString.lowercased()
            let order = try await offload {
                try investing.perform {
                    try $0.closePosition(userID: user, id: id, symbol: symbol, quantity: quantity, percentage: percentage, now: now)
                }
            }
            return try Self.encoded(InvestingOrder(order))
        }
        member.get("dca/schedules") { _, context in
            let (investing, user) = try investor(context)
            return try Self.encoded(SchedulesResponse(schedules: investing.withBrokerage { $0.schedules(user) }.map(ScheduleResponse.init)))
        }
        member.post("dca/schedules") { request, context in
            let (investing, user) = try investor(context)
            let body = try await Self.jsonBody(request, as: ScheduleRequest.self, maxBody: maxBody)
            let start = try body.start.map { text in
                guard let t = Self.parseStart(text) else {
                    throw ServerError(status: .badRequest, message: "start: '\(text)' is not a date (YYYY-MM-DD) or an ISO-8601 UTC time")
                }
                return t
            }
            let now = Int64(Date().timeIntervalSince1970), id = UUID().uuidString.lowercased()
            let schedule = try await offload {
                try investing.withBrokerage {
                    try $0.createSchedule(userID: user, id: id, symbol: body.symbol, amountGBP: body.amountGBP.value, every: body.every, start: start, now: now)
                }
            }
            return try Self.encoded(ScheduleResponse(schedule), status: .created)
        }
        member.delete("dca/schedules/{id}") { _, context in
            let (investing, user) = try investor(context)
            let id = try context.parameters.require("id")
            let found = try await offload {
                try investing.perform { b -> (Bool, [PaperEvent]) in
                    guard let events = try b.deleteSchedule(userID: user, id: id) else { return (false, []) }
                    return (true, events)
                }
            }
            guard found else { throw ServerError(status: .notFound, message: "no DCA schedule \(id)") }
            return Response(status: .noContent)
        }

        routes.ws("/api/v1/ws") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, context in
            guard let investing else {
                try await outbound.close(.init(codeNumber: 4001), reason: "the investing app is off")
                return
            }
            try await InvestingSocket(service: investing, outbound: outbound, channel: context.requestContext.channel)
                .run(inbound: inbound, token: context.request.uri.queryParameters.get("token"))
        }
    }

    /// "First Last" from the first sign-in, `nil` without one.
    static func name(_ investor: StoredInvestor) -> String? {
        let parts = [investor.firstName, investor.lastName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// `YYYY-MM-DD` (midnight UTC) or an ISO-8601 time with a zone (`2024-01-01T12:00:00Z`).
    static func parseStart(_ text: String) -> Int64? {
        let iso = ISO8601DateFormatter()
        if let d = iso.date(from: text) { return Int64(d.timeIntervalSince1970) }
        iso.formatOptions = [.withFullDate]
        if text.count == 10, let d = iso.date(from: text) { return Int64(d.timeIntervalSince1970) }
        return nil
    }
}

/// The investing routes when the app is off: 503.
struct InvestingOff: RouterMiddleware {
    typealias Context = InvestingContext
    func handle(_ request: Request, context: InvestingContext, next: (Request, InvestingContext) async throws -> Response) async throws -> Response {
        throw ServerError(status: .serviceUnavailable, message: "the investing app is off: start the server with --apple-jwks FILE and --apple-audience ID")
    }
}
