import Crypto
import Foundation

/// Single-use secrets (invitation and password-reset tokens) and their stored form.
///
/// A token is 256 random bits from the system's CSPRNG (`SystemRandomNumberGenerator`: `getrandom(2)` on Linux),
/// written as unpadded base64url (RFC 4648 §5): 43 characters, safe in a URL query. The store keeps only
/// `SHA-256(token)` in lowercase hex (FIPS 180-4), so a copy of the store cannot be used to register or reset: the
/// token is a 256-bit preimage, and a fast hash is enough for a secret of that entropy (unlike a password).
public enum SecretToken {
    /// A new random token (32 bytes, base64url without padding).
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in bytes.indices { bytes[i] = UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    /// The stored form of `token`: lowercase hex SHA-256 of its UTF-8 bytes (64 characters).
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Unpadded base64url (RFC 4648 §5).
    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded (or padded) base64url; `nil` when it is not.
    static func base64URLDecode(_ text: some StringProtocol) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !s.contains("=") || s.count % 4 == 0 else { return nil }
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }
}
