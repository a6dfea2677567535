import Foundation
import HTTPTypes
import Hummingbird
import SentioCore
import SentioSavings
import SentioStore

// The family allowance app's routes: thin (parse, call AllowanceService off the event loop, encode with
// SentioSavings' `SavingsJSON`).

extension SentioHTTPServer {
    /// Adds the allowance app's routes under `/api/v1`: accounts (`auth/register`, `auth/login`, `children`,
    /// `families/current`), the ledger (`transactions`, `transactions/children/{id}`, `transactions/categories`,
    /// `children/{id}/pay-allowance`), dashboards, analytics and goals; and its SignalR hub (`/hubs/family`).
    func addAllowanceRoutes(to routes: RouteTable) {
        let allowance = self.allowance, maxBody = options.maxBody
        let accounts = AccountsHTTP(accounts: self.accounts)
        @Sendable func run<T: Sendable>(_ work: @escaping @Sendable (AllowanceService) throws -> T) async throws -> T {
            guard let allowance else {
                throw ServerError(status: .serviceUnavailable, message: "the allowance app is off: no account store is configured")
            }
            do { return try await Self.offload { try work(allowance) } } catch { throw Self.allowanceError(error) }
        }
        /// Runs `work` for the request's family member.
        @Sendable func asMember<T: Sendable>(_ context: ServerContext, _ work: @escaping @Sendable (AllowanceService, AllowanceService.Member) throws -> T) async throws -> T {
            let user = try context.requireIdentity()
            return try await run { s in try work(s, try s.member(user)) }
        }
        /// A query parameter's value; an empty value is a value (a bad date, period or number is then 400).
        @Sendable func query(_ request: Request, _ name: String) -> String? {
            request.uri.queryParameters.get(name).map { String($0) }
        }
        @Sendable func intQuery(_ request: Request, _ name: String, default value: Int) throws -> Int {
            guard let text = query(request, name) else { return value }
            guard let n = Int(text) else { throw ServerError(status: .badRequest, message: "query parameter '\(name)': '\(text)' is not an integer") }
            return n
        }
        @Sendable func dateQuery(_ request: Request, _ name: String) throws -> CivilDate? {
            guard let text = query(request, name) else { return nil }
            guard let d = CivilDate(iso: text) ?? APITimestampText.date(text) else {
                throw ServerError(status: .badRequest, message: "query parameter '\(name)': '\(text)' is not a date YYYY-MM-DD")
            }
            return d
        }

        addFamilyHubRoutes(to: routes)
        let api = routes.group("api/v1")
        let member = api.group().add(middleware: AccountAuthenticator(accounts: accounts))

        // Accounts.
        api.post("auth/register") { request, _ in
            let body = try await Self.jsonBody(request, as: FamilyRegisterRequest.self, maxBody: maxBody)
            return Self.saved(try await run { try $0.register(body) }, status: .created)
        }
        api.post("auth/login") { request, context in
            let body = try await Self.jsonBody(request, as: LoginRequest.self, maxBody: maxBody)
            let ip = context.remoteAddress?.ipAddress ?? "unknown"
            return Self.saved(try await run { try $0.login(email: body.email, password: body.password, client: ip) })
        }
        member.post("children") { request, context in
            let body = try await Self.jsonBody(request, as: ChildRequest.self, maxBody: maxBody)
            return Self.saved(try await asMember(context) { s, m in try s.addChild(m, body) }, status: .created)
        }
        member.get("families/current") { _, context in
            Self.saved(try await asMember(context) { s, m in try s.family(m) })
        }

        // Ledger.
        member.post("transactions") { request, context in
            let body = try await Self.jsonBody(request, as: TransactionRequest.self, maxBody: maxBody)
            let key = request.headers[HTTPField.Name("Idempotency-Key")!]
            let (tx, created) = try await asMember(context) { s, m in try s.createTransaction(m, body, idempotencyKey: key) }
            return jsonResponse(.created, SavingsJSON.encode(tx), headers: created ? [:] : [HTTPField.Name("Idempotent-Replayed")!: "true"])
        }
        member.get("transactions/categories") { _, context in
            _ = try await asMember(context) { _, m in m.familyID }
            return Self.saved(CategoriesResponse(categories: AllowanceService.categories))
        }
        // `{id}`: the pattern is the metrics label; the OpenAPI document calls it `{childId}`.
        member.get("transactions/children/{id}") { request, context in
            let childID = try context.parameters.require("id")
            let page = try intQuery(request, "page", default: 1), size = try intQuery(request, "pageSize", default: 20)
            let category = query(request, "category")
            return Self.saved(try await asMember(context) { s, m in
                try s.transactions(m, childID: childID, page: page, pageSize: size, category: category)
            })
        }
        member.post("children/{id}/pay-allowance") { _, context in
            let childID = try context.parameters.require("id")
            let (tx, created) = try await asMember(context) { s, m in try s.payAllowance(m, childID: childID) }
            return Self.saved(tx, status: created ? .created : .ok)
        }

        // Dashboards and analytics.
        member.get("dashboard/parent") { _, context in
            Self.saved(try await asMember(context) { s, m in try s.parentDashboard(m) })
        }
        member.get("dashboard/child") { request, context in
            let childID = query(request, "childId")
            return Self.saved(try await asMember(context) { s, m in try s.childDashboard(m, childID: childID) })
        }
        member.get("analytics/spending") { request, context in
            let childID = query(request, "childId")
            let from = try dateQuery(request, "from"), to = try dateQuery(request, "to")
            let periodText = query(request, "period") ?? "month"
            guard let period = AnalyticsPeriod(rawValue: periodText) else {
                throw ServerError(status: .badRequest, message: "query parameter 'period': '\(periodText)' is not week or month")
            }
            return Self.saved(try await asMember(context) { s, m in try s.analytics(m, childID: childID, from: from, to: to, period: period) })
        }

        // Goals.
        member.get("goals") { request, context in
            let childID = query(request, "childId")
            return Self.saved(try await asMember(context) { s, m in try s.goals(m, childID: childID) })
        }
        member.post("goals") { request, context in
            let body = try await Self.jsonBody(request, as: GoalRequest.self, maxBody: maxBody)
            return Self.saved(try await asMember(context) { s, m in try s.addGoal(m, body) }, status: .created)
        }
        member.put("goals/{id}/progress") { request, context in
            let goalID = try context.parameters.require("id")
            let body = try await Self.jsonBody(request, as: GoalProgressRequest.self, maxBody: maxBody)
            return Self.saved(try await asMember(context) { s, m in try s.setGoalProgress(m, goalID: goalID, body) })
        }
    }

    /// A JSON answer written by SentioSavings' `SavingsJSON` (money with two decimals, explicit `null`s).
    static func saved(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        jsonResponse(status, SavingsJSON.encode(value))
    }

    /// An allowance or account error as its HTTP answer (an insufficient-funds refusal carries the balance).
    static func allowanceError(_ error: any Error) -> any Error {
        guard let e = error as? AllowanceError else { return AccountsHTTP.serverError(error) }
        switch e {
        case .notFound(let s): return ServerError(status: .notFound, message: s)
        case .invalid(let s): return ServerError(status: .badRequest, message: s)
        case .forbidden(let s): return ServerError(status: .forbidden, message: s)
        case .insufficientFunds(let balance):
            return ServerError(
                status: .badRequest, message: "Insufficient funds",
                body: SavingsJSON.encode(InsufficientFundsBody(error: "Insufficient funds", balance: balance)))
        }
    }
}

/// A date query parameter also accepted as a whole instant `YYYY-MM-DDTHH:MM:SSZ` (its UTC date).
enum APITimestampText {
    static func date(_ text: String) -> CivilDate? { epochSeconds(iso8601: text).map { CivilDate(epochSeconds: $0) } }
}
