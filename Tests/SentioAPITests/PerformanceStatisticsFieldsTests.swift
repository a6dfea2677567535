import Foundation
import SentioBacktest
import Testing

@testable import SentioAPI

/// The figures are declared once (SentioBacktest's `PerformanceStatistics`); the contracts read their names and
/// values by reflection. These tests pin that reading to the synthesized `Codable` form, so a figure of a type the
/// reflection does not know, or a reordering, fails here.
@Suite("PerformanceStatistics: the one declaration of the backtest figures")
struct PerformanceStatisticsFieldsTests {
    /// Keys of a JSON object in document order (APIJSON writes keys in encoding order).
    static func keys(_ json: String) -> [String] {
        json.split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("\""), let end = t.dropFirst().firstIndex(of: "\"") else { return nil }
            return String(t[t.index(after: t.startIndex)..<end])
        }
    }

    @Test("figure names by reflection = the Codable keys, in order; every value is read (seeded values)")
    func namesAndValues() throws {
        #expect(PerformanceStatistics.figureNames == Self.keys(try APIJSON.encode(PerformanceStatistics())))
        #expect(PerformanceStatistics.figureNames.count == 29)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var p = PerformanceStatistics()
            // Every figure set through its JSON form: integers for Int fields, random doubles otherwise.
            var object: [String: Any] = [:]
            for (name, value) in PerformanceStatistics().figures {
                if case .integer = value { object[name] = Int.random(in: -1_000...1_000, using: &rng) } else {
                    object[name] = Double.random(in: -1e6...1e6, using: &rng)
                }
            }
            p = try JSONDecoder().decode(PerformanceStatistics.self, from: JSONSerialization.data(withJSONObject: object))
            for (name, value) in p.figures {
                switch value {
                case .integer(let i): #expect(object[name] as? Int == i, "\(name)")
                case .number(let x): #expect(object[name] as? Double == x, "\(name)")
                case .undefined: Issue.record("\(name) was not read")
                }
            }
            #expect(p.textFields.allSatisfy { $0.value != nil })
        }
        // Undefined optionals are read as undefined, not as 0.
        let empty = PerformanceStatistics()
        #expect(empty.figures.filter { if case .undefined = $0.value { true } else { false } }.map(\.name)
            == ["moneyWeightedReturnPercent", "cagrPercent", "annualizedVolatilityPercent", "sharpeRatio", "sortinoRatio",
                "calmarRatio", "winRatePercent", "profitFactor", "averageTradePercent", "bestTradePercent",
                "worstTradePercent", "averageHoldingBars", "averageHoldingDays", "sqn"])
    }
}
