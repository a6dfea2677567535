import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// Seeded properties of every TA-Lib function on random bars with spikes of 1e6…1e300: streaming equals batch (same
/// bits, same bars valid), a prefix's values are the prefix of the values (no look-ahead), a value is a finite
/// number from the lookback on — or the run stops with a `WindowOverflowError` naming the bar where a value
/// cannot be represented, at the same bar in both forms.
@Suite("TA-Lib functions: streaming = batch, prefix invariance, no NaN")
struct TALibPropertyTests {
    static func randomBars(seed: UInt64, count: Int, spikes: Bool) -> OHLCVSeries {
        var rng = SplitMix64(seed: seed)
        var price = 100.0
        var open = [Double](), high = [Double](), low = [Double](), close = [Double](), volume = [Double]()
        for i in 0..<count {
            price *= 1 + 0.02 * rng.nextGaussian()
            if price <= 0 { price = 1 }
            var c = price
            var v = Double(Int.random(in: 0...1_000_000, using: &rng))
            if spikes && Int.random(in: 0..<40, using: &rng) == 0 {
                let magnitude = [1e6, 1e12, 1e50, 1e150, 1e300].randomElement(using: &rng)!
                if Bool.random(using: &rng) { c *= magnitude } else { v *= magnitude }
            }
            if i % 97 < 5 { c = close.last ?? c }  // flat stretches
            let spread = abs(c) * 0.01 * Double.random(in: 0...1, using: &rng)
            let h = c + spread * Double.random(in: 0...1, using: &rng)
            let l = c - spread * Double.random(in: 0...1, using: &rng)
            open.append(l + (h - l) * Double.random(in: 0...1, using: &rng))
            high.append(h)
            low.append(l)
            close.append(c)
            volume.append(v)
        }
        return OHLCVSeries(symbol: "R", timestamps: (0..<count).map { Int64($0) }, open: open, high: high, low: low,
                           close: close, volume: volume)
    }

    /// Small periods (so that windows roll many times) and each function's defaults.
    static func functions(_ rng: inout SplitMix64) throws -> [TAFunction] {
        var result: [TAFunction] = []
        for descriptor in TAFunction.all {
            result.append(try TAFunction(descriptor.name))
            var parameters: [String: Double] = [:]
            for p in descriptor.parameters {
                switch p.kind {
                case .integer: parameters[p.name] = Double(Int.random(in: Int(p.minimum)...max(Int(p.minimum), 9), using: &rng))
                case .movingAverageType: parameters[p.name] = Double(Int.random(in: 0...6, using: &rng))
                case .real: parameters[p.name] = p.name == "acceleration" || p.name == "maximum" ? Double.random(in: 0.01...0.3, using: &rng) : Double.random(in: 0.5...3, using: &rng)
                }
            }
            result.append(try TAFunction(descriptor.name, parameters: parameters))
        }
        return result
    }

    enum Run: Equatable {
        case values([[UInt64]])
        case overflow(Int)
    }

    static func batch(_ f: TAFunction, _ bars: OHLCVSeries) -> Run {
        do {
            return .values(try f.compute(bars).map { $0.values.map(\.bitPattern) })
        } catch {
            return .overflow(error.barIndex)
        }
    }

    static func streaming(_ f: TAFunction, _ bars: OHLCVSeries) -> Run {
        var stream = f.makeStream()
        var outputs = [[UInt64]](repeating: [UInt64](repeating: Double.nan.bitPattern, count: bars.count), count: f.outputCount)
        for i in 0..<bars.count {
            do {
                if try stream.update(TABar(open: bars.open[i], high: bars.high[i], low: bars.low[i], close: bars.close[i], volume: bars.volume[i])) {
                    for k in 0..<f.outputCount { outputs[k][i] = stream.value(k).bitPattern }
                }
            } catch {
                return .overflow(error.barIndex)
            }
        }
        return .values(outputs)
    }

    @Test("streaming = batch and finite values", arguments: [(UInt64(1), false), (2, true), (3, true), (4, true)])
    func streamingEqualsBatch(seed: UInt64, spikes: Bool) throws {
        var rng = SplitMix64(seed: seed &* 7919)
        let bars = Self.randomBars(seed: seed, count: 700, spikes: spikes)
        for f in try Self.functions(&rng) {
            let b = Self.batch(f, bars), s = Self.streaming(f, bars)
            #expect(b == s, "\(f.label): streaming differs from batch (seed \(seed))")
            guard case .values(let outputs) = b else { continue }
            for (k, column) in outputs.enumerated() {
                for i in 0..<bars.count {
                    let v = Double(bitPattern: column[i])
                    if i < f.lookback {
                        #expect(v.isNaN, "\(f.label) output \(k) bar \(i): a value before the lookback")
                    } else if !v.isFinite {
                        Issue.record("\(f.label) output \(k) bar \(i): \(v) from finite inputs (seed \(seed))")
                        break
                    }
                }
            }
        }
    }

