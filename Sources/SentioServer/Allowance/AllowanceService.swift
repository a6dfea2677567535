import Foundation
import NIOConcurrencyHelpers
import SentioCore
import SentioSavings
import SentioStore

/// Why an allowance request was refused; the routes map each case to one status and body.
public enum AllowanceError: Error, Equatable, CustomStringConvertible {
    /// No such thing, or one the caller may not see (404: the same answer for both).
    case notFound(String)
    /// A request that breaks a rule (400).
    case invalid(String)
    /// The caller's role may not do this to something it can see (403).
    case forbidden(String)
    /// A debit beyond the balance (400 `{"error": "Insufficient funds", "balance"}`).
    case insufficientFunds(balance: Decimal)

    public var description: String {
        switch self {
        case .notFound(let s), .invalid(let s), .forbidden(let s): s
        case .insufficientFunds(let b): "Insufficient funds: the balance is \(SavingsMoney.text(b))"
        }
    }
}

/// A change the family's live clients hear about (the hub's server-to-client invocations).
public struct FamilyEvent: Sendable {
    public var familyID: String
    /// `TransactionCreated`, `BalanceUpdated`, `AllowancePaid` or `GoalUpdated`.
    public var target: String
    /// The argument, as JSON text.
    public var argument: String
}

/// The family allowance app over a store: families, children, the ledger, goals and weekly allowances.
///
/// Accounts are ``AccountService``'s (the same users, bcrypt hashes, tokens and login limits as every app); a
/// family membership (Parent or Child) is what makes an account one of this app's. Balances, months, categories,
/// analytics and goal estimates are SentioSavings' (`AllowanceLedger`, `AllowanceReport`, `GoalProjection`),
/// computed from the stored rows. Every method blocks (bcrypt, SQLite): call them off the event loops. The clock is
/// the account service's.
public final class AllowanceService: Sendable {
    public let accounts: AccountService
    /// Called after each committed change, per event (the hub sends them to the family's clients).
    let listener = NIOLockedValueBox<(@Sendable (FamilyEvent) -> Void)?>(nil)

    /// The `createdBy` of the weekly allowance the server pays itself: the nil UUID.
    public static let serverAccount = "00000000-0000-0000-0000-000000000000"
    /// The categories the app offers (any other non-empty category is accepted too).
    public static let categories = ["Allowance", "Chores", "Gift", "Savings", "Toys", "Games", "Books", "Clothes", "Food", "Entertainment", "Other"]

    public init(accounts: AccountService) {
        self.accounts = accounts
    }

    var database: SentioDatabase { accounts.database }
    var today: CivilDate { CivilDate(epochSeconds: Int64(accounts.now.timeIntervalSince1970)) }

    /// Sets the receiver of the events of committed changes.
    public func onEvent(_ listener: @escaping @Sendable (FamilyEvent) -> Void) {
        self.listener.withLockedValue { $0 = listener }
    }

    func publish(_ familyID: String, _ target: String, _ argument: some Encodable) {
        guard let send = listener.withLockedValue({ $0 }) else { return }
        send(FamilyEvent(familyID: familyID, target: target, argument: SavingsJSON.encode(argument)))
    }

    // MARK: Accounts

    /// An account of a family, as a request sees it.
    public struct Member: Sendable {
        public var user: StoredUser
        public var familyID: String
        public var role: FamilyRole
    }

    /// The family membership of `user`; 404 for an account of no family.
    public func member(_ user: StoredUser) throws -> Member {
        guard let m = try database.familyMembership(userID: user.id) else {
            throw AllowanceError.notFound("this account belongs to no family")
        }
        return Member(user: user, familyID: m.familyID, role: m.role)
    }

