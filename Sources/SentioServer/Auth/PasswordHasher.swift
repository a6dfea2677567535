import HummingbirdBcrypt

/// The two bcrypt operations ``PasswordHasher`` performs: hummingbird-auth's by default (``hummingbird``); a test
/// wraps them to count the work of a login (how many hashes and verifications, at which cost).
public struct BcryptOperations: Sendable {
    /// A new hash of a password at a cost (random salt).
    public var hash: @Sendable (_ password: String, _ cost: UInt8) -> String
    /// Whether a password matches a hash (`false` for a malformed one).
    public var verify: @Sendable (_ password: String, _ hash: String) -> Bool

    public init(
        hash: @escaping @Sendable (_ password: String, _ cost: UInt8) -> String,
        verify: @escaping @Sendable (_ password: String, _ hash: String) -> Bool
    ) {
        self.hash = hash
        self.verify = verify
    }

    /// hummingbird-auth's `HummingbirdBcrypt` (OpenBSD's implementation, `$2b$`).
    public static let hummingbird = BcryptOperations(
        hash: { Bcrypt.hash($0, cost: $1) }, verify: { Bcrypt.verify($0, hash: $1) })
}

/// Password hashing with bcrypt (Provos & Mazières, "A Future-Adaptable Password Scheme", USENIX 1999), through
/// hummingbird-auth's `HummingbirdBcrypt` (OpenBSD's implementation, `$2b$`).
///
/// The cost is the base-2 logarithm of the key-expansion rounds: each step doubles the work. Sentio refuses costs
/// below 10. bcrypt reads at most 72 bytes of a password, so ``AccountRules/passwordProblem(_:email:)`` refuses
/// longer ones rather than silently ignoring their tail.
///
/// Hashing and verifying are deliberately slow (tens to hundreds of milliseconds): the server runs them off its
/// event loops (see `SentioHTTPServer`).
///
/// **No account enumeration by timing**: a login performs exactly one bcrypt verification whether or not the email
/// has an account — against the account's hash, or, for an unknown email, against ``unknownAccountHash`` (same
/// cost, made without any bcrypt work, so the first unknown email costs no more than the next).
public struct PasswordHasher: Sendable {
    /// The bcrypt cost of new hashes (≥ 10).
    public let cost: UInt8
    /// The bcrypt operations used (``BcryptOperations/hummingbird`` unless a test injects others).
    public let bcrypt: BcryptOperations
    /// A well-formed `$2b$` hash at ``cost`` with a random salt and a random digest, which no password matches
    /// (short of a 184-bit collision): an unknown email is verified against it, so that a login does the same
    /// bcrypt work whether or not the account exists. Made from random bytes at `init`, with no bcrypt work.
    public let unknownAccountHash: String

    public init(cost: UInt8 = 12, bcrypt: BcryptOperations = .hummingbird) {
        precondition(cost >= 10 && cost <= 31, "bcrypt cost must be in 10...31")
        self.cost = cost
        self.bcrypt = bcrypt
        var random = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let digest = (0..<23).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        unknownAccountHash = "$2b$" + String(cost) + "$"
            + Self.bcryptBase64(salt) + Self.bcryptBase64(digest)
    }

    /// A new bcrypt hash of `password` (random salt).
    public func hash(_ password: String) -> String {
        bcrypt.hash(password, cost)
    }

    /// Whether `password` matches `hash` (`false` for a malformed hash).
    public func verify(_ password: String, hash: String) -> Bool {
        bcrypt.verify(password, hash)
    }

    /// The same work as ``verify(_:hash:)`` against a hash of no account (``unknownAccountHash``); always `false`.
    public func verifyNothing(_ password: String) -> Bool {
        _ = bcrypt.verify(password, unknownAccountHash)
        return false
    }

    /// The cost written in a `$2a$`/`$2b$`/`$2y$` hash (`$2b$12$…` → 12), or `nil` when it is not one.
    public static func cost(ofHash hash: String) -> UInt8? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, ["2a", "2b", "2y"].contains(parts[1]), parts[2].count == 2,
              parts[3].count == 53, let cost = UInt8(parts[2])
        else { return nil }
        return cost
    }

    /// bcrypt's base64 (alphabet `./A-Za-z0-9`, no padding), as OpenBSD's `encode_base64`: 16 bytes → 22
    /// characters (a salt), 23 bytes → 31 characters (a digest).
    static func bcryptBase64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var out = ""
        var i = 0
        while i < bytes.count {
            let b0 = Int(bytes[i])
            out.append(alphabet[b0 >> 2])
            guard i + 1 < bytes.count else { out.append(alphabet[(b0 & 0x03) << 4]); break }
            let b1 = Int(bytes[i + 1])
            out.append(alphabet[((b0 & 0x03) << 4) | (b1 >> 4)])
            guard i + 2 < bytes.count else { out.append(alphabet[(b1 & 0x0f) << 2]); break }
            let b2 = Int(bytes[i + 2])
            out.append(alphabet[((b1 & 0x0f) << 2) | (b2 >> 6)])
            out.append(alphabet[b2 & 0x3f])
            i += 3
        }
        return out
    }
}
