import HummingbirdBcrypt
import NIOConcurrencyHelpers

/// Password hashing with bcrypt (Provos & Mazières, "A Future-Adaptable Password Scheme", USENIX 1999), through
/// hummingbird-auth's `HummingbirdBcrypt` (OpenBSD's implementation, `$2b$`).
///
/// The cost is the base-2 logarithm of the key-expansion rounds: each step doubles the work. Sentio refuses costs
/// below 10. bcrypt reads at most 72 bytes of a password, so ``AccountRules/passwordProblem(_:email:)`` refuses
/// longer ones rather than silently ignoring their tail.
///
/// Hashing and verifying are deliberately slow (tens to hundreds of milliseconds): the server runs them off its
/// event loops (see `SentioHTTPServer`).
public struct PasswordHasher: Sendable {
    /// The bcrypt cost of new hashes (≥ 10).
    public let cost: UInt8
    /// A hash of a random password at `cost`, made on first use: an unknown email is checked against it, so that
    /// a login costs the same time whether or not the account exists.
    private let dummy = NIOLockedValueBox<String?>(nil)

    public init(cost: UInt8 = 12) {
        precondition(cost >= 10 && cost <= 31, "bcrypt cost must be in 10...31")
        self.cost = cost
    }

    var dummyHash: String {
        dummy.withLockedValue { d in
            if let d { return d }
            let made = Bcrypt.hash(SecretToken.generate(), cost: cost)
            d = made
            return made
        }
    }

    /// A new bcrypt hash of `password` (random salt).
    public func hash(_ password: String) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// Whether `password` matches `hash` (`false` for a malformed hash).
    public func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }

    /// The same work as ``verify(_:hash:)`` against a hash of no account; always `false`.
    public func verifyNothing(_ password: String) -> Bool {
        _ = Bcrypt.verify(password, hash: dummyHash)
        return false
    }
}