    /// Creates a parent's account and their family; the answer carries a token.
    public func register(_ body: FamilyRegisterRequest) throws -> FamilyAuthResponse {
        guard let familyName = try AccountRules.namePart(body.familyName, field: "familyName") else {
            throw AccountError.invalid("familyName: must not be empty")
        }
        let user = try accounts.newAccount(
            email: body.email, role: .user, password: body.password, firstName: body.firstName, lastName: body.lastName)
        let family = StoredFamily(id: UUID().uuidString.lowercased(), name: familyName, createdAt: user.createdAt)
        try database.createFamily(family, parent: user)
        return try authResponse(user, familyID: family.id, role: .parent)
    }

    /// Logs in through the accounts' one login (rate limits, one bcrypt verification whatever the email); an
    /// account of no family gets the same answer as a wrong password.
    public func login(email: String, password: String, client: String) throws -> FamilyAuthResponse {
        let (user, _) = try accounts.login(email: email, password: password, client: client)
        guard let m = try database.familyMembership(userID: user.id) else { throw AccountError.invalidCredentials }
        return try authResponse(user, familyID: m.familyID, role: m.role)
    }

    func authResponse(_ user: StoredUser, familyID: String, role: FamilyRole) throws -> FamilyAuthResponse {
        guard let tokens = accounts.tokens else { throw AccountError.unavailable("accounts are off: no SENTIO_JWT_SECRET is configured") }
        let now = accounts.now
        let token = tokens.issue(for: user, now: now)
        let family = try database.family(id: familyID)
        return FamilyAuthResponse(
            userId: user.id, email: user.email, firstName: user.firstName ?? "", lastName: user.lastName ?? "", role: role,
            familyId: familyID, familyName: family?.family.name, token: token,
            expiresAt: iso8601(epochSeconds: Int64(now.timeIntervalSince1970.rounded(.down) + AccessTokenCodec.lifetime)))
    }

    /// Adds a child (account and allowance) to the parent's family.
    public func addChild(_ m: Member, _ body: ChildRequest) throws -> FamilyChild {
        guard m.role == .parent else { throw AllowanceError.forbidden("only a parent may add a child") }
        let allowance = try Self.cents(body.weeklyAllowance, field: "weeklyAllowance", allowZero: true)
        let dayText = body.allowanceDay ?? "saturday"
        guard let day = AllowanceDay(rawValue: dayText.lowercased()) else {
            throw AllowanceError.invalid("allowanceDay: '\(dayText)' is not a day (Monday … Sunday)")
        }
        guard try AccountRules.namePart(body.firstName, field: "firstName") != nil else {
            throw AllowanceError.invalid("firstName: must not be empty")
        }
        let user = try accounts.newAccount(
            email: body.email, role: .user, password: body.password, firstName: body.firstName, lastName: body.lastName)
        let child = StoredAllowanceChild(
            id: UUID().uuidString.lowercased(), userID: user.id, familyID: m.familyID, weeklyAllowanceCents: allowance,
            allowanceDay: day.rawValue, createdAt: user.createdAt)
        try database.addAllowanceChild(child, user: user)
        return try childBody(child, user)
    }

    /// The member's family.
    public func family(_ m: Member) throws -> FamilyInfo {
        guard let f = try database.family(id: m.familyID) else { throw AllowanceError.notFound("no such family") }
        return FamilyInfo(
            id: f.family.id, name: f.family.name, createdAt: iso8601(epochSeconds: f.family.createdAt), memberCount: f.members,
            childrenCount: f.children)
    }

    // MARK: Children and their ledgers (SentioSavings)

    /// The child `childID` when `m` may see it (a parent of its family, or the child itself); 404 otherwise.
    func visibleChild(_ m: Member, _ childID: String) throws -> (child: StoredAllowanceChild, user: StoredUser) {
        guard let found = try database.allowanceChild(id: childID.lowercased()), found.child.familyID == m.familyID,
              m.role == .parent || found.user.id == m.user.id
        else { throw AllowanceError.notFound("no such child: \(childID)") }
        return found
    }

    /// The child of a child's own account.
    func ownChild(_ m: Member) throws -> (child: StoredAllowanceChild, user: StoredUser) {
        guard let c = try database.allowanceChild(userID: m.user.id), let found = try database.allowanceChild(id: c.id) else {
            throw AllowanceError.notFound("this account has no allowance")
        }
        return found
    }

