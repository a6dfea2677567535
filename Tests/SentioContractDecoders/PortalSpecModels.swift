import Foundation

// The OneLPM app spec's models (`../shared/app-specs/onelpm-lp-portal.md`, "Data Models" and the endpoints'
// JSON), written as the app writes them: `Codable` structs decoded by `JSONDecoder` with `.iso8601` dates
// (`Spec.decoder`). Deviations, each forced: `Document.parsedData` is `[String: Any]?` in the spec, which is not
// Codable; here `[String: String]?` (what the spec's example holds). `PortfolioSummary.portfolioTvpi` is the spec's
// non-optional `Double`: the server writes an undefined multiple (no paid-in capital) as `0.0` with the additive
// `portfolioTvpiDefined: false`, which this model, like the app's, does not declare.

public enum SpecUserRole: String, Codable { case USER, ADMIN, DATA_MANAGER }

public struct SpecUser: Codable {
    public let id: String
    public let email: String
    public let name: String?
    public let firstName: String?
    public let lastName: String?
    public let role: SpecUserRole
    public let createdAt: Date
}

public struct SpecNavHistoryPoint: Codable {
    public let id: String
    public let date: Date
    public let nav: Double
}

public enum SpecDocumentType: String, Codable { case CAPITAL_CALL, QUARTERLY_REPORT, ANNUAL_REPORT, KYC, COMPLIANCE, OTHER }
public enum SpecPaymentStatus: String, Codable { case PENDING, PAID, LATE, OVERDUE }

public struct SpecDocument: Codable {
    public let id: String
    public let type: SpecDocumentType
    public let title: String
    public let uploadDate: Date
    public let dueDate: Date?
    public let callAmount: Double?
    public let paymentStatus: SpecPaymentStatus?
    /// The spec says `String`; the engine writes `null` where no link is known, so this is where the app must cope.
    public let url: String?
    public let parsedData: [String: String]?
}

public struct SpecFund: Codable {
    public let id: String
    public let name: String
    public let domicile: String
    public let vintage: Int
    public let manager: String
    public let commitment: Double
    public let paidIn: Double
    public let nav: Double
    public let irr: Double
    public let tvpi: Double
    public let dpi: Double
    public let lastReportDate: Date
    public let navHistory: [SpecNavHistoryPoint]
    public let documents: [SpecDocument]?
}

public struct SpecPortfolioSummary: Codable {
    public let totalCommitment: Double
    public let totalNav: Double
    public let portfolioTvpi: Double
    public let activeCapitalCalls: Int
}

public struct SpecCryptoHolding: Codable {
    public let id: String
    public let symbol: String
    public let name: String
    public let amount: Double
    public let valueUsd: Double
}

// The endpoints' bodies.

public struct SpecLoginUser: Codable {
    public let id: String
    public let email: String
    public let name: String?
    public let role: SpecUserRole
}

public struct SpecLoginResponse: Codable {
    public let user: SpecLoginUser
    public let token: String
}

public struct SpecErrorResponse: Codable { public let error: String }

public struct SpecRegisterUser: Codable {
    public let id: String
    public let email: String
    public let name: String?
}

public struct SpecRegisterResponse: Codable {
    public let message: String
    public let user: SpecRegisterUser
}

public struct SpecInvitationValidation: Codable {
    public let valid: Bool
    public let email: String?
}

public struct SpecDashboard: Codable {
    public let portfolioSummary: SpecPortfolioSummary
    public let funds: [SpecFund]
    public let cryptoHoldings: [SpecCryptoHolding]
}

public struct SpecFundsResponse: Codable { public let funds: [SpecFund] }
public struct SpecFundResponse: Codable { public let fund: SpecFund }
public struct SpecDocumentsResponse: Codable { public let documents: [SpecDocument] }
public struct SpecCryptoResponse: Codable {
    public let holdings: [SpecCryptoHolding]
    public let totalValue: Double
}
public struct SpecProfileResponse: Codable { public let user: SpecUser }
public struct SpecMessageResponse: Codable { public let message: String }

public enum Spec {
    /// The app's decoder: `JSONDecoder` with `.iso8601` dates.
    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return try d.decode(type, from: Data(text.utf8))
    }
}
