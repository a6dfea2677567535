import AsyncHTTPClient
import Foundation
import NIOCore
import SentioContractDecoders
import SentioCore
import SentioSavings
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// The allowance app's calls through HTTP, each answer decoded by the spec's models (`AllowanceSpec`).
struct AllowanceClient: Sendable {
    let h: ServerHarness

    func register(_ email: String, family: String = "Rivera", first: String = "Ana", last: String = "Rivera") async throws -> AllowanceSpecAuthResponse {
        let r = try await h.request("/api/v1/auth/register", method: .POST, body: """
            {"email":"\(email)","password":"correct horse battery","firstName":"\(first)","lastName":"\(last)","familyName":"\(family)"}
            """)
        guard r.status == 201 else { throw HarnessError("register \(email): \(r.status) \(r.body)") }
        return try AllowanceSpec.decode(AllowanceSpecAuthResponse.self, r.body)
    }

    func login(_ email: String, password: String = "correct horse battery") async throws -> AllowanceSpecAuthResponse {
        let r = try await h.request("/api/v1/auth/login", method: .POST, body: #"{"email":"\#(email)","password":"\#(password)"}"#)
        guard r.status == 200 else { throw HarnessError("login \(email): \(r.status) \(r.body)") }
        return try AllowanceSpec.decode(AllowanceSpecAuthResponse.self, r.body)
    }

    func addChild(_ token: String, _ email: String, first: String = "Leo", allowance: String = "5.00", day: String = "Saturday") async throws -> AllowanceSpecChild {
        let r = try await h.request("/api/v1/children", method: .POST, headers: bearer(token), body: """
            {"firstName":"\(first)","lastName":"Rivera","email":"\(email)","password":"correct horse battery","weeklyAllowance":\(allowance),"allowanceDay":"\(day)"}
            """)
        guard r.status == 201 else { throw HarnessError("add child \(email): \(r.status) \(r.body)") }
        return try AllowanceSpec.decode(AllowanceSpecChild.self, r.body)
    }

    func transaction(_ token: String, child: UUID, amount: String, type: String, category: String = "Toys", key: String? = nil) async throws -> ServerHarness.Reply {
        var headers = bearer(token)
        if let key { headers.append(("Idempotency-Key", key)) }
        return try await h.request("/api/v1/transactions", method: .POST, headers: headers, body: """
            {"childId":"\(child.uuidString)","amount":\(amount),"type":"\(type)","description":"\(type) \(amount)","category":"\(category)"}
            """)
    }

    /// Two families: A (a parent, children a1 and a2) and B (a parent, child b1), and a1's token.
    func twoFamilies(allowance: String = "5.00") async throws -> (
        a: AllowanceSpecAuthResponse, b: AllowanceSpecAuthResponse, a1: AllowanceSpecChild, a2: AllowanceSpecChild,
        b1: AllowanceSpecChild, a1Token: String
    ) {
        let a = try await register("a@example.com", family: "A")
        let b = try await register("b@example.com", family: "B")
        let a1 = try await addChild(a.token, "a1@example.com", allowance: allowance)
        let a2 = try await addChild(a.token, "a2@example.com")
        let b1 = try await addChild(b.token, "b1@example.com")
        return (a, b, a1, a2, b1, try await login("a1@example.com").token)
    }

    func get<T: Decodable>(_ path: String, _ token: String, as: T.Type) async throws -> T {
        let r = try await h.request(path, headers: bearer(token))
        guard r.status == 200 else { throw HarnessError("GET \(path): \(r.status) \(r.body)") }
        return try AllowanceSpec.decode(T.self, r.body)
    }
}

func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

/// Blocking work off the test's task, on a thread of its own (the service's methods block on SQLite and bcrypt).
enum SentioHTTPServerOffload {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}

@Suite("Allowance app: accounts, ledger, dashboards, goals, analytics, weekly allowance", .serialized)
struct AllowanceTests {
    @Test("register → add child → transactions → dashboards → goals → analytics, every answer decoded by the spec's models")
    func fullFlow() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)

