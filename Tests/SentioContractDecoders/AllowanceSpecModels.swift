import Foundation

// The family allowance app spec's models (`../shared/app-specs/allowance-tracker.md`, "Data Models"), written as
// the app writes them: `Codable` structs with `UUID` ids, `Decimal` money and `Date`s decoded by `JSONDecoder` with
// `.iso8601` (`AllowanceSpec.decode`). The bodies of the endpoints the spec lists without a model (dashboards,
// pages, goals, analytics) are written from issue 31's field lists, every field non-optional unless the issue
// says it may be absent. Decoding ignores keys a model does not declare (as the app's `JSONDecoder` does); every
// declared key must be there with its type.

public enum AllowanceSpecUserRole: String, Codable { case parent = "Parent", child = "Child" }

public struct AllowanceSpecChild: Codable, Equatable {
    public let childId: UUID
    public let userId: UUID
    public let firstName: String
    public let lastName: String
    public let email: String
    public let currentBalance: Decimal
    public let weeklyAllowance: Decimal
    public let lastAllowanceDate: Date?
    public let nextAllowanceDate: Date?
}

public enum AllowanceSpecTransactionType: String, Codable { case credit = "Credit", debit = "Debit" }

public struct AllowanceSpecTransaction: Codable, Equatable {
    public let id: UUID
    public let childId: UUID
    public let amount: Decimal
    public let type: AllowanceSpecTransactionType
    public let description: String
    public let balanceAfter: Decimal
    public let createdBy: UUID
    public let createdByName: String
    public let createdAt: Date
    /// Issue 31's addition to the spec's model.
    public let category: String
}

public struct AllowanceSpecFamily: Codable, Equatable {
    public let id: UUID
    public let name: String
    public let createdAt: Date
    public let memberCount: Int
    public let childrenCount: Int
}

public struct AllowanceSpecAuthResponse: Codable {
    public let userId: UUID
    public let email: String
    public let firstName: String
    public let lastName: String
    public let role: AllowanceSpecUserRole
    public let familyId: UUID?
    public let familyName: String?
    public let token: String
    public let expiresAt: Date
}

// Issue 31's endpoint bodies.

public struct AllowanceSpecPage: Codable {
    public let items: [AllowanceSpecTransaction]
    public let page: Int
    public let pageSize: Int
    public let totalCount: Int
    public let totalPages: Int
}

public struct AllowanceSpecParentDashboard: Codable {
    public let family: AllowanceSpecFamily
    public let children: [AllowanceSpecChild]
    public let totalBalance: Decimal
    public let recentTransactions: [AllowanceSpecTransaction]
}

public struct AllowanceSpecMonthly: Codable, Equatable {
    public let month: String
    public let earned: Decimal
    public let spent: Decimal
    public let net: Decimal

    public init(month: String, earned: Decimal, spent: Decimal, net: Decimal) {
        self.month = month
        self.earned = earned
        self.spent = spent
        self.net = net
    }
}

public struct AllowanceSpecChildDashboard: Codable {
    public let child: AllowanceSpecChild
    public let recentTransactions: [AllowanceSpecTransaction]
    public let monthly: AllowanceSpecMonthly
    public let nextAllowanceDate: Date
    public let daysUntilAllowance: Int
}

public struct AllowanceSpecCategories: Codable { public let categories: [String] }

public struct AllowanceSpecGoal: Codable, Equatable {
    public let id: UUID
    public let childId: UUID
    public let name: String
    public let targetAmount: Decimal
    public let currentAmount: Decimal
    public let progressPercent: Decimal
    public let weeklySavingRate: Decimal
    public let estimatedCompletionDate: Date?
    public let status: String
    public let createdAt: Date
}

public struct AllowanceSpecGoals: Codable { public let goals: [AllowanceSpecGoal] }

public struct AllowanceSpecCategorySpending: Codable, Equatable {
    public let category: String
    public let amount: Decimal
    public let percentage: Decimal

    public init(category: String, amount: Decimal, percentage: Decimal) {
        self.category = category
        self.amount = amount
        self.percentage = percentage
    }
}

public struct AllowanceSpecPeriod: Codable, Equatable {
    public let period: String
    public let earned: Decimal
    public let spent: Decimal
    public let net: Decimal
}

public struct AllowanceSpecBalancePoint: Codable, Equatable {
    public let date: String
    public let balance: Decimal

    public init(date: String, balance: Decimal) {
        self.date = date
        self.balance = balance
    }
}

public struct AllowanceSpecAnalytics: Codable {
    public let childId: UUID
    public let from: String
    public let to: String
    public let period: String
    public let totalEarned: Decimal
    public let totalSpent: Decimal
    public let spendingByCategory: [AllowanceSpecCategorySpending]
    public let earnedVsSpent: [AllowanceSpecPeriod]
    public let balanceOverTime: [AllowanceSpecBalancePoint]
}

public struct AllowanceSpecInsufficientFunds: Codable {
    public let error: String
    public let balance: Decimal
}

public struct AllowanceSpecBalanceUpdate: Codable, Equatable {
    public let childId: UUID
    public let balance: Decimal

    public init(childId: UUID, balance: Decimal) {
        self.childId = childId
        self.balance = balance
    }
}

public enum AllowanceSpec {
    /// The app's decoder: `JSONDecoder` with `.iso8601` dates.
    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return try d.decode(type, from: Data(text.utf8))
    }
}