    static func day(_ child: StoredAllowanceChild) -> AllowanceDay { AllowanceDay(rawValue: child.allowanceDay) ?? .saturday }

    static func savingsChild(_ child: StoredAllowanceChild, _ user: StoredUser) -> AllowanceChild {
        AllowanceChild(
            id: child.id, firstName: user.firstName ?? "", lastName: user.lastName ?? "",
            weeklyAllowance: SavingsMoney.decimal(cents: child.weeklyAllowanceCents), allowanceDay: day(child))
    }

    static func entry(_ row: StoredAllowanceTransaction) -> LedgerEntry {
        LedgerEntry(
            id: row.id, childID: row.childID, timestamp: row.createdAt, type: row.type == "Credit" ? .credit : .debit,
            amount: SavingsMoney.decimal(cents: row.amountCents), description: row.description, category: row.category,
            createdBy: row.createdBy)
    }

    /// The SentioSavings ledger of one child's stored rows (strict: a stored ledger always applies).
    static func ledger(_ child: AllowanceChild, _ rows: [StoredAllowanceTransaction]) throws -> AllowanceLedger {
        try AllowanceLedger(entries: rows.map(entry), children: [child], file: "store")
    }

    /// A child as of today: SentioSavings' dashboard, and the next allowance day the server will pay
    /// (`AllowanceSchedule.nextDue`: it knows the weeks already paid, early payments included, which the ledger's
    /// `nextAllowanceDate` rule cannot).
    struct Summary {
        var dashboard: ChildDashboard
        var nextAllowance: CivilDate
    }

    func summary(_ child: StoredAllowanceChild, _ user: StoredUser) throws -> Summary {
        let savings = Self.savingsChild(child, user)
        let rows = try database.allowanceTransactions(childID: child.id)
        let dashboard = try AllowanceReport(children: [savings], ledger: try Self.ledger(savings, rows), asOf: today).children[0]
        let next = AllowanceSchedule.nextDue(
            day: Self.day(child), after: CivilDate(epochSeconds: child.createdAt), today: today,
            paid: Set(rows.compactMap { $0.allowanceWeek.map(Int.init) }))
        return Summary(dashboard: dashboard, nextAllowance: next)
    }

    func childBody(_ child: StoredAllowanceChild, _ user: StoredUser, _ s: Summary? = nil) throws -> FamilyChild {
        let s = try s ?? summary(child, user)
        let d = s.dashboard
        return FamilyChild(
            childId: child.id, userId: user.id, firstName: user.firstName ?? "", lastName: user.lastName ?? "", email: user.email,
            currentBalance: d.currentBalance, weeklyAllowance: d.weeklyAllowance, lastAllowanceDate: d.lastAllowanceDate.map(Self.midnight),
            nextAllowanceDate: Self.midnight(s.nextAllowance.description), allowanceDay: Self.day(child).rawValue.capitalized)
    }

    /// `YYYY-MM-DD` as midnight UTC, `YYYY-MM-DDT00:00:00Z`.
    static func midnight(_ date: String) -> String { date + "T00:00:00Z" }

    static func body(_ row: StoredAllowanceTransaction) -> FamilyTransaction {
        FamilyTransaction(
            id: row.id, childId: row.childID, amount: SavingsMoney.decimal(cents: row.amountCents), type: row.type,
            description: row.description, balanceAfter: SavingsMoney.decimal(cents: row.balanceAfterCents), createdBy: row.createdBy,
            createdByName: row.createdByName, createdAt: iso8601(epochSeconds: row.createdAt), category: row.category)
    }

    /// Whole cents of a request's amount: > 0 (or ≥ 0 with `allowZero`), at most 2 decimal places, at most
    /// `SavingsMoney.maximum`.
    static func cents(_ amount: Decimal, field: String, allowZero: Bool = false) throws -> Int64 {
        guard amount > 0 || (allowZero && amount == 0), amount <= SavingsMoney.maximum, SavingsMoney.isWholeCents(amount) else {
            throw AllowanceError.invalid("\(field): \(amount) is not an amount \(allowZero ? "≥ 0" : "> 0") with at most 2 decimal places (at most 999999999999.99)")
        }
        return SavingsMoney.cents(amount)
    }

