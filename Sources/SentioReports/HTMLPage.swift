import Foundation
import SentioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A headline figure: its machine key (`data-stat`), label, exact value and displayed text.
public struct Statistic: Sendable, Equatable {
    public var key: String
    public var label: String
    /// The unrounded value (`data-value`), `nil` when undefined (shown as "—").
    public var value: Double?
    public var text: String
    /// Colour the figure by its sign.
    public var signed: Bool

    public init(key: String, label: String, value: Double?, text: String, signed: Bool = false) {
        self.key = key; self.label = label; self.value = value; self.text = text; self.signed = signed
    }

    /// A figure formatted by `format` (or "—" when `value` is `nil` or not finite).
    public init(key: String, label: String, value: Double?, signed: Bool = false, format: (Double) -> String) {
        let shown = value.flatMap { $0.isFinite ? format($0) : nil } ?? "—"
        self.init(key: key, label: label, value: value, text: shown, signed: signed)
    }
}

/// A table cell: text plus how to align and colour it.
public struct TableCell: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case text, number, signedNumber(Double), badge(String) }
    public var text: String
    public var kind: Kind
    public init(_ text: String, _ kind: Kind = .number) { self.text = text; self.kind = kind }
    public static func text(_ s: String) -> TableCell { TableCell(s, .text) }
}

/// Builds a self-contained HTML report: inline CSS, inline SVG, no scripts, no external resources.
/// The document is also well-formed XML (void elements self-closed, only the five XML entities used), so
/// tests can parse it whole.
public struct HTMLPage {
    private var body = MarkupWriter()
    public let title: String

    public init(title: String, subtitle: String?) {
        self.title = title
        body.element("h1", text: title)
        if let subtitle { body.element("p", ["class": "lead"], text: subtitle) }
    }

    public mutating func heading(_ text: String, level: Int = 2, id: String? = nil) {
        body.element("h\(level)", ["id": id], text: text)
    }

    public mutating func note(_ text: String) { body.element("p", ["class": "note"], text: text) }

    /// A box listing warnings (`data-warnings` = their count), one item each.
    public mutating func warnings(_ items: [String]) {
        body.open("div", ["class": "warnings", "data-warnings": "\(items.count)"])
        body.element("strong", text: "Warnings")
        body.open("ul")
        for item in items { body.element("li", text: item) }
        body.close("ul")
        body.close("div")
    }

    /// A figure written elsewhere (e.g. ``HistogramChart/html()``), inserted as is.
    public mutating func figure(_ html: String) { body.raw(html) }

    public mutating func cards(_ stats: [Statistic], group: String) {
        body.open("dl", ["class": "cards", "data-stats": group])
        for s in stats {
            body.open("div", ["class": "card"])
            body.element("dt", text: s.label)
            var cls: String? = nil
            if s.signed, let v = s.value, v.isFinite, v != 0 { cls = v > 0 ? "pos" : "neg" }
            body.element("dd", ["class": cls, "data-stat": s.key, "data-value": s.value.map(NumberText.exact) ?? "null"], text: s.text)
            body.close("div")
        }
        body.close("dl")
    }

    public mutating func chart(_ chart: TimeSeriesChart) { body.raw(chart.html()) }

    /// A table; `rowLimit` caps the rows written (a note says how many were left out).
    public mutating func table(id: String, headers: [TableCell], rows: [[TableCell]], rowLimit: Int = .max, cssClass: String? = nil) {
        body.open("div", ["class": "scroll"])
        body.open("table", ["data-table": id, "data-rows": "\(min(rows.count, rowLimit))", "class": cssClass])
        body.open("thead")
        body.open("tr")
        for h in headers { body.element("th", ["class": h.kind == .text ? "text" : nil], text: h.text) }
        body.close("tr")
        body.close("thead")
        body.open("tbody")
        for row in rows.prefix(rowLimit) {
            body.open("tr")
            for cell in row {
                switch cell.kind {
                case .text:
                    body.element("td", ["class": "text"], text: cell.text)
                case .number:
                    body.element("td", text: cell.text)
                case .signedNumber(let v):
                    body.element("td", ["class": v > 0 ? "pos" : v < 0 ? "neg" : nil, "data-value": NumberText.exact(v)], text: cell.text)
                case .badge(let cls):
                    body.open("td", ["class": "text"])
                    body.element("span", ["class": "badge \(cls)"], text: cell.text)
                    body.close("td")
                }
            }
            body.close("tr")
        }
        body.close("tbody")
        body.close("table")
        body.close("div")
        if rows.count > rowLimit {
            note("Showing the first \(rowLimit) of \(rows.count) rows.")
        }
    }

    /// The complete document.
    public func document() -> String { Self.document(title: title, styleSheet: reportStyleSheet, body: body.text) }

    /// A complete report document: `title`, `styleSheet` inlined (constant CSS: no '<' or '&' in it) and `body`
    /// (markup) as the page's `main`.
    static func document(title: String, styleSheet: String, body: String) -> String {
        var w = MarkupWriter()
        w.raw("<!DOCTYPE html>\n")
        w.open("html", ["lang": "en"])
        w.open("head")
        w.open("meta", ["charset": "utf-8"], selfClosing: true)
        w.open("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"], selfClosing: true)
        w.open("meta", ["name": "color-scheme", "content": "light dark"], selfClosing: true)
        w.element("title", text: title)
        w.open("style")
        w.raw(styleSheet)
        w.close("style")
        w.close("head")
        w.open("body")
        w.open("main")
        w.raw(body)
        w.close("main")
        w.close("body")
        w.close("html")
        w.raw("\n")
        return w.text
    }
}

/// Writes `contents` to `path` atomically: a temporary file in the same directory, then `rename(2)`, which
/// replaces an existing file in one step (readers see the old or the new report, never half of one).
public func writeReportAtomically(_ contents: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent()
    // The name pattern of SentioData's OutputTransaction (`.NAME.sentio-tmp-PID-RANDOM`), so that a file left by a
    // killed process is recognized and removed by the next command writing into this folder.
    let temporary = directory.appendingPathComponent(
        ".\(url.lastPathComponent).sentio-tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    do {
        try Data(contents.utf8).write(to: temporary)
    } catch {
        throw ReportWriteError(path: path, reason: error.localizedDescription)
    }
    if rename(temporary.path, url.path) != 0 {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(at: temporary)
        throw ReportWriteError(path: path, reason: reason)
    }
}

/// A report file could not be written (missing directory, permissions).
public struct ReportWriteError: UserInputError {
    public var path: String
    public var reason: String
    public var description: String { "cannot write report \(path): \(reason)" }
}
