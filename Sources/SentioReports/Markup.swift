import Foundation

/// Escapes text for XML and HTML content and attribute values.
///
/// `&`, `<`, `>`, `"` and `'` become entity references, tab, line feed and carriage return character
/// references (so they survive in attribute values); characters that XML 1.0 forbids (C0 controls other
/// than tab, line feed and carriage return, unpaired surrogates cannot occur in a Swift `String`, U+FFFE and
/// U+FFFF) become U+FFFD, so that any symbol or fund name yields a well-formed document.
/// Reference: XML 1.0 (Fifth Edition) §2.2 `Char` and §2.4 character data.
public func escapeMarkup(_ text: some StringProtocol) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        // As character references so that attribute-value normalisation (XML §3.3.3) keeps them.
        case "\t": out += "&#9;"
        case "\n": out += "&#10;"
        case "\r": out += "&#13;"
        default:
            if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                out += "\u{FFFD}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

/// A tiny append-only markup writer. Attribute values and text are escaped here, once; raw markup is only
/// ever appended through `raw(_:)` from strings this module builds itself.
struct MarkupWriter {
    private(set) var text = ""

    mutating func raw(_ s: String) { text += s }

    mutating func text(_ s: some StringProtocol) { text += escapeMarkup(s) }

    /// `<name a="v" ...>` (or `/>` when `selfClosing`). Attributes with a `nil` value are left out.
    mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:], selfClosing: Bool = false) {
        text += "<" + name
        for (key, value) in attributes {
            guard let value else { continue }
            text += " " + key + "=\"" + escapeMarkup(value) + "\""
        }
        text += selfClosing ? "/>" : ">"
    }

    mutating func close(_ name: String) { text += "</" + name + ">" }

    /// `<name ...>escaped text</name>`.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:], text content: String) {
        open(name, attributes)
        text(content)
        close(name)
    }
}

/// Number formatting for reports: fixed decimals, `,` thousands grouping, a real minus sign avoided on
/// purpose (ASCII `-` keeps the values greppable), `—` for values that are not finite.
public enum NumberText {
    /// `value` with `decimals` digits after the point, grouped by thousands when `grouping`.
    public static func fixed(_ value: Double, decimals: Int, grouping: Bool = true) -> String {
        guard value.isFinite else { return "—" }
        var s = String(format: "%.\(max(0, decimals))f", value)
        if s.hasPrefix("-"), s.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { s.removeFirst() }  // no "-0.00"
        guard grouping else { return s }
        let negative = s.hasPrefix("-")
        if negative { s.removeFirst() }
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = Array(parts[0])
        var grouped = ""
        for (i, c) in integer.enumerated() {
            if i > 0, (integer.count - i) % 3 == 0 { grouped.append(",") }
            grouped.append(c)
        }
        if parts.count > 1 { grouped += "." + parts[1] }
        return (negative ? "-" : "") + grouped
    }

    /// `12.34%` from a value already in percent.
    public static func percent(_ valuePercent: Double, decimals: Int = 2) -> String {
        valuePercent.isFinite ? fixed(valuePercent, decimals: decimals) + "%" : "—"
    }

    /// A shortened amount for axis labels: `1.5M`, `250K`, `1.2B`, plain below 10,000.
    public static func compact(_ value: Double, decimals: Int = 1) -> String {
        guard value.isFinite else { return "—" }
        let magnitude = abs(value)
        if magnitude >= 1e9 { return trimmed(fixed(value / 1e9, decimals: decimals)) + "B" }
        if magnitude >= 1e6 { return trimmed(fixed(value / 1e6, decimals: decimals)) + "M" }
        if magnitude >= 1e4 { return trimmed(fixed(value / 1e3, decimals: decimals)) + "K" }
        return fixed(value, decimals: magnitude >= 100 || value == value.rounded() ? 0 : 2)
    }

    private static func trimmed(_ s: String) -> String {
        guard s.contains(".") else { return s }
        var t = s
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t
    }

    /// Full precision, for `data-value` attributes that tests read back (shortest round-trip form).
    public static func exact(_ value: Double) -> String { value.isFinite ? "\(value)" : "NaN" }
}