    // MARK: Ledger

    /// Books a row for a child in one store transaction: the balance check is SentioSavings' ledger rule over the
    /// child's stored rows plus this one (a debit beyond the balance is refused), so concurrent debits never
    /// overdraw. The row is dated now, or at the child's previous row when the clock is behind it (rows stay in
    /// time order). With `idempotencyKey` (per account) or `allowanceWeek`, a repeat returns the first row.
    /// - Returns: the row, and whether it was booked now (`false`: the earlier row of the same key or week).
    func book(
        child: StoredAllowanceChild, user: StoredUser, type: LedgerEntryType, cents: Int64, description: String, category: String,
        by: (id: String, name: String), idempotencyKey: String?, allowanceWeek: Int64?
    ) throws -> (row: StoredAllowanceTransaction, created: Bool) {
        let savings = Self.savingsChild(child, user)
        let now = Int64(accounts.now.timeIntervalSince1970)
        let outcome = try database.appendAllowanceTransaction(
            childID: child.id, idempotencyKey: idempotencyKey.map { (by.id, $0) }, allowanceWeek: allowanceWeek
        ) { rows in
            let id = UUID().uuidString.lowercased()
            let at = max(now, rows.last?.createdAt ?? now)
            let new = LedgerEntry(
                id: id, childID: child.id, timestamp: at, type: type, amount: SavingsMoney.decimal(cents: cents),
                description: description, category: category, createdBy: by.id)
            let ledger = try AllowanceLedger(entries: rows.map(Self.entry) + [new], children: [savings], file: "store", lenient: true)
            let postings = ledger.postings[child.id] ?? []
            guard let last = postings.last, last.entry.id == id else {
                throw AllowanceError.insufficientFunds(balance: postings.last?.balanceAfter ?? 0)
            }
            return StoredAllowanceTransaction(
                id: id, childID: child.id, type: type == .credit ? "Credit" : "Debit", amountCents: cents,
                balanceAfterCents: SavingsMoney.cents(last.balanceAfter), description: description, category: category,
                createdBy: by.id, createdByName: by.name, createdAt: at, allowanceWeek: allowanceWeek, idempotencyKey: idempotencyKey)
        }
        switch outcome {
        case .existing(let row): return (row, false)
        case .created(let row):
            let tx = Self.body(row)
            publish(child.familyID, allowanceWeek != nil ? "AllowancePaid" : "TransactionCreated", tx)
            publish(child.familyID, "BalanceUpdated", BalanceUpdate(childId: child.id, balance: tx.balanceAfter))
            return (row, true)
        }
    }

    /// `POST /api/v1/transactions` (a parent, for a child of the family).
    public func createTransaction(_ m: Member, _ body: TransactionRequest, idempotencyKey: String?) throws -> (FamilyTransaction, created: Bool) {
        let (child, user) = try visibleChild(m, body.childId)
        guard m.role == .parent else { throw AllowanceError.forbidden("only a parent may create transactions") }
        let type: LedgerEntryType
        switch body.type.lowercased() {
        case "credit": type = .credit
        case "debit": type = .debit
        default: throw AllowanceError.invalid("type: '\(body.type)' is not Credit or Debit")
        }
        let cents = try Self.cents(body.amount, field: "amount")
        let description = body.description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !description.isEmpty, description.count <= 500 else { throw AllowanceError.invalid("description: 1 to 500 characters") }
        let category = (body.category ?? "Other").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !category.isEmpty, category.count <= 50 else { throw AllowanceError.invalid("category: 1 to 50 characters") }
        guard category.lowercased() != "allowance" else {
            throw AllowanceError.invalid("category: Allowance is booked by the weekly allowance (POST /api/v1/children/{id}/pay-allowance)")
        }
        if let key = idempotencyKey, key.isEmpty || key.count > 200 { throw AllowanceError.invalid("Idempotency-Key: 1 to 200 characters") }
        let (row, created) = try book(
            child: child, user: user, type: type, cents: cents, description: description, category: category,
            by: (m.user.id, m.user.name ?? m.user.email), idempotencyKey: idempotencyKey, allowanceWeek: nil)
        return (Self.body(row), created)
    }

