import Crypto
import Foundation
import SentioStore

/// The claims of a portal access token.
///
/// `sub` = the account id, `role` = its role when issued, `iat` / `nbf` / `exp` = issued at, not before, expires
/// (NumericDate: seconds since 1970, RFC 7519 §2), and `ver` = the account's token version when issued (a password
/// change moves it on: earlier tokens are then refused).
public struct AccessClaims: Codable, Sendable, Equatable {
    public var sub: String
    public var role: AccountRole
    public var iat: Double
    public var nbf: Double
    public var exp: Double
    public var ver: Int

    public init(sub: String, role: AccountRole, iat: Double, nbf: Double, exp: Double, ver: Int) {
        self.sub = sub
        self.role = role
        self.iat = iat
        self.nbf = nbf
        self.exp = exp
        self.ver = ver
    }
}

/// Why a token was refused (never shown in detail to the client: every case is the same 401).
public enum AccessTokenError: Error, Equatable, CustomStringConvertible {
    case malformed, unsupportedAlgorithm, badSignature, missingClaims, expired, notYetValid

    public var description: String {
        switch self {
        case .malformed: "malformed token"
        case .unsupportedAlgorithm: "the token is not HS256"
        case .badSignature: "bad signature"
        case .missingClaims: "the token lacks sub, role, iat, nbf, exp or ver"
        case .expired: "expired"
        case .notYetValid: "not yet valid (nbf)"
        }
    }
}

/// HS256 JSON Web Tokens (RFC 7519 over JWS compact serialization, RFC 7515; HMAC-SHA-256, RFC 7518 §3.2), issued
/// and verified with one secret of at least 32 bytes.
///
/// Verification accepts only a header whose `alg` is `HS256` (so `alg: none` and every other algorithm are refused),
/// compares the signature in constant time (swift-crypto's `HMAC.isValidAuthenticationCode`), requires all six
/// claims, and checks `nbf ≤ now < exp` against the clock it is given.
public struct AccessTokenCodec: Sendable {
    let key: SymmetricKey
    /// Lifetime of an issued token: 30 days.
    public static let lifetime: TimeInterval = 30 * 86_400

    /// - Precondition: `secret` has at least 32 bytes (checked by the server's configuration first).
    public init(secret: String) {
        precondition(secret.utf8.count >= 32, "HS256 needs a secret of at least 32 bytes")
        key = SymmetricKey(data: Array(secret.utf8))
    }

    /// A token for `user`, valid from `now` for ``lifetime``.
    public func issue(for user: StoredUser, now: Date) -> String {
        let t = now.timeIntervalSince1970.rounded(.down)
        let claims = AccessClaims(sub: user.id, role: user.role, iat: t, nbf: t, exp: t + Self.lifetime, ver: user.tokenVersion)
        let header = SecretToken.base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = SecretToken.base64URL((try? encoder.encode(claims)) ?? Data())
        let input = header + "." + payload
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: key)
        return input + "." + SecretToken.base64URL(mac)
    }

    /// The claims of a valid token.
    /// - Throws: ``AccessTokenError``.
    public func verify(_ token: String, now: Date) throws(AccessTokenError) -> AccessClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = SecretToken.base64URLDecode(parts[0]),
              let payloadBytes = SecretToken.base64URLDecode(parts[1]), let signature = SecretToken.base64URLDecode(parts[2])
        else { throw .malformed }
        struct Header: Decodable { var alg: String }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { throw .malformed }
        guard header.alg == "HS256" else { throw .unsupportedAlgorithm }
        let input = Array((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key) else { throw .badSignature }
        guard let claims = try? JSONDecoder().decode(AccessClaims.self, from: Data(payloadBytes)), !claims.sub.isEmpty
        else { throw .missingClaims }
        let t = now.timeIntervalSince1970
        guard t < claims.exp else { throw .expired }
        guard claims.nbf <= t else { throw .notYetValid }
        return claims
    }
}
