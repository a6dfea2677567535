import Foundation
import SentioCore

/// How numbers are written.
public enum NumberPrecision: String, Sendable, CaseIterable {
    /// Rounded for display (half away from zero): prices (`price`, `change`, `profitTarget`) to 4 decimals,
    /// everything else (`changePercent`, `confidence`, `targetReturn`, `stopLoss`, `aiSignal`, `rsi`,
    /// `volumeRatio`) to 2 decimals, then written in the shortest form (`102.45`, `1.8`).
    case display
    /// The shortest decimal that reads back as exactly the computed `Double` (Swift's `description`).
    case full
}

/// Writers for the `GET /signals` JSON, the history JSON and the history CSV. All output is deterministic
/// (fixed key order, locale-free number formatting, name-based ids): the same input gives the same bytes.
///
/// A number that does not exist yet (RSI or volume ratio during the first bars, or an all-zero-volume window)
/// is written as JSON `null` (an empty CSV cell); every other field always has its documented type.
public enum SignalEncoding {
    /// Identifies the model in history output.
    public static let modelName = "sentio-rolling-ols-v1"

    /// The `GET /signals` document: `{"timestamp": latest bar time, "signals": [...]}`, one signal per symbol.
    /// `timestamp` is the latest of the signals' timestamps (the empty string when there are none).
    public static func latestDocument(
        _ signals: [Signal], config: SignalModelConfig, precision: NumberPrecision = .display
    ) -> String {
        var out = "{\n  \"timestamp\": "
        appendString(&out, signals.map(\.timestamp).max().map { iso8601(epochSeconds: $0) } ?? "")
        out += ",\n  \"signals\": ["
        for (i, signal) in signals.enumerated() {
            out += i == 0 ? "\n    {\n" : ",\n    {\n"
            let fields = self.fields(signal, config: config, precision: precision, history: false)
            for (j, field) in fields.enumerated() {
                out += "      "
                appendString(&out, field.key)
                out += ": "
                out += field.value
                out += j == fields.count - 1 ? "\n" : ",\n"
            }
            out += "    }"
        }
        out += signals.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return out
    }

    /// The history document: the model name, the config used, the latest bar time, the number precision, and
    /// every bar's signal (one JSON object per line, symbols in the given order, bars in time order). Each
    /// signal has the `GET /signals` fields plus `warmUp` (true while the model is warming up) and `status`
    /// (the rule behind `signalType`: ``SignalReason``).
    public static func historyDocument(
        _ signalsBySymbol: [[Signal]], config: SignalModelConfig, precision: NumberPrecision = .full
    ) -> String {
        var out = "{\n  \"model\": "
        appendString(&out, modelName)
        out += ",\n  \"config\": "
        out += configJSON(config)
        out += ",\n  \"precision\": "
        appendString(&out, precision.rawValue)
        out += ",\n  \"timestamp\": "
        appendString(&out, signalsBySymbol.compactMap { $0.last?.timestamp }.max().map { iso8601(epochSeconds: $0) } ?? "")
        out += ",\n  \"signals\": ["
        var first = true
        for signals in signalsBySymbol {
            for signal in signals {
                out += first ? "\n    {" : ",\n    {"
                first = false
                let fields = self.fields(signal, config: config, precision: precision, history: true)
                for (j, field) in fields.enumerated() {
                    if j > 0 { out += ", " }
                    appendString(&out, field.key)
                    out += ": "
                    out += field.value
                }
                out += "}"
            }
        }
        out += first ? "]\n}\n" : "\n  ]\n}\n"
        return out
    }

    /// The CSV header of ``historyCSV(_:)``.
    public static let csvHeader = [
        "symbol", "timestamp", "id", "warmUp", "status", "price", "change", "changePercent", "signalType", "confidence",
        "targetReturn", "stopLoss", "profitTarget", "aiSignal", "rsi", "volumeRatio", "forecastLogReturn",
        "forecastStandardError", "adjustedRSquared", "atr",
    ]

