import Foundation
import Testing
@testable import SentioReports
import SentioCore
import SentioTestSupport

@Suite("Axes: nice value ticks and date ticks")
struct ScaleTests {
    @Test("Nice ticks cover the range with equal 1-2-5 steps (random ranges)")
    func niceTicksProperties() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let scale = pow(10, Double.random(in: -4...8, using: &rng))
            let a = Double.random(in: -1...1, using: &rng) * scale
            let b = a + Double.random(in: 0.001...3, using: &rng) * scale
            let count = Int.random(in: 2...10, using: &rng)
            let (ticks, step) = niceTicks(low: a, high: b, count: count)
            #expect(ticks.count >= 2)
            #expect(ticks.first! <= a + step * 1e-9 && ticks.last! >= b - step * 1e-9)
            let mantissa = step / pow(10, log10(step).rounded(.down))
            #expect([1.0, 2, 5, 10].contains { abs(mantissa - $0) < 1e-9 }, "step \(step)")
            for k in 1..<ticks.count {
                #expect(abs(ticks[k] - ticks[k - 1] - step) <= step * 1e-6)
            }
            // Not wider than needed: one step less on either side would not cover.
            #expect(ticks.first! > a - step && ticks.last! < b + step)
        }
    }

    @Test("Hand-checked nice ticks")
    func niceTicksExamples() {
        #expect(niceTicks(low: 0.3, high: 9.7, count: 6).ticks == [0, 2, 4, 6, 8, 10])
        #expect(niceTicks(low: 96_000, high: 131_000, count: 6).ticks == [90_000, 100_000, 110_000, 120_000, 130_000, 140_000])
        #expect(niceTicks(low: -23.4, high: 0, count: 6).ticks == [-25, -20, -15, -10, -5, 0])
        let flat = niceTicks(low: 5, high: 5, count: 5).ticks
        #expect(flat.first! < 5 && flat.last! > 5)
    }

    @Test("Date ticks fall on calendar boundaries inside the range, at most maxCount")
    func dateTickProperties() throws {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let start = Int64.random(in: 0...2_000_000_000, using: &rng)
            let span = Int64(pow(10, Double.random(in: 3.5...9.3, using: &rng)))
            let maxCount = Int.random(in: 3...12, using: &rng)
            let ticks = dateTicks(start: start, end: start + span, maxCount: maxCount)
            #expect(ticks.count <= maxCount + 1, "span \(span) gave \(ticks.count) ticks for max \(maxCount)")
            #expect(ticks.allSatisfy { $0.time >= start && $0.time <= start + span })
            #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0.time < $1.time })
            if span > 400 * 86_400 { #expect(!ticks.isEmpty) }
        }
    }

    @Test("Two years of daily bars get month or quarter labels on the first of the month")
    func twoYears() throws {
        let start = CivilDate(iso: "2023-01-02")!.epochSeconds
        let end = CivilDate(iso: "2024-12-31")!.epochSeconds
        let ticks = dateTicks(start: start, end: end, maxCount: 10)
        #expect(ticks.map(\.label).prefix(3) == ["Apr 2023", "Jul 2023", "Oct 2023"])
        #expect(ticks.allSatisfy { CivilDate(epochSeconds: $0.time).day == 1 })
        let decades = dateTicks(start: CivilDate(iso: "1990-06-01")!.epochSeconds, end: CivilDate(iso: "2025-01-01")!.epochSeconds, maxCount: 8)
        #expect(decades.map(\.label) == ["1995", "2000", "2005", "2010", "2015", "2020", "2025"])
    }

    @Test("Amount axes use one unit for every tick")
    func amountLabels() {
        #expect(ValueFormat.amount.tickLabels([0, 5_000, 10_000, 15_000], step: 5_000) == ["0", "5K", "10K", "15K"])
        #expect(ValueFormat.amount.tickLabels([0, 2_500, 5_000], step: 2_500) == ["0", "2,500", "5,000"])
        #expect(ValueFormat.amount.tickLabels([-5e6, 0, 5e6, 1e7], step: 5e6) == ["-5M", "0", "5M", "10M"])
        #expect(ValueFormat.amount.tickLabels([1.5e6, 2e6], step: 5e5) == ["1.5M", "2.0M"])
        #expect(ValueFormat.percent.tickLabels([-2.5, 0, 2.5], step: 2.5) == ["-2.5%", "0.0%", "2.5%"])
        #expect(ValueFormat.multiple.tickLabels([0, 0.5, 1], step: 0.5) == ["0.0x", "0.5x", "1.0x"])
        #expect(ValueFormat.plain.tickLabels([0.2, 0.4], step: 0.2) == ["0.2", "0.4"])
        #expect(ValueFormat.plain.tickLabels([0, 0.25], step: 0.25) == ["0.00", "0.25"])
        #expect(ValueFormat.plain.tickLabels([100, 200], step: 100) == ["100", "200"])
    }
}
