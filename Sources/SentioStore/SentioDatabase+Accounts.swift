import Foundation
import GRDB
import SentioCore

// LP portal accounts: users, the funds each may see, invitations and password-reset tokens.
//
// The store keeps only what it is given: password hashes (bcrypt, made by the server's auth code) and token hashes
// (SHA-256 of a random 256-bit token); never a password or a token. Every method that changes more than one row is
// one transaction, so a process killed mid-way (SIGKILL) leaves an invitation either unused with no account, or
// used with its account; a reset token either unused with the old password, or used with the new one.

/// The role of a portal account (the app spec's `UserRole`).
public enum AccountRole: String, Codable, Sendable, CaseIterable {
    case user = "USER", admin = "ADMIN", dataManager = "DATA_MANAGER"
}

extension AccountRole: DatabaseValueConvertible {}

/// A portal account as stored.
public struct StoredUser: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "users"

    /// Opaque and stable: a random UUID, lowercased.
    public var id: String
    /// Lowercased and trimmed; unique.
    public var email: String
    public var firstName: String?
    public var lastName: String?
    public var role: AccountRole
    /// A bcrypt hash (`$2b$…`), never the password.
    public var passwordHash: String
    /// Incremented by every password change: a token carries the version it was issued under and is refused once
    /// the stored version moved on.
    public var tokenVersion: Int
    /// UTC epoch seconds.
    public var createdAt: Int64

    public init(
        id: String, email: String, firstName: String?, lastName: String?, role: AccountRole, passwordHash: String,
        tokenVersion: Int = 0, createdAt: Int64
    ) {
        self.id = id
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.role = role
        self.passwordHash = passwordHash
        self.tokenVersion = tokenVersion
        self.createdAt = createdAt
    }

    /// `firstName lastName` (either alone when the other is missing), `nil` without both.
    public var name: String? {
        let parts = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    enum CodingKeys: String, CodingKey {
        case id, email, firstName = "first_name", lastName = "last_name", role, passwordHash = "password_hash"
        case tokenVersion = "token_version", createdAt = "created_at"
    }

    /// The table's columns, for queries.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let email = Column(CodingKeys.email)
        public static let tokenVersion = Column(CodingKeys.tokenVersion)
        public static let passwordHash = Column(CodingKeys.passwordHash)
        public static let createdAt = Column(CodingKeys.createdAt)
    }
}

/// One fund an account may see (a row of `user_funds`).
struct UserFundRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "user_funds"
    var userID: String
    var fundID: String
    enum CodingKeys: String, CodingKey { case userID = "user_id", fundID = "fund_id" }
    enum Columns {
        static let userID = Column(CodingKeys.userID)
        static let fundID = Column(CodingKeys.fundID)
    }
}

/// A single-use token (an invitation or a password reset) as stored: its SHA-256, never the token.
public struct StoredInvitation: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "invitations"
    /// Lowercase hex SHA-256 of the token.
    public var tokenHash: String
    public var email: String
    public var role: AccountRole
    /// The funds the account will see, as a JSON array of fund ids.
    public var fundsJSON: String
    public var createdAt: Int64
    public var expiresAt: Int64
    /// When it was redeemed; `nil` while unused.
    public var usedAt: Int64?

    public init(tokenHash: String, email: String, role: AccountRole, funds: [String], createdAt: Int64, expiresAt: Int64, usedAt: Int64? = nil) {
        self.tokenHash = tokenHash
        self.email = email
        self.role = role
        fundsJSON = String(decoding: (try? JSONEncoder().encode(funds)) ?? Data("[]".utf8), as: UTF8.self)
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }

    public var funds: [String] { (try? JSONDecoder().decode([String].self, from: Data(fundsJSON.utf8))) ?? [] }

    enum CodingKeys: String, CodingKey {
        case tokenHash = "token_hash", email, role, fundsJSON = "funds_json", createdAt = "created_at"
        case expiresAt = "expires_at", usedAt = "used_at"
    }

    public enum Columns {
        public static let tokenHash = Column(CodingKeys.tokenHash)
        public static let usedAt = Column(CodingKeys.usedAt)
    }
}

/// A password-reset token as stored (its SHA-256).
public struct StoredPasswordReset: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "password_resets"
    public var tokenHash: String
    public var userID: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var usedAt: Int64?

    public init(tokenHash: String, userID: String, createdAt: Int64, expiresAt: Int64, usedAt: Int64? = nil) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }

    enum CodingKeys: String, CodingKey {
        case tokenHash = "token_hash", userID = "user_id", createdAt = "created_at", expiresAt = "expires_at"
        case usedAt = "used_at"
    }

    public enum Columns {
        public static let tokenHash = Column(CodingKeys.tokenHash)
        public static let userID = Column(CodingKeys.userID)
        public static let usedAt = Column(CodingKeys.usedAt)
    }
}