    /// Every bar's signal as CSV (header ``csvHeader``), numbers at full precision, empty cells for missing
    /// values. The English texts are left out (they are in the JSON history).
    public static func historyCSV(_ signalsBySymbol: [[Signal]]) -> String {
        var out = csvHeader.joined(separator: ",") + "\n"
        for signals in signalsBySymbol {
            for s in signals {
                let cells: [String] = [
                    csvText(s.symbol), iso8601(epochSeconds: s.timestamp), s.id, s.isWarmUp ? "true" : "false",
                    s.reason.rawValue, csvNumber(s.price), csvNumber(s.change), csvNumber(s.changePercent),
                    s.signalType.rawValue, csvNumber(s.confidence), csvNumber(s.targetReturn), csvNumber(s.stopLoss),
                    csvNumber(s.profitTarget), csvNumber(s.aiSignal), csvNumber(s.rsi), csvNumber(s.volumeRatio),
                    csvNumber(s.forecastLogReturn), csvNumber(s.forecastStandardError), csvNumber(s.adjustedRSquared),
                    csvNumber(s.averageTrueRange),
                ]
                out += cells.joined(separator: ",")
                out += "\n"
            }
        }
        return out
    }

    /// The config as one-line JSON with sorted keys.
    public static func configJSON(_ config: SignalModelConfig) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a struct of Ints, Doubles and a Bool cannot fail.
        let data = try! encoder.encode(config)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: ",\"", with: ", \"")
            .replacingOccurrences(of: "\":", with: "\": ")
    }

    // MARK: - Fields

    /// The signal's fields as (key, JSON value) in `GET /signals` order.
    static func fields(
        _ s: Signal, config: SignalModelConfig, precision: NumberPrecision, history: Bool
    ) -> [(key: String, value: String)] {
        let price = precision == .display ? 4 : -1
        let other = precision == .display ? 2 : -1
        var fields: [(key: String, value: String)] = [
            ("id", quoted(s.id)),
            ("symbol", quoted(s.symbol)),
            ("timestamp", quoted(iso8601(epochSeconds: s.timestamp))),
            ("price", number(s.price, price)),
            ("change", number(s.change, price)),
            ("changePercent", number(s.changePercent, other)),
            ("signalType", quoted(s.signalType.rawValue)),
            ("confidence", number(s.confidence, other)),
            ("targetReturn", number(s.targetReturn, other)),
            ("stopLoss", number(s.stopLoss, other)),
            ("profitTarget", number(s.profitTarget, price)),
            ("aiSignal", number(s.aiSignal, other)),
            ("rsi", number(s.rsi, other)),
            ("volumeRatio", number(s.volumeRatio, other)),
            ("recommendation", quoted(SignalText.recommendation(for: s, config: config))),
            ("reasoning", quoted(SignalText.reasoning(for: s, config: config))),
        ]
        if history {
            fields.append(("warmUp", s.isWarmUp ? "true" : "false"))
            fields.append(("status", quoted(s.reason.rawValue)))
        }
        return fields
    }

    /// A JSON number: `null` when not finite; rounded to `decimals` (half away from zero) when `decimals ≥ 0`,
    /// else full precision; never `-0`.
    public static func number(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return "null" }
        var value = x
        if decimals >= 0 {
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            let scaled = (x * scale).rounded(.toNearestOrAwayFromZero)
            if abs(scaled) < 9.0e15 { value = scaled / scale }
        }
        return (value + 0.0).description  // + 0.0 turns −0 into +0
    }

    static func csvNumber(_ x: Double) -> String { x.isFinite ? (x + 0.0).description : "" }

    static func csvText(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func quoted(_ text: String) -> String {
        var out = ""
        appendString(&out, text)
        return out
    }

    /// Appends `text` as a JSON string literal (RFC 8259 escaping).
    static func appendString(_ out: inout String, _ text: String) {
        JSONText.appendQuoted(text, to: &out)
    }
}
