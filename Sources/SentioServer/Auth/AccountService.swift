import Foundation
import NIOConcurrencyHelpers
import SentioCore
import SentioStore

/// Why an account request was refused; the server maps each case to one status and body.
public enum AccountError: UserInputError, Equatable {
    /// Wrong email or password (401 `{"error": "Invalid credentials"}`: the same for an unknown email).
    case invalidCredentials
    /// No valid bearer token, or one of a removed account or an older password (401).
    case unauthorized
    /// Too many failures from this client or for this account (429 with `Retry-After`).
    case rateLimited(retryAfter: Int)
    /// A request that breaks a rule (400), with the reason.
    case invalid(String)
    /// The caller's role may not do this (403).
    case forbidden
    /// Something the server was not configured for (503), with the reason.
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalidCredentials: "Invalid credentials"
        case .unauthorized: "invalid or expired token"
        case .rateLimited(let s): "too many attempts: retry after \(s) s"
        case .invalid(let reason): reason
        case .forbidden: "this account's role may not do this"
        case .unavailable(let reason): reason
        }
    }
}

/// The rules of portal accounts, one implementation for the server and the `sentio users` command.
public enum AccountRules {
    /// Invitations expire 7 days after they are made.
    public static let invitationLifetime: TimeInterval = 7 * 86_400
    /// Password-reset tokens expire 1 hour after they are made.
    public static let resetLifetime: TimeInterval = 3_600
    /// The shortest accepted password, in characters.
    public static let minimumPasswordLength = 10
    /// The longest accepted password, in UTF-8 bytes (bcrypt reads no further).
    public static let maximumPasswordBytes = 72

    /// The email trimmed of spaces and lowercased, or `nil` when it is not `LOCAL@DOMAIN` (one `@`, both parts
    /// non-empty, no whitespace or control characters, a dot in the domain, at most 254 characters).
    public static func normalizedEmail(_ text: String) -> String? {
        let email = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !email.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) || CharacterSet.controlCharacters.contains($0) || $0 == "<" || $0 == ">" })
        else { return nil }
        return email
    }

    /// `nil` when `password` is acceptable for `email`, else the reason: fewer than 10 characters, more than 72
    /// UTF-8 bytes, or the email itself (compared without regard to case).
    public static func passwordProblem(_ password: String, email: String) -> String? {
        if password.count < minimumPasswordLength {
            return "the password is too weak: it must have at least \(minimumPasswordLength) characters"
        }
        if password.utf8.count > maximumPasswordBytes {
            return "the password is too long: at most \(maximumPasswordBytes) bytes (bcrypt reads no further)"
        }
        if password.lowercased() == email.lowercased() {
            return "the password is too weak: it must not be the email"
        }
        return nil
    }

    /// A name part trimmed, `nil` when empty; over 100 characters or with control characters is an error.
    static func namePart(_ text: String?, field: String) throws(AccountError) -> String? {
        guard let t = text?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
        guard t.count <= 100, !t.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw .invalid("\(field): at most 100 characters, no control characters")
        }
        return t
    }
}

/// Accounts, invitations, login, tokens and password resets over a store (no HTTP here: the routes call it).
///
/// Every method blocks (bcrypt and SQLite): the server calls them off its event loops. The clock is injected
/// (`now`), so tests move time instead of waiting.
public final class AccountService: Sendable {
    public let database: SentioDatabase
    public let hasher: PasswordHasher
    /// `nil` when no JWT secret is configured: login and every authenticated request are refused.
    public let tokens: AccessTokenCodec?
    /// Login failures and reset requests, per client IP and per account.
    public let limiter: FailureLimiter
    /// Where reset mails go; `nil`: reset requests are refused (503).
    public let outbox: MailOutbox?
    let clock: @Sendable () -> Date
    /// The base of the reset link (`https://portal.example.com`); set when the server knows its address.
    let publicURL: NIOLockedValueBox<String>

    public init(
        database: SentioDatabase, secret: String?, hasher: PasswordHasher = PasswordHasher(), limiter: FailureLimiter = FailureLimiter(),
        outbox: MailOutbox? = nil, publicURL: String = "http://127.0.0.1:8080", clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.hasher = hasher
        tokens = secret.map(AccessTokenCodec.init(secret:))
        self.limiter = limiter
        self.outbox = outbox
        self.clock = clock
        self.publicURL = NIOLockedValueBox(publicURL)
    }

    public var now: Date { clock() }

    /// Sets the base of reset links (the server's public address).
    public func setPublicURL(_ url: String) {
        publicURL.withLockedValue { $0 = url.hasSuffix("/") ? String(url.dropLast()) : url }
    }