    /// One page of a child's rows, newest first.
    public func transactions(_ m: Member, childID: String, page: Int, pageSize: Int, category: String?) throws -> TransactionPage {
        let (child, _) = try visibleChild(m, childID)
        guard page >= 1 else { throw AllowanceError.invalid("page: must be ≥ 1") }
        guard (1...100).contains(pageSize) else { throw AllowanceError.invalid("pageSize: must be in 1...100") }
        let (rows, total) = try database.allowanceTransactionPage(
            childID: child.id, category: category, offset: (page - 1) * pageSize, limit: pageSize)
        return TransactionPage(
            items: rows.map(Self.body), page: page, pageSize: pageSize, totalCount: total, totalPages: (total + pageSize - 1) / pageSize)
    }

    /// `GET /api/v1/dashboard/parent`.
    public func parentDashboard(_ m: Member) throws -> ParentDashboard {
        guard m.role == .parent else { throw AllowanceError.forbidden("the parent dashboard is for parents (children: /api/v1/dashboard/child)") }
        let pairs = try database.allowanceChildren(familyID: m.familyID)
        let children = try pairs.map { try childBody($0.child, $0.user) }
        return ParentDashboard(
            family: try family(m), children: children, totalBalance: children.reduce(0) { $0 + $1.currentBalance },
            recentTransactions: try database.recentAllowanceTransactions(childIDs: pairs.map(\.child.id), limit: 10).map(Self.body))
    }

    /// `GET /api/v1/dashboard/child`: the child's own, or `childID`'s for a parent.
    public func childDashboard(_ m: Member, childID: String?) throws -> ChildDashboardResponse {
        let (child, user): (StoredAllowanceChild, StoredUser)
        if let childID { (child, user) = try visibleChild(m, childID) } else if m.role == .child { (child, user) = try ownChild(m) } else {
            throw AllowanceError.invalid("childId: a parent names the child (?childId=)")
        }
        let s = try summary(child, user)
        let month = String(today.description.prefix(7))
        let monthly = s.dashboard.monthly.last.flatMap { $0.month == month ? $0 : nil } ?? MonthlySummary(month: month, earned: 0, spent: 0, net: 0)
        return ChildDashboardResponse(
            child: try childBody(child, user, s),
            recentTransactions: try database.recentAllowanceTransactions(childIDs: [child.id], limit: 10).map(Self.body),
            monthly: monthly, nextAllowanceDate: Self.midnight(s.nextAllowance.description),
            daysUntilAllowance: s.nextAllowance.daysSinceEpoch - today.daysSinceEpoch)
    }

    /// `GET /api/v1/analytics/spending`: SentioSavings' analytics of a child over `from`…`to` (default: the child's
    /// first row, or today, to today).
    public func analytics(_ m: Member, childID: String?, from: CivilDate?, to: CivilDate?, period: AnalyticsPeriod) throws -> SpendingAnalytics {
        let (child, user): (StoredAllowanceChild, StoredUser)
        if let childID { (child, user) = try visibleChild(m, childID) } else if m.role == .child { (child, user) = try ownChild(m) } else {
            throw AllowanceError.invalid("childId: a parent names the child (?childId=)")
        }
        let rows = try database.allowanceTransactions(childID: child.id)
        let end = to ?? today
        let start = from ?? rows.first.map { CivilDate(epochSeconds: $0.createdAt) } ?? end
        guard start <= end else { throw AllowanceError.invalid("from: \(start) is after to: \(end)") }
        guard end.daysSinceEpoch - start.daysSinceEpoch <= 3_660 else { throw AllowanceError.invalid("from … to: at most 10 years") }
        return try Self.ledger(Self.savingsChild(child, user), rows).analytics(of: child.id, from: start, to: end, period: period)
    }