/// Why an account operation was refused (user-facing: the CLI exits 2, the server answers 4xx).
public enum AccountStoreError: UserInputError, Equatable {
    /// Another account has this email (compared without regard to case).
    case emailTaken(String)
    /// No account with this id or email.
    case noSuchUser(String)
    /// The token is unknown, already used or expired (one answer for all three: nothing to learn from it).
    case invalidToken
    /// The invitation is for another email.
    case emailMismatch

    public var description: String {
        switch self {
        case .emailTaken(let email): "an account with the email \(email) already exists"
        case .noSuchUser(let who): "no account \(who)"
        case .invalidToken: "the token is invalid, used or expired"
        case .emailMismatch: "the email is not the invitation's"
        }
    }
}

extension SentioDatabase {
    /// Migration "v6-accounts".
    static let accountsSchema = """
        CREATE TABLE users (
            id            TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            email         TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(email) > 0),
            first_name    TEXT,
            last_name     TEXT,
            role          TEXT NOT NULL CHECK (role IN ('USER', 'ADMIN', 'DATA_MANAGER')),
            password_hash TEXT NOT NULL CHECK (length(password_hash) > 0),
            token_version INTEGER NOT NULL DEFAULT 0,
            created_at    INTEGER NOT NULL
        );
        CREATE TABLE user_funds (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            fund_id TEXT NOT NULL CHECK (length(fund_id) > 0),
            PRIMARY KEY (user_id, fund_id)
        ) WITHOUT ROWID;
        CREATE TABLE invitations (
            token_hash TEXT PRIMARY KEY NOT NULL CHECK (length(token_hash) = 64),
            email      TEXT NOT NULL,
            role       TEXT NOT NULL CHECK (role IN ('USER', 'ADMIN', 'DATA_MANAGER')),
            funds_json TEXT NOT NULL CHECK (json_valid(funds_json)),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at    INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE password_resets (
            token_hash TEXT PRIMARY KEY NOT NULL CHECK (length(token_hash) = 64),
            user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at    INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX password_resets_by_user ON password_resets(user_id);
        """

    /// Creates an account with the funds it may see, in one transaction.
    /// - Throws: ``AccountStoreError/emailTaken(_:)`` when another account has the email.
    public func createUser(_ user: StoredUser, funds: [String]) throws {
        try withStoreErrors {
            try pool.write { db in try Self.insert(user, funds: funds, db) }
        }
    }

    /// Inserts an account and its funds (in the caller's transaction), refusing a taken email.
    static func insert(_ user: StoredUser, funds: [String], _ db: Database) throws {
        if try StoredUser.filter(StoredUser.Columns.email.collating(.nocase) == user.email).fetchCount(db) > 0 {
            throw AccountStoreError.emailTaken(user.email)
        }
        try user.insert(db)
        for fund in Set(funds) { try UserFundRecord(userID: user.id, fundID: fund).insert(db) }
    }

    /// The account with this id, or `nil`.
    public func user(id: String) throws -> StoredUser? {
        try withStoreErrors { try pool.read { try StoredUser.fetchOne($0, key: id) } }
    }

    /// The account with this email (compared without regard to case), or `nil`.
    public func user(email: String) throws -> StoredUser? {
        try withStoreErrors {
            try pool.read { try StoredUser.filter(StoredUser.Columns.email.collating(.nocase) == email).fetchOne($0) }
        }
    }

    /// Every account, by email.
    public func users() throws -> [StoredUser] {
        try withStoreErrors { try pool.read { try StoredUser.order(StoredUser.Columns.email).fetchAll($0) } }
    }

    /// The fund ids granted to an account, sorted.
    public func funds(ofUser id: String) throws -> [String] {
        try withStoreErrors {
            try pool.read { db in
                try UserFundRecord.filter(UserFundRecord.Columns.userID == id).order(UserFundRecord.Columns.fundID)
                    .fetchAll(db).map(\.fundID)
            }
        }
    }

    /// Lets an account see more funds (already granted ones are kept).
    /// - Throws: ``AccountStoreError/noSuchUser(_:)``.
    public func grant(userID: String, funds: [String]) throws {
        try withStoreErrors {
            try pool.write { db in
                guard try StoredUser.exists(db, key: userID) else { throw AccountStoreError.noSuchUser(userID) }
                for fund in Set(funds) {
                    try UserFundRecord(userID: userID, fundID: fund).insert(db, onConflict: .ignore)
                }
            }
        }
    }