    // MARK: Accounts

    /// Creates an account directly (the `sentio users add` path).
    /// - Throws: ``AccountError/invalid(_:)`` for a bad email or weak password, `AccountStoreError` for a taken email.
    public func addUser(
        email: String, role: AccountRole, funds: [String], password: String, firstName: String? = nil, lastName: String? = nil
    ) throws -> StoredUser {
        let user = try newAccount(email: email, role: role, password: password, firstName: firstName, lastName: lastName)
        try database.createUser(user, funds: try Self.checkedFunds(funds))
        return user
    }

    /// A new account's record (not stored yet): the email normalized, the password checked and hashed (bcrypt), the
    /// names checked; the one place accounts are made, for every app.
    /// - Throws: ``AccountError/invalid(_:)`` for a bad email, a weak password or a bad name.
    public func newAccount(email: String, role: AccountRole, password: String, firstName: String?, lastName: String?) throws -> StoredUser {
        guard let email = AccountRules.normalizedEmail(email) else { throw AccountError.invalid("'\(email)' is not an email address") }
        if let problem = AccountRules.passwordProblem(password, email: email) { throw AccountError.invalid(problem) }
        return StoredUser(
            id: UUID().uuidString.lowercased(), email: email, firstName: try AccountRules.namePart(firstName, field: "firstName"),
            lastName: try AccountRules.namePart(lastName, field: "lastName"), role: role, passwordHash: hasher.hash(password),
            createdAt: Int64(now.timeIntervalSince1970))
    }

    static func checkedFunds(_ funds: [String]) throws(AccountError) -> [String] {
        let trimmed = funds.map { $0.trimmingCharacters(in: .whitespaces) }
        if trimmed.contains(where: \.isEmpty) { throw .invalid("a fund id is empty") }
        return trimmed
    }

    /// Makes an invitation for `email` (no account may have it yet).
    /// - Returns: the token (shown once; only its hash is stored), the app link and the expiry.
    public func invite(email: String, role: AccountRole, funds: [String]) throws -> (token: String, link: String, invitation: StoredInvitation) {
        guard let email = AccountRules.normalizedEmail(email) else { throw AccountError.invalid("'\(email)' is not an email address") }
        if try database.user(email: email) != nil { throw AccountStoreError.emailTaken(email) }
        let token = SecretToken.generate()
        let t = Int64(now.timeIntervalSince1970)
        let invitation = StoredInvitation(
            tokenHash: SecretToken.hash(token), email: email, role: role, funds: try Self.checkedFunds(funds), createdAt: t,
            expiresAt: t + Int64(AccountRules.invitationLifetime))
        try database.saveInvitation(invitation)
        return (token, "onelpm://register?token=\(token)", invitation)
    }

    /// The invitation's email when the token is open (unused, unexpired), else `nil`.
    public func validateInvitation(token: String) throws -> String? {
        try database.openInvitation(tokenHash: SecretToken.hash(token), now: Int64(now.timeIntervalSince1970))?.email
    }

    /// Registers from an invitation: the email must be the invitation's, the password acceptable.
    public func register(token: String, email: String, password: String, firstName: String?, lastName: String?) throws -> StoredUser {
        guard let normalized = AccountRules.normalizedEmail(email) else { throw AccountError.invalid("'\(email)' is not an email address") }
        let hash = SecretToken.hash(token)
        let t = Int64(now.timeIntervalSince1970)
        guard let invitation = try database.openInvitation(tokenHash: hash, now: t) else {
            throw AccountError.invalid(AccountStoreError.invalidToken.description)
        }
        guard invitation.email == normalized else { throw AccountError.invalid(AccountStoreError.emailMismatch.description) }
        if let problem = AccountRules.passwordProblem(password, email: normalized) { throw AccountError.invalid(problem) }
        let user = StoredUser(
            id: UUID().uuidString.lowercased(), email: normalized, firstName: try AccountRules.namePart(firstName, field: "firstName"),
            lastName: try AccountRules.namePart(lastName, field: "lastName"), role: invitation.role,
            passwordHash: hasher.hash(password), createdAt: t)
        do {
            return try database.redeemInvitation(tokenHash: hash, user: user, now: t)
        } catch let e as AccountStoreError {
            throw AccountError.invalid(e.description)
        }
    }

    // MARK: Login and tokens