    /// Stream values are values: a copy taken mid-series and fed other bars leaves the original's results untouched
    /// (their windows share slots until one of them is updated; see `TAWindow`).
    @Test("a copied stream is independent of the original")
    func copiedStreamIsIndependent() throws {
        var rng = SplitMix64(seed: 17)
        let a = Self.randomBars(seed: 8, count: 300, spikes: false)
        let b = Self.randomBars(seed: 9, count: 300, spikes: false)
        let cut = 120
        func bar(_ s: OHLCVSeries, _ i: Int) -> TABar {
            TABar(open: s.open[i], high: s.high[i], low: s.low[i], close: s.close[i], volume: s.volume[i])
        }
        for f in try Self.functions(&rng) {
            var original = f.makeStream()
            for i in 0..<cut { try original.update(bar(a, i)) }
            var copy = original
            var fresh = f.makeStream()  // the copy's expected results: a's first bars, then b's
            for i in 0..<cut { try fresh.update(bar(a, i)) }
            var copies = [original, original]  // several copies of one value, each updated on its own
            for i in cut..<a.count {
                let valid = try original.update(bar(a, i))
                let copyValid = try copy.update(bar(b, i))
                let freshValid = try fresh.update(bar(b, i))
                #expect(copyValid == freshValid, "\(f.label) bar \(i)")
                for k in 0..<f.outputCount where copyValid {
                    #expect(copy.value(k).bitPattern == fresh.value(k).bitPattern, "\(f.label) copy, output \(k) bar \(i)")
                }
                for j in copies.indices {
                    let v = try copies[j].update(bar(a, i))
                    #expect(v == valid, "\(f.label) bar \(i)")
                    for k in 0..<f.outputCount where valid {
                        #expect(copies[j].value(k).bitPattern == original.value(k).bitPattern, "\(f.label) copies[\(j)], output \(k) bar \(i)")
                    }
                }
            }
            let whole = try f.compute(a)
            for k in 0..<f.outputCount where original.barCount == a.count {
                let last = whole[k].values[a.count - 1]
                if last.isFinite { #expect(original.value(k).bitPattern == last.bitPattern, "\(f.label) output \(k): stream = batch after copies") }
            }
        }
    }

    @Test("a prefix's values are the prefix of the values")
    func prefixInvariance() throws {
        var rng = SplitMix64(seed: 99)
        let bars = Self.randomBars(seed: 5, count: 400, spikes: false)
        let cut = 250
        let prefix = OHLCVSeries(symbol: "R", timestamps: Array(bars.timestamps[..<cut]), open: Array(bars.open[..<cut]),
                                 high: Array(bars.high[..<cut]), low: Array(bars.low[..<cut]), close: Array(bars.close[..<cut]),
                                 volume: Array(bars.volume[..<cut]))
        for f in try Self.functions(&rng) {
            let whole = try f.compute(bars), part = try f.compute(prefix)
            for k in 0..<f.outputCount {
                #expect(part[k].values.map(\.bitPattern) == whole[k].values[..<cut].map(\.bitPattern), "\(f.label) output \(k)")
            }
        }
    }

    @Test("an overflowing window is an error naming the bar")
    func overflowIsAnError() throws {
        var bars = Self.randomBars(seed: 11, count: 60, spikes: false)
        bars.close[40] = 1e300
        bars.close[41] = 1e300
        let f = try TAFunction("VAR", parameters: ["timeperiod": 5])
        #expect(throws: WindowOverflowError.self) { try f.compute(bars) }
        do {
            _ = try f.compute(bars)
        } catch {
            #expect(error.barIndex == 40)
            #expect(error.description.contains("VAR(timeperiod=5"))
        }
    }

    @Test("unknown functions, parameters and bad values are errors with a reason")
    func badRequests() {
        #expect(throws: TAFunctionError.self) { try TAFunction("NOPE") }
        #expect(throws: TAFunctionError.self) { try TAFunction("MACD", parameters: ["period": 3]) }
        #expect(throws: TAFunctionError.self) { try TAFunction("MACD", parameters: ["fastperiod": 1]) }
        #expect(throws: TAFunctionError.self) { try TAFunction("MACD", parameters: ["fastperiod": 8.5]) }
        #expect(throws: TAFunctionError.self) { try TAFunction("BBANDS", parameters: ["matype": 8]) }
        #expect((try? TAFunction("bbands", parameters: ["nbdevup": 2.5]))?.values == [20, 2.5, 2, 0])
    }
}
