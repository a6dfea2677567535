import Foundation
import SentioSavings
import SentioStore

// The family allowance app's request and response bodies, as its spec writes them (`Child`, `Transaction`,
// `Family`, `AuthResponse`; keys in the spec's order, additive keys after them). Encoded by SentioSavings'
// `SavingsJSON`: money as JSON numbers with two decimals, optionals as explicit `null`s, instants as
// `YYYY-MM-DDTHH:MM:SSZ` (what `JSONDecoder`'s `.iso8601` reads).

/// `POST /api/v1/auth/register` request: a parent and the family they create.
public struct FamilyRegisterRequest: Codable, Sendable {
    public var email: String
    public var password: String
    public var firstName: String
    public var lastName: String
    public var familyName: String
}

/// The spec's `AuthResponse`: the answer of register and login.
public struct FamilyAuthResponse: Codable, Sendable, Equatable {
    public var userId: String
    public var email: String
    public var firstName: String
    public var lastName: String
    public var role: FamilyRole
    public var familyId: String?
    public var familyName: String?
    /// An HS256 JWT (the accounts' one token format).
    public var token: String
    public var expiresAt: String
}

/// `POST /api/v1/children` request (parent only).
public struct ChildRequest: Codable, Sendable {
    public var firstName: String
    public var lastName: String
    public var email: String
    public var password: String
    public var weeklyAllowance: Decimal
    /// `Monday` … `Sunday` (any case); default `Saturday`.
    public var allowanceDay: String?
}

/// The spec's `Child`, plus `allowanceDay`.
public struct FamilyChild: Codable, Sendable, Equatable {
    public var childId: String
    public var userId: String
    public var firstName: String
    public var lastName: String
    public var email: String
    public var currentBalance: Decimal
    public var weeklyAllowance: Decimal
    /// Midnight UTC of the day of the last allowance payment, or `null`.
    public var lastAllowanceDate: String?
    /// Midnight UTC of the next allowance day that will be paid (after the weeks already paid).
    public var nextAllowanceDate: String?
    /// `Monday` … `Sunday`.
    public var allowanceDay: String
}

/// The spec's `Family`.
public struct FamilyInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: String
    public var memberCount: Int
    public var childrenCount: Int
}

/// `POST /api/v1/transactions` request (parent only).
public struct TransactionRequest: Codable, Sendable {
    public var childId: String
    public var amount: Decimal
    /// `Credit` or `Debit`.
    public var type: String
    public var description: String
    /// Default: `Other`.
    public var category: String?

    public init(childId: String, amount: Decimal, type: String, description: String, category: String? = nil) {
        self.childId = childId
        self.amount = amount
        self.type = type
        self.description = description
        self.category = category
    }
}

/// The spec's `Transaction`, plus `category`.
public struct FamilyTransaction: Codable, Sendable, Equatable {
    public var id: String
    public var childId: String
    public var amount: Decimal
    /// `Credit` or `Debit`.
    public var type: String
    public var description: String
    public var balanceAfter: Decimal
    public var createdBy: String
    public var createdByName: String
    public var createdAt: String
    public var category: String
}

/// `GET /api/v1/transactions/children/{childId}` answer: one page, newest first.
public struct TransactionPage: Codable, Sendable, Equatable {
    public var items: [FamilyTransaction]
    public var page: Int
    public var pageSize: Int
    public var totalCount: Int
    public var totalPages: Int
}

/// `GET /api/v1/dashboard/parent` answer.
public struct ParentDashboard: Codable, Sendable, Equatable {
    public var family: FamilyInfo
    public var children: [FamilyChild]
    public var totalBalance: Decimal
    /// The family's latest 10 rows, newest first.
    public var recentTransactions: [FamilyTransaction]
}

/// `GET /api/v1/dashboard/child` answer.
public struct ChildDashboardResponse: Codable, Sendable, Equatable {
    public var child: FamilyChild
    /// The child's latest 10 rows, newest first.
    public var recentTransactions: [FamilyTransaction]
    /// The current month (UTC).
    public var monthly: MonthlySummary
    /// Midnight UTC of the next allowance day that will be paid (after the weeks already paid).
    public var nextAllowanceDate: String
    /// Days from today (UTC) to it: 0 to 13 (a week paid early moves it on by 7).
    public var daysUntilAllowance: Int
}

/// `GET /api/v1/transactions/categories` answer.
public struct CategoriesResponse: Codable, Sendable, Equatable {
    public var categories: [String]
}

/// `POST /api/v1/goals` request.
public struct GoalRequest: Codable, Sendable {
    public var childId: String
    public var name: String
    public var targetAmount: Decimal
}

/// `PUT /api/v1/goals/{id}/progress` request: the amount set aside (at most the balance).
public struct GoalProgressRequest: Codable, Sendable {
    public var currentAmount: Decimal
}

/// A savings goal with its progress (SentioSavings' `GoalProgress` rule over the amount set aside).
public struct FamilyGoal: Codable, Sendable, Equatable {
    public var id: String
    public var childId: String
    public var name: String
    public var targetAmount: Decimal
    /// The amount set aside, capped at the target and the balance.
    public var currentAmount: Decimal
    public var progressPercent: Decimal
    public var weeklySavingRate: Decimal
    /// Midnight UTC of the estimated day, or `null` when the saving rate is ≤ 0.
    public var estimatedCompletionDate: String?
    public var status: GoalStatus
    public var createdAt: String
}

/// The list of goals: `{"goals": [Goal]}`.
public struct GoalsResponse: Codable, Sendable, Equatable {
    public var goals: [FamilyGoal]
}

/// The 400 of a debit beyond the balance: `{"error": "Insufficient funds", "balance"}`.
public struct InsufficientFundsBody: Codable, Sendable, Equatable {
    public var error: String
    public var balance: Decimal
}

/// The argument of the hub's `BalanceUpdated`.
public struct BalanceUpdate: Codable, Sendable, Equatable {
    public var childId: String
    public var balance: Decimal
}
