import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

/// Seeded random files in many textual forms must all read back as the same series.
@Suite("OHLCVReader properties")
struct OHLCVReaderPropertyTests {
    func timestampText(_ t: Int64, form: Int) -> String {
        let iso = iso8601(epochSeconds: t)  // 2025-10-20T10:30:00Z
        switch form {
        case 0: return iso
        case 1: return String(iso.dropLast()).replacingOccurrences(of: "T", with: " ")
        case 2: return String(t)
        default:
            // The same instant written in UTC−05:00.
            let local = iso8601(epochSeconds: t - 5 * 3600)
            return String(local.dropLast()) + "-05:00"
        }
    }

    @Test func randomFormattingReadsBackTheSameSeries() throws {
        var rng = SplitMix64(seed: 2026)
        for trial in 0..<200 {
            let series = randomIndependentSeries(&rng, count: Int.random(in: 1...40, using: &rng))
            let names = ["timestamp", "open", "high", "low", "close", "volume", "note", "adj close"]
            let order = names.indices.shuffled(using: &rng)
            let form = Int.random(in: 0...3, using: &rng)
            let newline = Bool.random(using: &rng) ? "\r\n" : "\n"
            func cell(_ text: String) -> String {
                switch Int.random(in: 0...3, using: &rng) {
                case 0: return "\"\(text)\""
                case 1: return " \(text) "
                default: return text
                }
            }
            var text = Bool.random(using: &rng) ? "\u{FEFF}" : ""
            text += order.map { Bool.random(using: &rng) ? names[$0].uppercased() : names[$0] }.joined(separator: ",")
            for i in 0..<series.count {
                let values = [
                    timestampText(series.timestamps[i], form: form), "\(series.open[i])", "\(series.high[i])",
                    "\(series.low[i])", "\(series.close[i])", String(Int(series.volume[i])), "\"x, y\"", "1.5",
                ]
                text += newline + order.map { $0 == 6 ? values[6] : cell(values[$0]) }.joined(separator: ",")
            }
            if Bool.random(using: &rng) { text += newline }
            let parsed = try OHLCVReader.parse(text: text, file: "trial\(trial)", symbol: "R").series
            #expect(parsed == series, "trial \(trial)")
        }
    }

    @Test func lenientModeKeepsExactlyTheGoodRows() throws {
        var rng = SplitMix64(seed: 77)
        for _ in 0..<50 {
            let series = randomIndependentSeries(&rng, count: 60)
            var lines = ["timestamp,open,high,low,close,volume"]
            var expected = OHLCVSeries(symbol: "R")
            var badLines: [Int] = []
            for i in 0..<series.count {
                let bar = series[bar: i]
                var row = [iso8601(epochSeconds: bar.timestamp), "\(bar.open)", "\(bar.high)", "\(bar.low)", "\(bar.close)", "\(bar.volume)"]
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    let field = Int.random(in: 0...5, using: &rng)
                    row[field] = field == 0 ? "yesterday" : "-\(row[field])"
                    badLines.append(lines.count + 1)
                } else {
                    expected.append(timestamp: bar.timestamp, open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume)
                }
                lines.append(row.joined(separator: ","))
            }
            guard !expected.isEmpty else { continue }
            let result = try OHLCVReader.parse(text: lines.joined(separator: "\n"), symbol: "R", options: ReadOptions(lenient: true))
            #expect(result.series == expected)
            #expect(result.skipped.map(\.line) == badLines)
        }
    }
}