        let parent = try await app.register("Ana@Example.com", family: "Rivera")
        #expect(parent.role == .parent && parent.email == "ana@example.com" && parent.familyName == "Rivera")
        #expect(parent.familyId != nil)
        #expect(abs(parent.expiresAt.timeIntervalSince(h.clock.withLockedValue { $0 }) - 30 * 86_400) <= 1)
        let login = try await app.login("ana@example.com")
        #expect(login.userId == parent.userId && login.familyId == parent.familyId && login.role == .parent)
        let token = login.token

        let leo = try await app.addChild(token, "leo@example.com", first: "Leo", allowance: "5.00")
        #expect(leo.currentBalance == 0 && leo.weeklyAllowance == 5 && leo.lastAllowanceDate == nil && leo.nextAllowanceDate != nil)
        let mia = try await app.addChild(token, "mia@example.com", first: "Mia", allowance: "7.50", day: "monday")

        let family = try await app.get("/api/v1/families/current", token, as: AllowanceSpecFamily.self)
        #expect(family.id == parent.familyId && family.name == "Rivera" && family.memberCount == 3 && family.childrenCount == 2)

        // Ledger: credits, a debit, one beyond the balance (refused with the balance).
        var r = try await app.transaction(token, child: leo.childId, amount: "20.00", type: "Credit", category: "Gift")
        #expect(r.status == 201, "\(r.body)")
        let first = try AllowanceSpec.decode(AllowanceSpecTransaction.self, r.body)
        #expect(first.amount == 20 && first.balanceAfter == 20 && first.type == .credit && first.createdBy == parent.userId
            && first.createdByName == "Ana Rivera" && first.category == "Gift" && first.childId == leo.childId)
        r = try await app.transaction(token, child: leo.childId, amount: "7.35", type: "Debit", category: "Toys")
        #expect(r.status == 201)
        #expect(try AllowanceSpec.decode(AllowanceSpecTransaction.self, r.body).balanceAfter == decimal("12.65"))
        r = try await app.transaction(token, child: leo.childId, amount: "0.10", type: "Debit", category: "Food")
        #expect(r.status == 201)
        r = try await app.transaction(token, child: leo.childId, amount: "12.56", type: "Debit")
        #expect(r.status == 400)
        let refused = try AllowanceSpec.decode(AllowanceSpecInsufficientFunds.self, r.body)
        #expect(refused.error == "Insufficient funds" && refused.balance == decimal("12.55"))
        #expect(r.body.contains("12.55"))
        r = try await app.transaction(token, child: mia.childId, amount: "3", type: "Credit", category: "Chores")
        #expect(r.status == 201)
        // Bad amounts and types are 400.
        for (amount, type) in [("0", "Debit"), ("-1", "Credit"), ("1.005", "Credit"), ("1", "Refund")] {
            #expect(try await app.transaction(token, child: leo.childId, amount: amount, type: type).status == 400)
        }
        #expect(try await app.transaction(token, child: leo.childId, amount: "1", type: "Credit", category: "Allowance").status == 400)

        // History: newest first, balanceAfter on each row, pages, category filter.
        let page = try await app.get("/api/v1/transactions/children/\(leo.childId.uuidString)?page=1&pageSize=2", token, as: AllowanceSpecPage.self)
        #expect(page.totalCount == 3 && page.totalPages == 2 && page.page == 1 && page.pageSize == 2)
        #expect(page.items.map(\.balanceAfter) == [decimal("12.55"), decimal("12.65")])
        let page2 = try await app.get("/api/v1/transactions/children/\(leo.childId.uuidString)?page=2&pageSize=2", token, as: AllowanceSpecPage.self)
        #expect(page2.items.map(\.id) == [first.id])
        let toys = try await app.get("/api/v1/transactions/children/\(leo.childId.uuidString)?category=toys", token, as: AllowanceSpecPage.self)
        #expect(toys.items.map(\.amount) == [decimal("7.35")] && toys.totalCount == 1)
        let defaults = try await app.get("/api/v1/transactions/children/\(leo.childId.uuidString)", token, as: AllowanceSpecPage.self)
        #expect(defaults.pageSize == 20 && defaults.items.count == 3)

        // Dashboards.
        let board = try await app.get("/api/v1/dashboard/parent", token, as: AllowanceSpecParentDashboard.self)
        #expect(board.family == family)
        #expect(board.children.map(\.childId) == [leo.childId, mia.childId])
        #expect(board.children.map(\.currentBalance) == [decimal("12.55"), 3])
        #expect(board.totalBalance == decimal("15.55"))
        #expect(board.recentTransactions.count == 4 && board.recentTransactions.first?.childId == mia.childId)
        let leoLogin = try await app.login("leo@example.com")
        #expect(leoLogin.role == .child && leoLogin.familyId == parent.familyId && leoLogin.familyName == "Rivera")
        let own = try await app.get("/api/v1/dashboard/child", leoLogin.token, as: AllowanceSpecChildDashboard.self)
        #expect(own.child.childId == leo.childId && own.child.currentBalance == decimal("12.55"))
        #expect(own.recentTransactions.count == 3)
        let today = CivilDate(epochSeconds: Int64(h.clock.withLockedValue { $0 }.timeIntervalSince1970))
        #expect(own.monthly == AllowanceSpecMonthly(month: String(today.description.prefix(7)), earned: 20, spent: decimal("7.45"), net: decimal("12.55")))
        // Leo was added today: his first allowance is the first Saturday after today.
        let firstSaturday = AllowanceSchedule.nextDue(day: .saturday, after: today, today: today, paid: [])
        #expect(firstSaturday > today && firstSaturday.weekday == 5 && firstSaturday.daysSinceEpoch - today.daysSinceEpoch <= 7)
        #expect(Int64(own.nextAllowanceDate.timeIntervalSince1970) == firstSaturday.epochSeconds)
        #expect(own.daysUntilAllowance == firstSaturday.daysSinceEpoch - today.daysSinceEpoch)
        let asParent = try await app.get("/api/v1/dashboard/child?childId=\(leo.childId.uuidString)", token, as: AllowanceSpecChildDashboard.self)
        #expect(asParent.child == own.child && asParent.nextAllowanceDate == own.nextAllowanceDate)
        let categories = try await app.get("/api/v1/transactions/categories", token, as: AllowanceSpecCategories.self)
        #expect(categories.categories.contains("Allowance") && categories.categories.contains("Toys"))

        // Goals: the child sets one, sets money aside (at most the balance).
        r = try await h.request("/api/v1/goals", method: .POST, headers: bearer(leoLogin.token),
                                body: #"{"childId":"\#(leo.childId.uuidString)","name":"Bike","targetAmount":50}"#)
        #expect(r.status == 201, "\(r.body)")
        let goal = try AllowanceSpec.decode(AllowanceSpecGoal.self, r.body)
        #expect(goal.currentAmount == 0 && goal.targetAmount == 50 && goal.childId == leo.childId)
        r = try await h.request("/api/v1/goals/\(goal.id.uuidString)/progress", method: .PUT, headers: bearer(token), body: #"{"currentAmount":12.56}"#)
        #expect(r.status == 400, "more than the balance")
        r = try await h.request("/api/v1/goals/\(goal.id.uuidString)/progress", method: .PUT, headers: bearer(token), body: #"{"currentAmount":10}"#)
        #expect(r.status == 200, "\(r.body)")
        let progressed = try AllowanceSpec.decode(AllowanceSpecGoal.self, r.body)
        #expect(progressed.currentAmount == 10 && progressed.progressPercent == 20)
        // The rule of `sentio allowance`: all the rows are in the as-of week, so the rate is the net of week 1 (none
        // before today) → 0 → stalled, no date.
        #expect(progressed.status == "stalled" && progressed.estimatedCompletionDate == nil)
        let goals = try await app.get("/api/v1/goals?childId=\(leo.childId.uuidString)", leoLogin.token, as: AllowanceSpecGoals.self)
        #expect(goals.goals == [progressed])

        // Analytics (the app's three charts).
        let analytics = try await app.get("/api/v1/analytics/spending?childId=\(leo.childId.uuidString)&period=week", token, as: AllowanceSpecAnalytics.self)
        #expect(analytics.totalEarned == 20 && analytics.totalSpent == decimal("7.45"))
        #expect(analytics.spendingByCategory == [
            AllowanceSpecCategorySpending(category: "Toys", amount: decimal("7.35"), percentage: decimal("98.66")),
            AllowanceSpecCategorySpending(category: "Food", amount: decimal("0.10"), percentage: decimal("1.34")),
        ])
        #expect(analytics.earnedVsSpent.count == 1 && analytics.earnedVsSpent[0].net == decimal("12.55"))
        #expect(analytics.balanceOverTime == [AllowanceSpecBalancePoint(date: today.description, balance: decimal("12.55"))])
        let monthly = try await app.get("/api/v1/analytics/spending?childId=\(leo.childId.uuidString)&from=\(today.addingMonths(-2))&to=\(today)&period=month", token, as: AllowanceSpecAnalytics.self)
        #expect(monthly.earnedVsSpent.count == 3 && monthly.earnedVsSpent.map(\.spent) == [0, 0, decimal("7.45")])
        #expect(monthly.balanceOverTime.first == AllowanceSpecBalancePoint(date: today.addingMonths(-2).description, balance: 0))
        #expect(try await h.request("/api/v1/analytics/spending?childId=\(leo.childId.uuidString)&period=year", headers: bearer(token)).status == 400)

        // The balances are SentioSavings' over the stored rows.
        let stored = try h.database.allowanceTransactions(childID: leo.childId.uuidString.lowercased())
        #expect(stored.map(\.balanceAfterCents) == [2000, 1265, 1255])
    }

    @Test("auth matrix: missing and bad tokens 401, another family's children and goals 404, a child only themself, role refusals 403, login limits")
    func authMatrix() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let (a, b, a1, a2, b1, a1Token) = try await app.twoFamilies()
        #expect(try await app.transaction(a.token, child: a1.childId, amount: "10", type: "Credit").status == 201)
        let goalReply = try await h.request("/api/v1/goals", method: .POST, headers: bearer(a.token),
                                            body: #"{"childId":"\#(a1.childId.uuidString)","name":"Kite","targetAmount":20}"#)
        let goal = try AllowanceSpec.decode(AllowanceSpecGoal.self, goalReply.body)

        // No token, bad tokens.
        for headers in [[], bearer("not-a-jwt"), bearer(unsignedJWT(payload: #"{"sub":"\#(a.userId.uuidString.lowercased())","role":"USER","iat":0,"nbf":0,"exp":9999999999,"ver":0}"#)),
                        bearer(try await mintedAccessToken(sub: a.userId.uuidString.lowercased(), secret: "another-secret-0123456789abcdef-xx"))] {
            let r = try await h.request("/api/v1/dashboard/parent", headers: headers)
            #expect(r.status == 401, "\(headers)")
        }
        let expired = try await mintedAccessToken(sub: a.userId.uuidString.lowercased(), iat: Date().addingTimeInterval(-7200),
                                                  nbf: Date().addingTimeInterval(-7200), exp: Date().addingTimeInterval(-3600))
        #expect(try await h.request("/api/v1/families/current", headers: bearer(expired)).status == 401)
        // A portal account (no family) is no member: 404.
        try h.addAccount("lp@example.com")
        let lp = try await h.login("lp@example.com")
        #expect(try await h.request("/api/v1/families/current", headers: bearer(lp)).status == 404)
        // …and cannot log in to the allowance app (the same answer as a wrong password).
        let lpLogin = try await h.request("/api/v1/auth/login", method: .POST, body: #"{"email":"lp@example.com","password":"correct horse battery"}"#)
        #expect(lpLogin.status == 401)

        // Another family's child: 404 everywhere, never 403.
        let foreign = a1.childId.uuidString
        let paths = [
            "/api/v1/transactions/children/\(foreign)", "/api/v1/dashboard/child?childId=\(foreign)", "/api/v1/goals?childId=\(foreign)",
            "/api/v1/analytics/spending?childId=\(foreign)",
        ]
        for path in paths {
            #expect(try await h.request(path, headers: bearer(b.token)).status == 404, "\(path)")
        }
        #expect(try await app.transaction(b.token, child: a1.childId, amount: "1", type: "Credit").status == 404)
        #expect(try await h.request("/api/v1/children/\(foreign)/pay-allowance", method: .POST, headers: bearer(b.token)).status == 404)
        #expect(try await h.request("/api/v1/goals", method: .POST, headers: bearer(b.token),
                                    body: #"{"childId":"\#(foreign)","name":"X","targetAmount":1}"#).status == 404)
        #expect(try await h.request("/api/v1/goals/\(goal.id.uuidString)/progress", method: .PUT, headers: bearer(b.token),
                                    body: #"{"currentAmount":1}"#).status == 404)
        // An unknown child is the same 404.
        #expect(try await h.request("/api/v1/transactions/children/\(UUID().uuidString)", headers: bearer(b.token)).status == 404)

        // A child sees only themself: a sibling is 404, their own history 200; they create no transaction (403 on
        // their own account, 404 on a sibling's) and no goal for a sibling.
        let sibling = a2.childId.uuidString
        #expect(try await h.request("/api/v1/transactions/children/\(sibling)", headers: bearer(a1Token)).status == 404)
        #expect(try await h.request("/api/v1/dashboard/child?childId=\(sibling)", headers: bearer(a1Token)).status == 404)
        #expect(try await h.request("/api/v1/transactions/children/\(foreign)", headers: bearer(a1Token)).status == 200)
        #expect(try await app.transaction(a1Token, child: a1.childId, amount: "1", type: "Credit").status == 403)
        #expect(try await app.transaction(a1Token, child: a2.childId, amount: "1", type: "Credit").status == 404)
        #expect(try await h.request("/api/v1/goals", method: .POST, headers: bearer(a1Token),
                                    body: #"{"childId":"\#(sibling)","name":"X","targetAmount":1}"#).status == 404)
        #expect(try await h.request("/api/v1/dashboard/parent", headers: bearer(a1Token)).status == 403)
        #expect(try await app.transaction(a1Token, child: b1.childId, amount: "1", type: "Credit").status == 404)
        let childAdd = try await h.request("/api/v1/children", method: .POST, headers: bearer(a1Token), body: """
            {"firstName":"X","lastName":"Y","email":"x@example.com","password":"correct horse battery","weeklyAllowance":1}
            """)
        #expect(childAdd.status == 403)

        // Login: wrong password and unknown email give the same 401 body; 5 failures then 429.
        let wrong = try await h.request("/api/v1/auth/login", method: .POST, body: #"{"email":"a@example.com","password":"wrong password!"}"#)
        let unknown = try await h.request("/api/v1/auth/login", method: .POST, body: #"{"email":"nobody@example.com","password":"wrong password!"}"#)
        #expect(wrong.status == 401 && unknown.status == 401 && wrong.body == unknown.body)
        for _ in 0..<4 { _ = try await h.request("/api/v1/auth/login", method: .POST, body: #"{"email":"a@example.com","password":"wrong password!"}"#) }
        let limited = try await h.request("/api/v1/auth/login", method: .POST, body: #"{"email":"a@example.com","password":"correct horse battery"}"#)
        #expect(limited.status == 429 && limited.headers.first(name: "Retry-After") != nil)
        // Registration: a taken email is 409, a weak password 400.
        #expect(try await h.request("/api/v1/auth/register", method: .POST, body: """
            {"email":"a@example.com","password":"correct horse battery","firstName":"A","lastName":"B","familyName":"C"}
            """).status == 409)
        #expect(try await h.request("/api/v1/auth/register", method: .POST, body: """
            {"email":"new@example.com","password":"short","firstName":"A","lastName":"B","familyName":"C"}
            """).status == 400)
    }

    @Test("Idempotency-Key: a retried POST returns the first transaction and books once; another key books again")
    func idempotency() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let p = try await app.register("p@example.com")
        let c = try await app.addChild(p.token, "c@example.com")
        let r1 = try await app.transaction(p.token, child: c.childId, amount: "4.25", type: "Credit", key: "offline-1")
        let r2 = try await app.transaction(p.token, child: c.childId, amount: "4.25", type: "Credit", key: "offline-1")
        #expect(r1.status == 201 && r2.status == 201)
        let t1 = try AllowanceSpec.decode(AllowanceSpecTransaction.self, r1.body), t2 = try AllowanceSpec.decode(AllowanceSpecTransaction.self, r2.body)
        #expect(t1 == t2)
        #expect(r2.headers.first(name: "Idempotent-Replayed") == "true" && r1.headers.first(name: "Idempotent-Replayed") == nil)
        let r3 = try await app.transaction(p.token, child: c.childId, amount: "4.25", type: "Credit", key: "offline-2")
        #expect(try AllowanceSpec.decode(AllowanceSpecTransaction.self, r3.body).balanceAfter == decimal("8.50"))
        let page = try await app.get("/api/v1/transactions/children/\(c.childId.uuidString)", p.token, as: AllowanceSpecPage.self)
        #expect(page.totalCount == 2)
    }

    @Test("concurrent debits on one child never overdraw: of 24 racing debits of 1.00 on a balance of 10.00, exactly 10 are booked")
    func concurrentDebits() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let p = try await app.register("p@example.com")
        let c = try await app.addChild(p.token, "c@example.com")
        #expect(try await app.transaction(p.token, child: c.childId, amount: "10", type: "Credit").status == 201)
        let token = p.token, child = c.childId
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<24 { group.addTask { try await app.transaction(token, child: child, amount: "1.00", type: "Debit").status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 10)
        #expect(statuses.filter { $0 == 400 }.count == 14)
        let rows = try h.database.allowanceTransactions(childID: c.childId.uuidString.lowercased())
        #expect(rows.map(\.balanceAfterCents) == [1000] + (0..<10).reversed().map { Int64($0) * 100 })
        let board = try await app.get("/api/v1/dashboard/parent", p.token, as: AllowanceSpecParentDashboard.self)
        #expect(board.totalBalance == 0)
    }

    @Test("weekly allowance: catch-up after downtime pays each missed week once; pay-allowance is idempotent per week")
    func weeklyAllowance() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let p = try await app.register("p@example.com")
        let c = try await app.addChild(p.token, "c@example.com", allowance: "2.50", day: "Wednesday")
        let service = try #require(h.server.allowance)
        let start = CivilDate(epochSeconds: Int64(h.clock.withLockedValue { $0 }.timeIntervalSince1970))
        #expect(try service.payDueAllowances() == 0, "nothing due on the day the child is added")
        h.advance(25 * 86_400)  // 25 days down
        let today = CivilDate(daysSinceEpoch: start.daysSinceEpoch + 25)
        let due = (start.daysSinceEpoch + 1...today.daysSinceEpoch).filter { CivilDate(daysSinceEpoch: $0).weekday == 2 }
        #expect(due.count >= 3 && due.count <= 4)
        #expect(try service.payDueAllowances() == due.count)
        #expect(try service.payDueAllowances() == 0, "a second round pays nothing")
        let rows = try h.database.allowanceTransactions(childID: c.childId.uuidString.lowercased())
        #expect(rows.compactMap(\.allowanceWeek) == due.map(Int64.init))
        #expect(rows.allSatisfy { $0.category == "Allowance" && $0.amountCents == 250 && $0.createdBy == AllowanceService.serverAccount })
        let token = try await app.login("p@example.com").token
        let child = try await app.get("/api/v1/dashboard/child?childId=\(c.childId.uuidString)", token, as: AllowanceSpecChildDashboard.self)
        #expect(child.child.currentBalance == Decimal(due.count) * decimal("2.50"))
        #expect(child.child.lastAllowanceDate != nil)

        // The parent's "Pay weekly allowance": the coming Wednesday's week, once.
        let coming = AllowanceSchedule.week(paidOn: today, day: .wednesday)
        let paid = try await h.request("/api/v1/children/\(c.childId.uuidString)/pay-allowance", method: .POST, headers: bearer(token))
        let again = try await h.request("/api/v1/children/\(c.childId.uuidString)/pay-allowance", method: .POST, headers: bearer(token))
        if due.last == today.daysSinceEpoch {
            // Today is the allowance day and the round paid it: both answers are that payment.
            #expect(paid.status == 200 && again.status == 200)
        } else {
            #expect(paid.status == 201 && again.status == 200, "\(paid.body)")
        }
        #expect(try AllowanceSpec.decode(AllowanceSpecTransaction.self, paid.body) == (try AllowanceSpec.decode(AllowanceSpecTransaction.self, again.body)))
        // The next allowance is the week after the one paid early (the schedule knows the paid weeks).
        let after = try await app.get("/api/v1/dashboard/child?childId=\(c.childId.uuidString)", token, as: AllowanceSpecChildDashboard.self)
        let nextDue = CivilDate(daysSinceEpoch: coming.daysSinceEpoch + 7)
        #expect(Int64(after.nextAllowanceDate.timeIntervalSince1970) == nextDue.epochSeconds)
        #expect(after.daysUntilAllowance == nextDue.daysSinceEpoch - today.daysSinceEpoch)
        #expect(after.child.nextAllowanceDate == after.nextAllowanceDate)
        // The round does not pay the coming week again when its day arrives.
        h.advance(Double(coming.daysSinceEpoch - today.daysSinceEpoch) * 86_400 + 3600)
        #expect(try service.payDueAllowances() == 0)
        #expect(try h.database.allowanceTransactions(childID: c.childId.uuidString.lowercased()).compactMap(\.allowanceWeek).count == Set(due + [coming.daysSinceEpoch]).count)
    }

    @Test("racing pay-allowance clicks and allowance rounds pay a week exactly once")
    func racingAllowancePayments() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let p = try await app.register("p@example.com")
        let c = try await app.addChild(p.token, "c@example.com", allowance: "3.00", day: "Friday")
        let service = try #require(h.server.allowance)
        h.advance(15 * 86_400)  // two or three Fridays due
        let token = try await app.login("p@example.com").token, child = c.childId.uuidString
        let (statuses, rounds) = try await withThrowingTaskGroup(of: (Int?, Int?).self) { group in
            for k in 0..<16 {
                if k % 4 == 0 {
                    group.addTask { (nil, try await SentioHTTPServerOffload.run { try service.payDueAllowances() }) }
                } else {
                    group.addTask {
                        (try await h.request("/api/v1/children/\(child)/pay-allowance", method: .POST, headers: bearer(token)).status, nil)
                    }
                }
            }
            return try await group.reduce(into: ([Int](), [Int]())) { acc, r in
                if let s = r.0 { acc.0.append(s) }
                if let n = r.1 { acc.1.append(n) }
            }
        }
        let rows = try h.database.allowanceTransactions(childID: child.lowercased())
        let weeks = rows.compactMap(\.allowanceWeek)
        #expect(weeks.count == Set(weeks).count, "no week paid twice")
        let today = CivilDate(epochSeconds: Int64(h.clock.withLockedValue { $0 }.timeIntervalSince1970))
        let start = CivilDate(epochSeconds: try #require(try h.database.allowanceChild(id: child.lowercased())).child.createdAt)
        let due = AllowanceSchedule.dueDays(day: .friday, after: start, through: today).map { Int64($0.daysSinceEpoch) }
        let coming = Int64(AllowanceSchedule.week(paidOn: today, day: .friday).daysSinceEpoch)
        #expect(Set(weeks) == Set(due + [coming]))
        // Each payment was reported as new exactly once: by one click (201; the other clicks got it, 200) or one round.
        #expect(statuses.count == 12 && statuses.allSatisfy { $0 == 200 || $0 == 201 })
        #expect(statuses.filter { $0 == 201 }.count + rounds.reduce(0, +) == Set(due + [coming]).count)
        if !due.contains(coming) { #expect(statuses.filter { $0 == 201 }.count == 1) }
        #expect(rows.last?.balanceAfterCents == Int64(weeks.count) * 300)
    }

    @Test("seeded interleavings of credits, debits and allowance days never overdraw and match an integer-cents oracle", arguments: [11, 12, 13])
    func interleavingsMatchOracle(seed: Int) async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let p = try await app.register("p@example.com")
        let children = [
            try await app.addChild(p.token, "c1@example.com", allowance: "3.00", day: "Monday"),
            try await app.addChild(p.token, "c2@example.com", allowance: "0.75", day: "Friday"),
        ]
        let service = try #require(h.server.allowance)
        let parent = try service.member(try #require(try h.database.user(id: p.userId.uuidString.lowercased())))
        let created = CivilDate(epochSeconds: Int64(h.clock.withLockedValue { $0 }.timeIntervalSince1970))
        let weekly: [Int64] = [300, 75], days = [0, 4]
        var rng = SplitMix64(seed: UInt64(seed))
        var oracle: [Int64] = [0, 0]
        var paidWeeks: [Set<Int>] = [[], []]
        var elapsedDays = 0
        for _ in 0..<120 {
            let k = Int.random(in: 0...1, using: &rng)
            let id = children[k].childId.uuidString
            switch Int.random(in: 0...9, using: &rng) {
            case 0...3:
                let cents = Int64.random(in: 1...2_000, using: &rng)
                _ = try service.createTransaction(parent, TransactionRequest(
                    childId: id, amount: SavingsMoney.decimal(cents: cents), type: "Credit", description: "c", category: "Gift"), idempotencyKey: nil)
                oracle[k] += cents
            case 4...7:
                let cents = Int64.random(in: 1...2_500, using: &rng)
                do {
                    _ = try service.createTransaction(parent, TransactionRequest(
                        childId: id, amount: SavingsMoney.decimal(cents: cents), type: "Debit", description: "d", category: "Toys"), idempotencyKey: nil)
                    #expect(cents <= oracle[k], "a debit beyond the balance was booked")
                    oracle[k] -= cents
                } catch AllowanceError.insufficientFunds(let balance) {
                    #expect(cents > oracle[k], "a debit within the balance was refused")
                    #expect(balance == SavingsMoney.decimal(cents: oracle[k]))
                }
            default:
                // Time passes (0 to 9 days), then the allowance round runs (sometimes twice).
                let step = Int.random(in: 0...9, using: &rng)
                elapsedDays += step
                h.advance(Double(step) * 86_400)
                let today = created.daysSinceEpoch + elapsedDays
                for _ in 0..<Int.random(in: 1...2, using: &rng) { try service.payDueAllowances() }
                for j in 0..<2 {
                    for d in created.daysSinceEpoch + 1...max(created.daysSinceEpoch + 1, today) where d <= today
                        && CivilDate(daysSinceEpoch: d).weekday == days[j] && !paidWeeks[j].contains(d) {
                        paidWeeks[j].insert(d)
                        oracle[j] += weekly[j]
                    }
                }
            }
            for j in 0..<2 {
                let rows = try h.database.allowanceTransactions(childID: children[j].childId.uuidString.lowercased())
                #expect((rows.last?.balanceAfterCents ?? 0) == oracle[j])
            }
        }
        for j in 0..<2 {
            let rows = try h.database.allowanceTransactions(childID: children[j].childId.uuidString.lowercased())
            #expect(rows.allSatisfy { $0.balanceAfterCents >= 0 })
            // Every stored running balance is the oracle's replay of the stored rows in cents.
            var balance: Int64 = 0
            for row in rows {
                balance += row.type == "Credit" ? row.amountCents : -row.amountCents
                #expect(balance == row.balanceAfterCents && balance >= 0)
            }
            #expect(Set(rows.compactMap(\.allowanceWeek).map(Int.init)) == paidWeeks[j])
            #expect(rows.compactMap(\.allowanceWeek).count == paidWeeks[j].count, "each week paid once")
        }
    }

    @Test("without market data: the market endpoints answer 503 with the reason, the allowance app works")
    func withoutMarketData() async throws {
        let h = try await ServerHarness(marketData: false)
        defer { Task { try? await h.stop() } }
        for path in ["/api/v1/signals", "/api/v1/portfolio", "/api/v1/trades", "/api/v1/symbols/TQQQ"] {
            let r = try await h.request(path)
            #expect(r.status == 503, "\(path)")
            #expect(try jsonObject(r.body)["error"] as? String == NoMarketBackend().reason)
        }
        #expect(try await h.ingest(try sampleSteps()[0]).status == 503)
        #expect(try await h.request("/healthz").status == 200)
        let p = try await AllowanceClient(h: h).register("p@example.com")
        #expect(p.role == .parent)
    }
}
