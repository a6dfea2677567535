import Foundation
import SentioCore

/// Plain-text renderings for a terminal: aligned tables of the contracts' values. The one place where results
/// are formatted as text (front ends print what these return).
public enum TextTable {
    /// Rows as an aligned table; the first row is the header, underlined with dashes. Columns are separated by two
    /// spaces; columns in `rightAligned` are padded on the left; trailing spaces are trimmed.
    public static func render(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        guard let header = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows {
            for (j, cell) in row.enumerated() where j < widths.count { widths[j] = max(widths[j], cell.count) }
        }
        func line(_ row: [String]) -> String {
            var text = row.enumerated().map { j, cell in
                let pad = String(repeating: " ", count: widths[j] - cell.count)
                return rightAligned.contains(j) ? pad + cell : cell + pad
            }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var lines = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines += rows.dropFirst().map(line)
        return lines.joined(separator: "\n")
    }

    /// Label/value pairs, labels padded to one width.
    public static func labelled(_ rows: [(String, String)]) -> String {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    /// A duration given in days, in the unit that reads: days from one day up, else hours from one hour up, else
    /// minutes (so minute bars' holding periods read `3.2 minutes`, not `0.0 days`); `n/a` when absent.
    public static func duration(days: Double?) -> String {
        guard let days, days.isFinite else { return "n/a" }
        if days >= 1 { return fixed(days, 1, " days") }
        if days * 24 >= 1 { return fixed(days * 24, 1, " hours") }
        return fixed(days * 1440, 1, " minutes")
    }

    /// `x` with `digits` decimals and `suffix`, or `n/a` when absent.
    public static func fixed(_ x: Double?, _ digits: Int = 2, _ suffix: String = "") -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.\(digits)f", x) + suffix
    }
}