    /// The rate-limit keys of an attempt of `kind` (`login`, `reset`): the client IP and the account, each counted
    /// apart per kind (reset requests do not use up login attempts).
    static func keys(_ kind: String, email: String, client: String) -> [String] {
        ["\(kind)-ip:" + client, "\(kind)-account:" + (AccountRules.normalizedEmail(email) ?? email.lowercased())]
    }

    /// Logs in: the account and a new token, or ``AccountError/invalidCredentials``. Every attempt that is not
    /// rate limited performs exactly one bcrypt verification and no hash: against the account's hash, or, for an
    /// unknown (or malformed) email, against ``PasswordHasher/unknownAccountHash`` at the hasher's cost — the same
    /// work whether or not the email has an account. A client or account with 5 failures in 15 minutes gets
    /// ``AccountError/rateLimited(retryAfter:)`` without a password check.
    public func login(email: String, password: String, client: String) throws(AccountError) -> (user: StoredUser, token: String) {
        guard let tokens else { throw .unavailable("the LP portal is off: no SENTIO_JWT_SECRET is configured") }
        let keys = Self.keys("login", email: email, client: client)
        if let wait = limiter.retryAfter(keys, now: now) { throw .rateLimited(retryAfter: wait) }
        let found = AccountRules.normalizedEmail(email).flatMap { try? database.user(email: $0) }
        let ok = found.map { hasher.verify(password, hash: $0.passwordHash) } ?? hasher.verifyNothing(password)
        guard ok, let user = found else {
            limiter.record(keys, now: now)
            throw .invalidCredentials
        }
        limiter.clear(keys[1])
        return (user, tokens.issue(for: user, now: now))
    }

    /// The account a bearer token stands for: signature, `nbf ≤ now < exp`, the account still exists and its token
    /// version is the token's (no password change since).
    public func authenticate(token: String) throws(AccountError) -> StoredUser {
        guard let tokens else { throw .unauthorized }
        guard let claims = try? tokens.verify(token, now: now),
              let user = try? database.user(id: claims.sub), user.tokenVersion == claims.ver
        else { throw .unauthorized }
        return user
    }

    // MARK: Password reset

    /// Writes a reset mail when `email` has an account; answers the same either way. Counts as one attempt for the
    /// client and the account (5 in 15 minutes, then ``AccountError/rateLimited(retryAfter:)``).
    public func requestPasswordReset(email: String, client: String) throws {
        guard let outbox else { throw AccountError.unavailable("password reset is off: the server has no --mail-dir to write mail to") }
        let keys = Self.keys("reset", email: email, client: client)
        if let wait = limiter.retryAfter(keys, now: now) { throw AccountError.rateLimited(retryAfter: wait) }
        limiter.record(keys, now: now)
        guard let normalized = AccountRules.normalizedEmail(email), let user = try database.user(email: normalized) else { return }
        let token = SecretToken.generate()
        let t = Int64(now.timeIntervalSince1970)
        try database.savePasswordReset(StoredPasswordReset(
            tokenHash: SecretToken.hash(token), userID: user.id, createdAt: t, expiresAt: t + Int64(AccountRules.resetLifetime)))
        let link = publicURL.withLockedValue { $0 } + "/reset-password?token=" + token
        try outbox.send(to: user.email, subject: "Reset your OneLPM password", body: """
            Hello\(user.firstName.map { " " + $0 } ?? ""),

            someone asked to reset the password of the OneLPM account \(user.email).
            To choose a new password, open this link within one hour:

            \(link)

            If it was not you, ignore this message: your password stays as it is.
            """, date: now)
    }

    /// Sets a new password with a reset token (single use, 1 hour); earlier access tokens are refused afterwards.
    /// Invalid tokens count as failures of the client (5 in 15 minutes, then 429).
    public func resetPassword(token: String, password: String, client: String) throws {
        let keys = ["reset-token-ip:" + client]
        if let wait = limiter.retryAfter(keys, now: now) { throw AccountError.rateLimited(retryAfter: wait) }
        let hash = SecretToken.hash(token)
        let t = Int64(now.timeIntervalSince1970)
        guard let reset = try database.openPasswordReset(tokenHash: hash, now: t), let user = try database.user(id: reset.userID) else {
            limiter.record(keys, now: now)
            throw AccountError.invalid(AccountStoreError.invalidToken.description)
        }
        if let problem = AccountRules.passwordProblem(password, email: user.email) { throw AccountError.invalid(problem) }
        do {
            _ = try database.completePasswordReset(tokenHash: hash, newHash: hasher.hash(password), now: t)
        } catch let e as AccountStoreError {
            throw AccountError.invalid(e.description)
        }
    }
}