    // MARK: Goals

    func goalBody(_ goal: StoredAllowanceGoal, _ child: StoredAllowanceChild, _ user: StoredUser) throws -> FamilyGoal {
        let savings = Self.savingsChild(child, user)
        let ledger = try Self.ledger(savings, try database.allowanceTransactions(childID: child.id))
        let rows = ledger.postings(of: child.id, through: today)
        let target = SavingsMoney.decimal(cents: goal.targetCents)
        var projection = GoalProjection(target: target, postings: rows, asOf: today)
        // The rule's current amount is the balance capped at the target; here it is the amount set aside (the
        // app's progress), itself at most the balance.
        projection.current = min(projection.current, SavingsMoney.decimal(cents: goal.currentCents))
        guard let p = projection.progress(id: goal.id, name: goal.name) else {
            throw AllowanceError.invalid("goal \(goal.id): the estimated completion date is after 9999-12-31")
        }
        return FamilyGoal(
            id: goal.id, childId: child.id, name: goal.name, targetAmount: p.targetAmount, currentAmount: p.currentAmount,
            progressPercent: p.progressPercent, weeklySavingRate: p.weeklySavingRate,
            estimatedCompletionDate: p.estimatedCompletionDate.map(Self.midnight), status: p.status,
            createdAt: iso8601(epochSeconds: goal.createdAt))
    }

    /// `GET /api/v1/goals`: a child's goals (`childID`, or the child's own).
    public func goals(_ m: Member, childID: String?) throws -> GoalsResponse {
        let pairs: [(child: StoredAllowanceChild, user: StoredUser)]
        if let childID { pairs = [try visibleChild(m, childID)] } else if m.role == .child { pairs = [try ownChild(m)] } else {
            pairs = try database.allowanceChildren(familyID: m.familyID)
        }
        var out: [FamilyGoal] = []
        for (child, user) in pairs {
            for goal in try database.allowanceGoals(childID: child.id) { out.append(try goalBody(goal, child, user)) }
        }
        return GoalsResponse(goals: out)
    }

    /// `POST /api/v1/goals`: a parent for a child of the family, or a child for themself.
    public func addGoal(_ m: Member, _ body: GoalRequest) throws -> FamilyGoal {
        let (child, user) = try visibleChild(m, body.childId)
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100 else { throw AllowanceError.invalid("name: 1 to 100 characters") }
        let goal = StoredAllowanceGoal(
            id: UUID().uuidString.lowercased(), childID: child.id, name: name,
            targetCents: try Self.cents(body.targetAmount, field: "targetAmount"), createdAt: Int64(accounts.now.timeIntervalSince1970))
        try database.addAllowanceGoal(goal)
        let out = try goalBody(goal, child, user)
        publish(child.familyID, "GoalUpdated", out)
        return out
    }

    /// `PUT /api/v1/goals/{id}/progress`: sets the amount set aside (at most the balance, checked in the same
    /// store transaction as the update).
    public func setGoalProgress(_ m: Member, goalID: String, _ body: GoalProgressRequest) throws -> FamilyGoal {
        guard let goal = try database.allowanceGoal(id: goalID.lowercased()) else { throw AllowanceError.notFound("no such goal: \(goalID)") }
        let (child, user): (StoredAllowanceChild, StoredUser)
        do { (child, user) = try visibleChild(m, goal.childID) } catch { throw AllowanceError.notFound("no such goal: \(goalID)") }
        let cents = try Self.cents(body.currentAmount, field: "currentAmount", allowZero: true)
        let savings = Self.savingsChild(child, user)
        guard let updated = try database.setAllowanceGoalAmount(id: goal.id, cents: cents, check: { rows in
            let balance = try Self.ledger(savings, rows).postings[child.id]?.last?.balanceAfter ?? 0
            guard SavingsMoney.decimal(cents: cents) <= balance else {
                throw AllowanceError.invalid("currentAmount: \(SavingsMoney.text(SavingsMoney.decimal(cents: cents))) is more than the balance \(SavingsMoney.text(balance))")
            }
        }) else { throw AllowanceError.notFound("no such goal: \(goalID)") }
        let out = try goalBody(updated, child, user)
        publish(child.familyID, "GoalUpdated", out)
        return out
    }

