import SentioCore

/// The rule for a document link in a fund events file (column `url`).
///
/// A url is an absolute `http` or `https` URL the apps can open as it is:
/// - it starts with `http://` or `https://` (scheme in any case), followed by a non-empty host made of
///   letters, digits, `-`, `.` and an optional `:port` (digits), then optionally a path, query or fragment
///   starting with `/`, `?` or `#`;
/// - every character is printable ASCII (`!` to `~`): no space, no control character, no non-ASCII letter
///   (percent-encode it), and none of `"`, `<`, `>`, `\`, `^`, `{`, `|`, `}` and the backquote;
/// - a `%` starts a percent-escape of two hexadecimal digits;
/// - at most 2,048 characters.
///
/// Anything else (a relative path, `ftp:`, `javascript:`, `www.example.com` without a scheme, a stray space)
/// is rejected with the reason, so a file never yields a link that no client can follow.
public enum FundDocumentURL {
    /// Why `text` is not an acceptable document link, in words, or `nil` when it is one.
    public static func problem(_ text: String) -> String? {
        let shown = EchoedText.quoted(text)
        let bytes = Array(text.utf8)
        guard bytes.count <= 2048 else { return "url of \(bytes.count) characters is too long (at most 2048)" }
        for b in bytes {
            guard b >= 0x21 && b <= 0x7E else {
                return "\(shown) is not a url: it holds a space, control or non-ASCII character (percent-encode it)"
            }
            if Array("\"<>\\^`{|}".utf8).contains(b) {
                return "\(shown) is not a url: the character '\(Character(Unicode.Scalar(b)))' is not allowed (percent-encode it)"
            }
        }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = text.dropFirst(7)
        } else {
            return "\(shown) is not a url (expected an absolute http:// or https:// address)"
        }
        let hostAndPort = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let parts = hostAndPort.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0]
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }),
            !host.hasPrefix("."), !host.hasPrefix("-")
        else {
            return "\(shown) is not a url: the host must be letters, digits, '-' and '.' (as in https://example.com/doc.pdf)"
        }
        if parts.count == 2 {
            let port = parts[1]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return "\(shown) is not a url: the port after ':' must be digits"
            }
        }
        var k = 0
        while k < bytes.count {
            if bytes[k] == UInt8(ascii: "%") {
                func hex(_ i: Int) -> Bool {
                    guard i < bytes.count else { return false }
                    let c = bytes[i] | 0x20
                    return (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                }
                guard hex(k + 1) && hex(k + 2) else {
                    return "\(shown) is not a url: '%' must start a percent-escape of two hexadecimal digits"
                }
                k += 3
            } else {
                k += 1
            }
        }
        return nil
    }
}