    /// Takes funds away from an account (funds it does not have are ignored).
    /// - Throws: ``AccountStoreError/noSuchUser(_:)``.
    public func revoke(userID: String, funds: [String]) throws {
        try withStoreErrors {
            try pool.write { db in
                guard try StoredUser.exists(db, key: userID) else { throw AccountStoreError.noSuchUser(userID) }
                _ = try UserFundRecord.filter(UserFundRecord.Columns.userID == userID && funds.contains(UserFundRecord.Columns.fundID))
                    .deleteAll(db)
            }
        }
    }

    /// Deletes an account, its grants and its reset tokens (its issued tokens then name no account: refused).
    /// - Throws: ``AccountStoreError/noSuchUser(_:)``.
    public func removeUser(id: String) throws {
        try withStoreErrors {
            try pool.write { db in
                guard try StoredUser.deleteOne(db, key: id) else { throw AccountStoreError.noSuchUser(id) }
            }
        }
    }

    /// Replaces an account's password hash and moves its token version on (earlier tokens are refused).
    /// - Throws: ``AccountStoreError/noSuchUser(_:)``.
    public func setPassword(userID: String, hash: String) throws {
        try withStoreErrors {
            try pool.write { db in
                let changed = try StoredUser.filter(key: userID).updateAll(
                    db, StoredUser.Columns.passwordHash.set(to: hash), StoredUser.Columns.tokenVersion += 1)
                guard changed == 1 else { throw AccountStoreError.noSuchUser(userID) }
            }
        }
    }

    /// Stores an invitation (its token's hash).
    public func saveInvitation(_ invitation: StoredInvitation) throws {
        try withStoreErrors { try pool.write { db in try invitation.insert(db) } }
    }

    /// The invitation whose token hashes to `tokenHash` when it is unused and `now < expiresAt`, else `nil`.
    public func openInvitation(tokenHash: String, now: Int64) throws -> StoredInvitation? {
        try withStoreErrors {
            try pool.read { db in
                guard let found = try StoredInvitation.fetchOne(db, key: tokenHash), found.usedAt == nil, now < found.expiresAt
                else { return nil }
                return found
            }
        }
    }

    /// Redeems an invitation: in one transaction checks it is unused, unexpired and for `user.email`, creates the
    /// account with the invitation's role and funds, and marks the invitation used.
    /// - Returns: the created account.
    /// - Throws: ``AccountStoreError/invalidToken``, ``AccountStoreError/emailMismatch``,
    ///   ``AccountStoreError/emailTaken(_:)``.
    public func redeemInvitation(tokenHash: String, user: StoredUser, now: Int64) throws -> StoredUser {
        try withStoreErrors {
            try pool.write { db in
                guard let invitation = try StoredInvitation.fetchOne(db, key: tokenHash), invitation.usedAt == nil,
                      now < invitation.expiresAt
                else { throw AccountStoreError.invalidToken }
                guard invitation.email.lowercased() == user.email.lowercased() else { throw AccountStoreError.emailMismatch }
                var created = user
                created.role = invitation.role
                try Self.insert(created, funds: invitation.funds, db)
                try StoredInvitation.filter(key: tokenHash).updateAll(db, StoredInvitation.Columns.usedAt.set(to: now))
                return created
            }
        }
    }

    /// Stores a password-reset token (its hash).
    public func savePasswordReset(_ reset: StoredPasswordReset) throws {
        try withStoreErrors { try pool.write { db in try reset.insert(db) } }
    }

    /// Completes a password reset: in one transaction checks the token is unused and unexpired, sets the account's
    /// new password hash (its token version moves on) and marks every open reset token of the account used.
    /// - Returns: the account's id.
    /// - Throws: ``AccountStoreError/invalidToken``.
    public func completePasswordReset(tokenHash: String, newHash: String, now: Int64) throws -> String {
        try withStoreErrors {
            try pool.write { db in
                guard let reset = try StoredPasswordReset.fetchOne(db, key: tokenHash), reset.usedAt == nil, now < reset.expiresAt
                else { throw AccountStoreError.invalidToken }
                let changed = try StoredUser.filter(key: reset.userID).updateAll(
                    db, StoredUser.Columns.passwordHash.set(to: newHash), StoredUser.Columns.tokenVersion += 1)
                guard changed == 1 else { throw AccountStoreError.invalidToken }
                try StoredPasswordReset.filter(StoredPasswordReset.Columns.userID == reset.userID && StoredPasswordReset.Columns.usedAt == nil)
                    .updateAll(db, StoredPasswordReset.Columns.usedAt.set(to: now))
                return reset.userID
            }
        }
    }

    /// The reset token's record when it is unused and unexpired, else `nil`.
    public func openPasswordReset(tokenHash: String, now: Int64) throws -> StoredPasswordReset? {
        try withStoreErrors {
            try pool.read { db in
                guard let found = try StoredPasswordReset.fetchOne(db, key: tokenHash), found.usedAt == nil, now < found.expiresAt
                else { return nil }
                return found
            }
        }
    }
}