    // MARK: Export

    /// The store's allowance data as the CSV files `sentio allowance` reads (children, ledger in booking order,
    /// goals), of one family or of all: the same rows give `sentio allowance` the server's balances.
    public static func exportCSV(database: SentioDatabase, familyID: String? = nil) throws -> (children: String, ledger: String, goals: String) {
        var children: [AllowanceChild] = [], entries: [LedgerEntry] = [], goals: [SavingsGoal] = []
        for child in try database.allAllowanceChildren() where familyID == nil || child.familyID == familyID {
            guard let user = try database.user(id: child.userID) else { continue }
            children.append(savingsChild(child, user))
            entries += try database.allowanceTransactions(childID: child.id).map(entry)
            goals += try database.allowanceGoals(childID: child.id).map {
                SavingsGoal(id: $0.id, childID: child.id, name: $0.name, targetAmount: SavingsMoney.decimal(cents: $0.targetCents),
                            created: CivilDate(epochSeconds: $0.createdAt))
            }
        }
        return (AllowanceChild.csv(children), LedgerEntry.csv(entries), SavingsGoal.csv(goals))
    }

    // MARK: Weekly allowance

    /// `POST /api/v1/children/{id}/pay-allowance` (a parent): pays the week of the coming allowance day
    /// (`AllowanceSchedule.week(paidOn:day:)`), once: a repeat returns the week's payment.
    public func payAllowance(_ m: Member, childID: String) throws -> (FamilyTransaction, created: Bool) {
        let (child, user) = try visibleChild(m, childID)
        guard m.role == .parent else { throw AllowanceError.forbidden("only a parent may pay the allowance") }
        let week = AllowanceSchedule.week(paidOn: today, day: Self.day(child))
        let (row, created) = try payWeek(child, user, week: week, by: (m.user.id, m.user.name ?? m.user.email))
        return (Self.body(row), created)
    }

    func payWeek(_ child: StoredAllowanceChild, _ user: StoredUser, week: CivilDate, by: (id: String, name: String)) throws
        -> (row: StoredAllowanceTransaction, created: Bool)
    {
        guard child.weeklyAllowanceCents > 0 else { throw AllowanceError.invalid("the child's weekly allowance is 0") }
        return try book(
            child: child, user: user, type: .credit, cents: child.weeklyAllowanceCents, description: "Weekly allowance (\(week))",
            category: "Allowance", by: by, idempotencyKey: nil, allowanceWeek: Int64(week.daysSinceEpoch))
    }

    /// Pays every child's allowance days from the day after the child was added up to today that are not paid yet
    /// (`AllowanceSchedule.dueDays(day:after:through:)`), each once (the store's unique week), oldest first: the
    /// round the server runs at start (catching up after downtime) and then periodically.
    /// - Returns: the payments made.
    @discardableResult
    public func payDueAllowances() throws -> Int {
        var paid = 0
        let today = self.today
        for child in try database.allAllowanceChildren() where child.weeklyAllowanceCents > 0 {
            let due = AllowanceSchedule.dueDays(day: Self.day(child), after: CivilDate(epochSeconds: child.createdAt), through: today)
            guard !due.isEmpty, let user = try database.user(id: child.userID) else { continue }
            let done = Set(try database.allowanceTransactions(childID: child.id).compactMap(\.allowanceWeek))
            for week in due where !done.contains(Int64(week.daysSinceEpoch)) {
                if try payWeek(child, user, week: week, by: (Self.serverAccount, "Weekly allowance")).created { paid += 1 }
            }
        }
        return paid
    }
}
