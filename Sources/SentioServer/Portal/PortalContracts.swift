import Foundation
import SentioAPI
import SentioStore

// The LP portal's request and response bodies, exactly as the OneLPM app spec writes them (keys in the spec's order;
// encoded by SentioAPI's `APIJSON`, so optionals are explicit `null`s unless said otherwise).

/// `POST /api/auth/callback/credentials` request.
public struct LoginRequest: Codable, Sendable {
    public var email: String
    public var password: String
}

/// The account in a login answer: `{"id","email","name","role"}`.
public struct LoginUser: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String?
    public var role: AccountRole
}

/// `POST /api/auth/callback/credentials` answer: `{"user", "token"}` (an HS256 JWT valid 30 days).
public struct LoginResponse: Codable, Sendable, Equatable {
    public var user: LoginUser
    public var token: String
}

/// `GET /api/invitations/validate?token=` answer: `{"valid": true, "email"}` or `{"valid": false}` (no `email` key).
public struct InvitationValidation: Codable, Sendable, Equatable {
    public var valid: Bool
    public var email: String?

    enum CodingKeys: String, CodingKey { case valid, email }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(valid, forKey: .valid)
        if let email { try c.encode(email, forKey: .email) }
    }
}

/// `POST /api/register` request.
public struct RegisterRequest: Codable, Sendable {
    public var token: String
    public var email: String
    public var password: String
    public var firstName: String?
    public var lastName: String?
}

/// The account in a registration answer: `{"id","email","name"}`.
public struct RegisteredUser: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String?
}

/// `POST /api/register` answer: `{"message": "Registration successful", "user"}`.
public struct RegisterResponse: Codable, Sendable, Equatable {
    public var message: String
    public var user: RegisteredUser
}

/// The app spec's `User`: `{"id","email","firstName","lastName","name","role","createdAt"}`.
public struct ProfileUser: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var firstName: String?
    public var lastName: String?
    public var name: String?
    public var role: AccountRole
    public var createdAt: APITimestamp

    public init(_ u: StoredUser) {
        id = u.id
        email = u.email
        firstName = u.firstName
        lastName = u.lastName
        name = u.name
        role = u.role
        createdAt = APITimestamp(epochSeconds: u.createdAt)
    }
}

/// `GET /api/user/profile` answer: `{"user": User}`.
public struct ProfileResponse: Codable, Sendable, Equatable {
    public var user: ProfileUser
}

/// `POST /api/auth/request-password-reset` request.
public struct PasswordResetRequest: Codable, Sendable {
    public var email: String
}

/// `POST /api/auth/reset-password` request.
public struct PasswordResetCompletion: Codable, Sendable {
    public var token: String
    public var password: String
}

/// `{"message"}`: the answer of the reset endpoints and of an events upload.
public struct MessageResponse: Codable, Sendable, Equatable {
    public var message: String
}

/// `GET /api/funds` answer: `{"funds": [Fund]}`.
public struct FundsResponse: Codable, Sendable, Equatable {
    public var funds: [Fund]
}

/// `GET /api/funds/{id}` answer: `{"fund": Fund with "documents"}`.
public struct FundDetailResponse: Codable, Sendable, Equatable {
    public var fund: FundDetail
}

/// `GET /api/funds/{id}/documents` answer: `{"documents": [Document]}`.
public struct DocumentsResponse: Codable, Sendable, Equatable {
    public var documents: [Document]
}

/// `POST /api/admin/invitations` request (ADMIN): the email, the role and the funds the account will see.
public struct InvitationRequest: Codable, Sendable {
    public var email: String
    public var role: AccountRole
    public var funds: [String]?
}

/// `POST /api/admin/invitations` answer: the token (shown once), the app link, and what it grants.
public struct InvitationResponse: Codable, Sendable, Equatable {
    public var email: String
    public var role: AccountRole
    public var funds: [String]
    public var token: String
    public var link: String
    public var expiresAt: APITimestamp
}
