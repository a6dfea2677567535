import Foundation
import JWTKit

/// An investor's verified Apple identity token: `sub` (the user id), `email` and `exp`.
public struct AppleIdentity: Sendable, Equatable {
    public var userID: String
    public var email: String?
    /// `exp`, UTC epoch seconds.
    public var expiresAt: Int64
}

/// Why an identity token was refused (the reason goes into 401 answers and `Token refresh failed: <reason>`).
public struct AppleTokenError: Error, CustomStringConvertible, Equatable {
    public var description: String
}

/// Verifies Sign in with Apple identity tokens: RS256 JWTs signed by a key of a JWKS (the `kid` header selects it;
/// in production Apple's published keys, `--apple-jwks FILE`), issuer `https://appleid.apple.com`, audience the
/// app's (`--apple-audience`), not expired (`exp`). jwt-kit does the cryptography and the claim checks.
public struct AppleIdentityVerifier: Sendable {
    public static let issuer = "https://appleid.apple.com"
    let keys: JWTKeyCollection
    /// The key ids of the JWKS: a token's `kid` must be one of them (jwt-kit would otherwise fall back to a
    /// default key).
    let kids: Set<String>
    public let audience: String

    /// - Parameters:
    ///   - jwks: the JSON Web Key Set (`{"keys": [{"kty": "RSA", "kid", "alg": "RS256", "n", "e"}, …]}`).
    ///   - audience: the `aud` a token must carry.
    /// - Throws: ``AppleTokenError`` when the key set cannot be read.
    public init(jwks: String, audience: String) async throws {
        let keys = JWTKeyCollection()
        do { _ = try await keys.add(jwksJSON: jwks) } catch {
            throw AppleTokenError(description: "the JWKS cannot be read: \(error)")
        }
        struct KeySet: Decodable {
            struct Key: Decodable { var kid: String? }
            var keys: [Key]
        }
        let kids = Set(((try? JSONDecoder().decode(KeySet.self, from: Data(jwks.utf8)))?.keys ?? []).compactMap(\.kid))
        guard !kids.isEmpty else { throw AppleTokenError(description: "the JWKS has no key with a kid") }
        self.kids = kids
        self.keys = keys
        self.audience = audience
    }

    /// The identity of `token`.
    /// - Throws: ``AppleTokenError`` saying why it is refused (bad signature, unknown key, wrong issuer or audience, expired).
    public func verify(_ token: String) async throws -> AppleIdentity {
        let header = Self.header(token)
        guard header?.alg == "RS256" else { throw AppleTokenError(description: "the token is not signed with RS256") }
        guard let kid = header?.kid, kids.contains(kid) else {
            throw AppleTokenError(description: "the token's key (kid) is not in the key set")
        }
        do {
            let payload = try await keys.verify(token, as: AppleIdentityToken.self, expectedAudience: audience)
            guard payload.issuer.value == Self.issuer else { throw AppleTokenError(description: "the issuer is not \(Self.issuer)") }
            return AppleIdentity(
                userID: payload.subject.value, email: payload.email,
                expiresAt: Int64(payload.expires.value.timeIntervalSince1970.rounded(.down)))
        } catch let e as AppleTokenError {
            throw e
        } catch let e as JWTError {
            throw AppleTokenError(description: Self.reason(e))
        } catch {
            throw AppleTokenError(description: "the token is not a valid identity token")
        }
    }

    /// The JOSE header's `alg` and `kid` (`nil` when the token has no readable header).
    static func header(_ token: String) -> (alg: String?, kid: String?)? {
        guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first, !first.isEmpty else { return nil }
        var text = first.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        struct Header: Decodable { var alg: String?; var kid: String? }
        guard let data = Data(base64Encoded: text), let h = try? JSONDecoder().decode(Header.self, from: data) else { return nil }
        return (h.alg, h.kid)
    }

    static func reason(_ error: JWTError) -> String {
        switch error.errorType {
        case .claimVerificationFailure:
            if let claim = error.failedClaim as? ExpirationClaim { return "the token expired at \(claim.value)" }
            if error.failedClaim is AudienceClaim { return "the token is not for this app (audience)" }
            if error.failedClaim is IssuerClaim { return "the issuer is not \(issuer)" }
            return "a claim of the token is not valid"
        case .signatureVerificationFailed: return "the signature does not verify"
        case .unknownKID: return "the token's key (kid) is not in the key set"
        case .malformedToken: return "the token is malformed"
        default: return "the token is not a valid identity token"
        }
    }
}
