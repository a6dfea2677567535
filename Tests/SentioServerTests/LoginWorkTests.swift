import Foundation
import NIOConcurrencyHelpers
@testable import SentioServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every bcrypt operation a hasher performed: `hash` or `verify`, and the cost (of the new hash, or read from the
/// hash verified against).
final class BcryptLog: Sendable {
    struct Entry: Equatable, CustomStringConvertible {
        var operation: String
        var cost: UInt8?
        var description: String { "\(operation)@\(cost.map(String.init) ?? "?")" }
    }
    private let entries = NIOLockedValueBox<[Entry]>([])

    /// The real operations, each recorded before it runs.
    var operations: BcryptOperations {
        BcryptOperations(
            hash: { [self] password, cost in
                entries.withLockedValue { $0.append(Entry(operation: "hash", cost: cost)) }
                return BcryptOperations.hummingbird.hash(password, cost)
            },
            verify: { [self] password, hash in
                entries.withLockedValue { $0.append(Entry(operation: "verify", cost: PasswordHasher.cost(ofHash: hash))) }
                return BcryptOperations.hummingbird.verify(password, hash)
            })
    }

    /// The entries since the last call, and a fresh start.
    func take() -> [Entry] { entries.withLockedValue { e in defer { e = [] }; return e } }
}

@Suite("no account enumeration: a login's bcrypt work is the same for an unknown email, a wrong and a right password")
struct LoginWorkTests {
    @Test("over HTTP: unknown email, malformed email, wrong password and right password each perform exactly one verification at the accounts' cost, and no hash")
    func oneVerificationPerLogin() async throws {
        let log = BcryptLog()
        let hasher = PasswordHasher(cost: 10, bcrypt: log.operations)
        let h = try await ServerHarness(hasher: hasher)
        defer { Task { try? await h.stop() } }
        try h.addAccount("gina@example.com", funds: ["NVP-III"])
        let made = log.take()
        #expect(made == [BcryptLog.Entry(operation: "hash", cost: 10)], "adding the account: \(made)")

        func attempt(_ email: String, _ password: String) async throws -> (status: Int, work: [BcryptLog.Entry]) {
            let reply = try await h.request("/api/auth/callback/credentials", method: .POST,
                                            body: #"{"email":"\#(email)","password":"\#(password)"}"#)
            return (reply.status, log.take())
        }
        // Each case on a fresh email or after a success, so that no rate limit is reached (5 failures per account).
        let unknown = try await attempt("nobody@example.com", "correct horse battery")
        let secondUnknown = try await attempt("nobody-else@example.com", "correct horse battery")
        let malformed = try await attempt("not an email", "correct horse battery")
        let wrong = try await attempt("gina@example.com", "wrong horse battery")
        let right = try await attempt("gina@example.com", "correct horse battery")
        #expect(unknown.status == 401 && secondUnknown.status == 401 && malformed.status == 401 && wrong.status == 401)
        #expect(right.status == 200)
        let one = [BcryptLog.Entry(operation: "verify", cost: 10)]
        for (name, work) in [("unknown email", unknown.work), ("second unknown email", secondUnknown.work),
                             ("malformed email", malformed.work), ("wrong password", wrong.work), ("right password", right.work)] {
            #expect(work == one, "\(name): \(work)")
        }
        #expect(unknown.work == wrong.work && wrong.work == right.work)
    }

    @Test("a rate-limited login performs no bcrypt work, whether or not the account exists")
    func rateLimitedDoesNoWork() async throws {
        let log = BcryptLog()
        let h = try await ServerHarness(hasher: PasswordHasher(cost: 10, bcrypt: log.operations))
        defer { Task { try? await h.stop() } }
        try h.addAccount("hal@example.com")
        for email in ["hal@example.com", "nobody@example.com"] {
            for _ in 0..<5 {
                _ = try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"\#(email)","password":"wrong horse battery"}"#)
            }
        }
        _ = log.take()
        for email in ["hal@example.com", "nobody@example.com"] {
            let reply = try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"\#(email)","password":"correct horse battery"}"#)
            #expect(reply.status == 429)
            #expect(log.take().isEmpty, "\(email)")
        }
    }

    @Test("the unknown-account hash is a well-formed $2b$ hash at the hasher's cost that bcrypt fully computes and no password matches")
    func unknownAccountHash() throws {
        for cost: UInt8 in [10, 12] {
            let hasher = PasswordHasher(cost: cost)
            let dummy = hasher.unknownAccountHash
            #expect(dummy.count == 60 && dummy.hasPrefix("$2b$\(cost)$"), "\(dummy)")
            #expect(PasswordHasher.cost(ofHash: dummy) == cost)
            #expect(PasswordHasher(cost: cost).unknownAccountHash != dummy, "the salt and digest are random")
        }
        let hasher = PasswordHasher(cost: 10)
        // OpenBSD's bcrypt_checkpass sets errno: EACCES after computing the hash and finding it differs, EINVAL when the
        // hash is refused before any work. The unknown-account hash must be the first kind, like a real hash.
        func errnoAfterVerify(_ hash: String) -> Int32 {
            errno = 0
            _ = BcryptOperations.hummingbird.verify("correct horse battery", hash)
            return errno
        }
        let real = BcryptOperations.hummingbird.hash("another password", 10)
        #expect(errnoAfterVerify(real) == EACCES, "control: a real hash, wrong password")
        #expect(errnoAfterVerify("$2b$10$not-base64!") == EINVAL, "control: a malformed hash")
        #expect(errnoAfterVerify(hasher.unknownAccountHash) == EACCES)
        #expect(!hasher.verifyNothing("correct horse battery"))
        #expect(!BcryptOperations.hummingbird.verify("", hasher.unknownAccountHash))
    }

    @Test("bcrypt's base64 as OpenBSD writes it: the salts and digests of real hashes decode and re-encode to themselves")
    func bcryptBase64MatchesOpenBSD() {
        let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        // A decoder written from the encoding's definition: 6 bits per character, most significant first.
        func decode(_ text: Substring, bytes: Int) -> [UInt8] {
            var bits: [Bool] = []
            for c in text {
                let v = alphabet.firstIndex(of: c)!
                for k in (0..<6).reversed() { bits.append((v >> k) & 1 == 1) }
            }
            return (0..<bytes).map { b in (0..<8).reduce(UInt8(0)) { acc, k in acc << 1 | (bits[b * 8 + k] ? 1 : 0) } }
        }
        for k in 0..<8 {
            let hash = BcryptOperations.hummingbird.hash("password \(k)", 4 + UInt8(k % 2))
            let body = hash.dropFirst(7)
            let salt = body.prefix(22), digest = body.dropFirst(22)
            #expect(PasswordHasher.bcryptBase64(decode(salt, bytes: 16)) == String(salt), "\(hash)")
            #expect(PasswordHasher.bcryptBase64(decode(digest, bytes: 23)) == String(digest), "\(hash)")
        }
    }
}
