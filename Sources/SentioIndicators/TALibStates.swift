import SentioCore

// The streaming state of every TA-Lib function of Sentio's set, each following TA-Lib's C code's order of
// floating-point operations (TALibFunctions.swift lists them with their parameters and lookbacks).

/// One bar's inputs to a TA-Lib function. Functions of one price series (`price` in TA-Lib) read `close`; CORREL and
/// BETA read `high` and `low` (TA-Lib's default inputs `price0`, `price1`).
public struct TABar: Sendable, Equatable {
    public var open, high, low, close, volume: Double

    public init(open: Double, high: Double, low: Double, close: Double, volume: Double) {
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }

    /// A bar whose every field is `value` (to run a one-series function over any series).
    public init(value: Double) { self.init(open: value, high: value, low: value, close: value, volume: value) }
}

/// The streaming state of one TA-Lib function: one `update` per bar, O(1) or O(window) work, no allocation.
protocol TAFunctionState: Sendable {
    /// Advances by one bar. Writes the outputs (in TA-Lib's order) into the first lanes of `out` and returns `true`
    /// once the function has a value, `false` during its lookback.
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool

    /// ``update(_:_:)`` over whole columns (the batch form). A requirement with one default implementation, so that
    /// each state type gets its own specialized loop, entered once per series: called on the existential, the loop
    /// itself would call `update` through the witness table for every bar (measured 3–6× TA-Lib's time for MACD,
    /// BBANDS, STOCH and ADX over 12 series of 1M bars; TA-Lib's C loops are monomorphic).
    mutating func update(columns: inout TAColumnRun) throws(WindowOverflowError) -> TAColumnRun.Overflow?

    /// This state with windows of its own (``TAWindow``s share their slots between copies): what ``TAStream`` updates
    /// after its value was copied. Every state implements it, listing its windows (none: `self`).
    func independentCopy() -> Self
}

/// The columns of one batch run and what it carries from bar to bar: output `j` of bar `i` goes to `outputs[j][i]`,
/// every bar written once (NaN where the function has no value).
struct TAColumnRun {
    let open, high, low, close, volume: UnsafeBufferPointer<Double>
    /// One column per output (``TAFunction/outputCount`` of them), each of the inputs' length.
    let outputs: UnsafeBufferPointer<UnsafeMutablePointer<Double>>
    /// Whether every input so far was finite (a non-finite output is then an overflow). Checked lazily: during a
    /// run only up to the first non-finite output; at its end for the rest of the run when ``resolvesFiniteness``.
    var finite: Bool
    /// Whether `finite` must describe the whole run at its end (false when the state is dropped after the run, as in
    /// ``TAFunction/compute(_:)``: the columns the function does not read are then never read).
    var resolvesFiniteness = true
    /// The outputs of the last bar with a value.
    var last: SIMD4<Double>

    /// The first output that is not finite although every input so far was: bar (0 = the run's first) and output.
    struct Overflow { var bar: Int, output: Int }
}

extension TAColumnRun {
    /// Whether every input of bars `from…through` of the run (all five columns) is finite.
    func inputsFinite(from start: Int, through end: Int) -> Bool {
        guard start <= end else { return true }
        for column in [open, high, low, close, volume] {
            for i in start...end where !column[i].isFinite { return false }
        }
        return true
    }

    /// The overflow rule at bar `i`, whose valid outputs `values` are not all finite: an overflow when every input
    /// up to and including bar `i` is finite. The inputs are checked only here, on the first non-finite output (from
    /// `checked`, the first bar not yet checked): the loops read no column their function does not use.
    /// Returns the overflow, or nil after recording that an input was not finite (`finite` false from then on).
    @inline(never)
    mutating func overflow(at i: Int, _ values: SIMD4<Double>, outputs k: Int, checked: inout Int) -> Overflow? {
        guard finite else { return nil }
        if inputsFinite(from: checked, through: i) {
            for j in 0..<k where !values[j].isFinite { return Overflow(bar: i, output: j) }
        }
        finite = false
        checked = i + 1
        return nil
    }
}

extension TAFunctionState {
    mutating func update(columns run: inout TAColumnRun) throws(WindowOverflowError) -> TAColumnRun.Overflow? {
        try updateBarByBar(columns: &run)
    }

    /// The batch form as ``update(_:_:)`` bar after bar (every state's default; a state with a loop of its own falls
    /// back to it for the configurations that loop does not cover). One loop per output count, so that the outputs'
    /// stores unroll; the inputs' finiteness is checked only when an output is not finite (``TAColumnRun/overflow(at:_:outputs:checked:)``).
    mutating func updateBarByBar(columns run: inout TAColumnRun) throws(WindowOverflowError) -> TAColumnRun.Overflow? {
        switch run.outputs.count {
        case 1: return try barByBar(columns: &run, outputs: 1)
        case 2: return try barByBar(columns: &run, outputs: 2)
        case 3: return try barByBar(columns: &run, outputs: 3)
        default: return try barByBar(columns: &run, outputs: run.outputs.count)
        }
    }

    @inline(__always)
    mutating func barByBar(columns run: inout TAColumnRun, outputs k: Int) throws(WindowOverflowError) -> TAColumnRun.Overflow? {
        let n = run.close.count
        guard n > 0 else { return nil }
        let (o, h, l, c, v) = (run.open.baseAddress!, run.high.baseAddress!, run.low.baseAddress!, run.close.baseAddress!,
                               run.volume.baseAddress!)
        // The output columns and the state in locals: the state's fields then live in registers across the loop
        // (through `self` they would be reloaded after every output store, which may alias them).
        let out0 = run.outputs[0], out1 = run.outputs[k > 1 ? 1 : 0], out2 = run.outputs[k > 2 ? 2 : 0]
        var state = self
        defer { self = state }
        var last = run.last
        defer { run.last = last }
        var checked = 0
        for i in 0..<n {
            let bar = TABar(open: o[i], high: h[i], low: l[i], close: c[i], volume: v[i])
            var values = SIMD4<Double>(repeating: .nan)
            if try state.update(bar, &values) {
                out0[i] = values[0]
                if k > 1 { out1[i] = values[1] }
                if k > 2 { out2[i] = values[2] }
                if k > 3 { for j in 3..<k { run.outputs[j][i] = values[j] } }
                var allFinite = values[0].isFinite
                for j in 1..<Swift.max(k, 1) { allFinite = allFinite && values[j].isFinite }
                if !allFinite, let overflow = run.overflow(at: i, values, outputs: k, checked: &checked) { return overflow }
                last = values
            } else {
                out0[i] = .nan
                if k > 1 { out1[i] = .nan }
                if k > 2 { out2[i] = .nan }
                if k > 3 { for j in 3..<k { run.outputs[j][i] = .nan } }
            }
        }
        if run.finite && run.resolvesFiniteness { run.finite = run.inputsFinite(from: checked, through: n - 1) }
        return nil
    }
}

// MARK: - One-series functions built on a moving average or window

struct TAMovingAverageState: TAFunctionState {
    var average: TAMovingAverage
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        guard let v = try average.update(bar.close) else { return false }
        out[0] = v
        return true
    }
}

/// BBANDS: middle = MA; deviation = STDDEV's (`√VAR`, see ``TAVARState``); `upper = mid + dev·nbdevup`,
/// `lower = mid − dev·nbdevdn`.
struct TABBANDSState: TAFunctionState {
    var middle: TAMovingAverage
    var variance: TAVARState
    let up: Double, down: Double

    init(period: Int, up: Double, down: Double, type: TAMovingAverageType) {
        middle = TAMovingAverage(type: type, period: period)
        variance = TAVARState(period: period)
        self.up = up
        self.down = down
    }

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let mid = try middle.update(bar.close)
        let v = variance.step(bar.close)
        guard let mid, let v else { return false }
        let deviation = v != 0.0 ? v.squareRoot() : 0.0
        if up == down {
            let t = deviation * up
            out[0] = mid + t
            out[2] = mid - t
        } else if middle.type == .sma {
            out[0] = mid + deviation * up
            out[2] = mid - deviation * down
        } else {
            out[0] = mid.addingProduct(deviation, up)
            out[2] = mid - deviation * down
        }
        out[1] = mid
        return true
    }
}

/// TA-Lib 0.8.1's VAR (population variance): running sums of the deviations from a shift `K` (first the window's
/// first value), `Σ(x−K)²/n − (Σ(x−K)/n)²`; the shift is re-anchored on the window mean by an exact two-pass rebuild
/// when the variance falls below 1e-6 of `Σ(x−K)²/n`, when the value leaving dwarfs the sum (×1e6), or every `32n`
/// bars; a rebuilt variance under 1e-12 of its scale is 0. The running sums therefore stay at the variance's scale
/// (no cancellation of `E[x²] − E[x]²`).
struct TAVARState: TAFunctionState {
    let period: Int
    let inversePeriod: Double
    var window: TAWindow
    var shift = 0.0
    var total1 = 0.0, total2 = 0.0
    var barsSinceReseed: Int

    init(period: Int) {
        self.period = period
        inversePeriod = 1.0 / Double(period)
        window = TAWindow(capacity: period)
        barsSinceReseed = 32 * period
    }

    @inline(__always) mutating func step(_ x: Double) -> Double? {
        if window.pushed == 0 { shift = x }
        window.push(x)
        var d = x - shift
        total1 += d
        d *= d
        total2 += d
        guard window.isFull else { return nil }
        var mean1 = total1 * inversePeriod
        var variance = total2 * inversePeriod - mean1 * mean1
        var leaving = window.back(period - 1) - shift
        total1 -= leaving
        leaving *= leaving
        total2 -= leaving
        barsSinceReseed -= 1
        if variance < 0.000001 * (total2 * inversePeriod) || leaving > 1000000.0 * total2 || barsSinceReseed <= 0 {
            barsSinceReseed = 32 * period
            var sum = 0.0
            for j in 0..<period { sum += window.back(period - 1 - j) }
            shift = sum * inversePeriod
            total1 = 0
            total2 = 0
            for j in 0..<period {
                var e = window.back(period - 1 - j) - shift
                total1 += e
                e *= e
                total2 += e
            }
            mean1 = total1 * inversePeriod
            variance = total2 * inversePeriod - mean1 * mean1
            if variance < 0.000000000001 * (total2 * inversePeriod) { variance = 0.0 }
            var first = window.back(period - 1) - shift
            total1 -= first
            first *= first
            total2 -= first
        }
        return variance
    }

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        guard let v = step(bar.close) else { return false }
        out[0] = v
        return true
    }
}

/// STDDEV: `√VAR`, times `nbdev` when it is not 1.
struct TASTDDEVState: TAFunctionState {
    var variance: TAVARState
    let deviations: Double
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        guard let v = variance.step(bar.close) else { return false }
        out[0] = deviations != 1.0 ? v.squareRoot() * deviations : v.squareRoot()
        return true
    }
}

/// MIN, MAX, MIDPOINT (one series) and MIDPRICE (high/low).
struct TAExtremeState: TAFunctionState {
    enum Kind: Sendable { case min, max, midpoint, midprice }
    let kind: Kind
    var lowest: TAExtreme
    var highest: TAExtreme
    let period: Int
    var seen = 0

    init(kind: Kind, period: Int) {
        self.kind = kind
        self.period = period
        lowest = TAExtreme(window: period, isMaximum: false, rescanTies: false)
        highest = TAExtreme(window: period, isMaximum: true, rescanTies: false)
    }

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        seen += 1
        switch kind {
        case .min: out[0] = lowest.push(bar.close).value
        case .max: out[0] = highest.push(bar.close).value
        case .midpoint:
            let l = lowest.push(bar.close).value, h = highest.push(bar.close).value
            out[0] = (h + l) / 2.0
        case .midprice:
            let l = lowest.push(bar.low).value, h = highest.push(bar.high).value
            out[0] = (h + l) / 2.0
        }
        return seen >= period
    }
}

/// SUM: TA-Lib's running sum (add, read, subtract the leaving value) with ``RollingSum``'s error bound and exact
/// re-summation (the exactness rules of SMA).
struct TASUMState: TAFunctionState {
    var rolling: RollingSum
    let period: Int
    init(period: Int) {
        self.period = period
        rolling = RollingSum(window: period)
    }
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        rolling.add(bar.close)
        guard rolling.buffer.isFull else { return false }
        out[0] = try rolling.checkedSum("SUM(\(period))")
        rolling.evictOldest()
        return true
    }
}

/// MOM (`x − xₜ₋ₙ`), ROC (`(x/xₜ₋ₙ − 1)·100`), ROCP (`(x − xₜ₋ₙ)/xₜ₋ₙ`); ROC and ROCP are 0 where `xₜ₋ₙ = 0`.
struct TAChangeState: TAFunctionState {
    enum Kind: Sendable { case mom, roc, rocp }
    let kind: Kind
    let period: Int
    var window: TAWindow

    init(kind: Kind, period: Int) {
        self.kind = kind
        self.period = period
        window = TAWindow(capacity: period + 1)
    }

    static func value(_ kind: Kind, _ x: Double, _ previous: Double) -> Double {
        switch kind {
        case .mom: return x - previous
        case .roc: return previous != 0.0 ? ((x / previous) - 1.0) * 100.0 : 0.0
        case .rocp: return previous != 0.0 ? (x - previous) / previous : 0.0
        }
    }

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        window.push(bar.close)
        guard window.pushed > period else { return false }
        out[0] = Self.value(kind, bar.close, window.back(period))
        return true
    }
}

/// CMO: Wilder averages of gains and losses in TA-Lib's CMO order (a loss subtracts the change, a gain adds it; the
/// seed sums divided by `n`, then `avg·(n − 1)`, add, `/n`), `100·(G − L)/(G + L)`, 0 where `G + L` is TA-Lib-zero.
struct TACMOState: TAFunctionState {
    let period: Int
    let periodValue: Double
    var bar = -1
    var previous = 0.0, gain = 0.0, loss = 0.0

    init(period: Int) {
        self.period = period
        periodValue = Double(period)
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        bar += 1
        let x = input.close
        defer { previous = x }
        if bar == 0 { return false }
        let change = x - previous
        if bar > period {
            loss *= periodValue - 1
            gain *= periodValue - 1
        }
        if change < 0 { loss -= change } else { gain += change }
        if bar < period { return false }
        loss /= periodValue
        gain /= periodValue
        let total = gain + loss
        out[0] = taIsZero(total) ? 0.0 : 100.0 * ((gain - loss) / total)
        return true
    }
}

/// TRIX: the one-bar rate of change (`(x/x₋₁ − 1)·100`) of a triple EMA.
struct TATRIXState: TAFunctionState {
    var first: TAEMA, second: TAEMA, third: TAEMA
    var previous: Double?
    init(period: Int) { first = TAEMA(period: period); second = TAEMA(period: period); third = TAEMA(period: period) }
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        guard let e1 = first.update(bar.close), let e2 = second.update(e1), let e3 = third.update(e2) else { return false }
        defer { previous = e3 }
        guard let previous else { return false }
        out[0] = TAChangeState.value(.roc, e3, previous)
        return true
    }
}

/// MACD (EMAs) and MACDEXT (any MA types): `macd = fast − slow`, `signal = MA(macd)`, `hist = macd − signal`. As in
/// TA-Lib, the fast average starts where its lookback ends together with the slow one's (for EMAs its seed is the
/// mean of the last `fast` bars of the slow seed's window), and periods (with their types) are swapped when
/// `slow < fast`.
struct TAMACDState: TAFunctionState {
    var fast: TAMovingAverage, slow: TAMovingAverage, signal: TAMovingAverage
    let fastStart: Int, slowStart: Int
    var bar = 0

    init(fast fastPeriod: Int, fastType: TAMovingAverageType, slow slowPeriod: Int, slowType: TAMovingAverageType,
         signal signalPeriod: Int, signalType: TAMovingAverageType, emaSignal: Bool = false) {
        var (f, ft, s, st) = (fastPeriod, fastType, slowPeriod, slowType)
        if s < f { (f, ft, s, st) = (s, st, f, ft) }
        fast = TAMovingAverage(type: ft, period: f)
        slow = TAMovingAverage(type: st, period: s)
        signal = TAMovingAverage(type: signalType, period: signalPeriod, identityAtPeriodOne: !emaSignal)
        let largest = max(fast.lookback, slow.lookback)
        fastStart = largest - fast.lookback
        slowStart = largest - slow.lookback
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let x = input.close
        defer { bar += 1 }
        let f = bar >= fastStart ? try fast.update(x) : nil
        let s = bar >= slowStart ? try slow.update(x) : nil
        guard let f, let s else { return false }
        let macd = f - s
        guard let sig = try signal.update(macd) else { return false }
        out[0] = macd
        out[1] = sig
        out[2] = macd - sig
        return true
    }
}

/// APO (`fast − slow`) and PPO (`((fast − slow)/slow)·100`, 0 where `slow` is TA-Lib-zero), same MA type, both
/// averages from the first bar (TA-Lib 0.8.1; unlike MACD, whose fast EMA starts with the slow one's last bars).
struct TAOscillatorState: TAFunctionState {
    var fast: TAMovingAverage, slow: TAMovingAverage
    let percentage: Bool
    let fastStart: Int
    var bar = 0

    init(fast fastPeriod: Int, slow slowPeriod: Int, type: TAMovingAverageType, percentage: Bool) {
        let (f, s) = slowPeriod < fastPeriod ? (slowPeriod, fastPeriod) : (fastPeriod, slowPeriod)
        fast = TAMovingAverage(type: type, period: f)
        slow = TAMovingAverage(type: type, period: s)
        self.percentage = percentage
        fastStart = 0
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let x = input.close
        defer { bar += 1 }
        let f = bar >= fastStart ? try fast.update(x) : nil
        guard let s = try slow.update(x), let f else { return false }
        if percentage {
            out[0] = taIsZero(s) ? 0.0 : ((f - s) / s) * 100.0
        } else {
            out[0] = f - s
        }
        return true
    }
}

extension TAMACDState {
    /// MACD's batch form with three EMAs (TA-Lib's `MACD`): the same recurrences as ``update(_:_:)``, in one loop over
    /// local copies of the three averages (no optionals, no moving-average dispatch per bar); bit-identical to the bar
    /// by bar form (the streaming = batch tests compare them). Other average types (MACDEXT) run bar by bar.
    mutating func update(columns run: inout TAColumnRun) throws(WindowOverflowError) -> TAColumnRun.Overflow? {
        guard var f = fast.ema, var s = slow.ema, var g = signal.ema, !fast.identity, !slow.identity, !signal.identity,
              run.outputs.count == 3
        else { return try updateBarByBar(columns: &run) }
        var bar = self.bar
        var last = run.last
        defer {
            fast.ema = f
            slow.ema = s
            signal.ema = g
            self.bar = bar
            run.last = last
        }
        let c = run.close, n = c.count
        let (macdOut, signalOut, histogramOut) = (run.outputs[0], run.outputs[1], run.outputs[2])
        var checked = 0
        defer { if run.finite && run.resolvesFiniteness && n > 0 { run.finite = run.inputsFinite(from: checked, through: n - 1) } }
        for i in 0..<n {
            let x = c[i]
            let b = bar
            bar += 1
            let fastValue = b >= fastStart ? f.update(x) : nil
            let slowValue = b >= slowStart ? s.update(x) : nil
            guard let fastValue, let slowValue else {
                (macdOut[i], signalOut[i], histogramOut[i]) = (.nan, .nan, .nan)
                continue
            }
            let macd = fastValue - slowValue
            guard let sig = g.update(macd) else {
                (macdOut[i], signalOut[i], histogramOut[i]) = (.nan, .nan, .nan)
                continue
            }
            let histogram = macd - sig
            if !(macd.isFinite && sig.isFinite && histogram.isFinite),
               let overflow = run.overflow(at: i, SIMD4(macd, sig, histogram, .nan), outputs: 3, checked: &checked) {
                return overflow
            }
            (macdOut[i], signalOut[i], histogramOut[i]) = (macd, sig, histogram)
            last = SIMD4(macd, sig, histogram, .nan)
        }
        return nil
    }
}

// MARK: - Stochastics

/// The raw stochastic %K of TA-Lib 0.8.1's STOCH/STOCHF: `100·((c − LL)/(HH − LL))`, 0 where `HH − LL` is zero within
/// TA-Lib's scaled dead zone (`|HH − LL| ≤ 1e-14·(|HH| + |LL|)`).
struct TAFastK: Sendable {
    var lowest: TAExtreme, highest: TAExtreme
    let period: Int
    var seen = 0
    init(period: Int) {
        self.period = period
        lowest = TAExtreme(window: period, isMaximum: false, rescanTies: false)
        highest = TAExtreme(window: period, isMaximum: true, rescanTies: false)
    }
    @inline(__always) mutating func update(high: Double, low: Double, close: Double) -> Double? {
        seen += 1
        let l = lowest.push(low).value, h = highest.push(high).value
        guard seen >= period else { return nil }
        let diff = h - l
        return taIsZeroScaled(diff, abs(h) + abs(l)) ? 0.0 : 100.0 * ((close - l) / diff)
    }
}

/// STOCH (slow %K = MA(%K), slow %D = MA(slow %K)) and STOCHF (%K, %D = MA(%K)).
struct TASTOCHState: TAFunctionState {
    var k: TAFastK
    var slowK: TAMovingAverage?
    var d: TAMovingAverage

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        guard var value = k.update(high: bar.high, low: bar.low, close: bar.close) else { return false }
        if slowK != nil {
            guard let smoothed = try slowK!.update(value) else { return false }
            value = smoothed
        }
        guard let signal = try d.update(value) else { return false }
        out[0] = value
        out[1] = signal
        return true
    }
}

/// STOCHRSI: STOCHF over TA-Lib's RSI (high = low = close = RSI).
struct TASTOCHRSIState: TAFunctionState {
    var rsi: TARSI
    var stochastic: TASTOCHState
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        guard let r = rsi.update(bar.close) else { return false }
        return try stochastic.update(TABar(value: r), &out)
    }
}

/// WILLR: `−100·((HH − c)/(HH − LL))`, 0 where `HH − LL` is zero within TA-Lib's scaled dead zone.
struct TAWILLRState: TAFunctionState {
    var lowest: TAExtreme, highest: TAExtreme
    let period: Int
    var seen = 0
    init(period: Int) {
        self.period = period
        lowest = TAExtreme(window: period, isMaximum: false, rescanTies: false)
        highest = TAExtreme(window: period, isMaximum: true, rescanTies: false)
    }
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        seen += 1
        let l = lowest.push(bar.low).value, h = highest.push(bar.high).value
        guard seen >= period else { return false }
        let diff = h - l
        out[0] = taIsZeroScaled(diff, abs(h) + abs(l)) ? 0.0 : -100.0 * ((h - bar.close) / diff)
        return true
    }
}

// MARK: - Bar functions

/// CCI: typical price `(h + l + c)/3`; mean and mean absolute deviation over the window summed in TA-Lib's
/// circular-buffer order; `(tp − mean)/(0.015·MAD)`, 0 where either is TA-Lib-zero.
struct TACCIState: TAFunctionState {
    let period: Int
    var window: TAWindow
    init(period: Int) {
        self.period = period
        window = TAWindow(capacity: period)
    }
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let last = (bar.high + bar.low + bar.close) / 3
        window.push(last)
        guard window.isFull else { return false }
        var average = 0.0
        for j in 0..<period { average += window.slot(j) }
        average /= Double(period)
        var deviation = 0.0
        for j in 0..<period { deviation += abs(window.slot(j) - average) }
        let d = last - average
        out[0] = !taIsZero(d) && !taIsZero(deviation) ? d / (0.015 * (deviation / Double(period))) : 0.0
        return true
    }
}

/// Wilder's directional movement (TA-Lib's ADX family): +DM, −DM and TR summed over the first `n − 1` bar pairs, then
/// smoothed `s − s/n + x`; `±DI = 100·(±DM/TR)`; `DX = 100·|−DI − +DI|/(−DI + +DI)`; ADX seeded with the mean of
/// the first `n` DX, then `(ADX·(n − 1) + DX)/n`. A bar whose TR or DI sum is TA-Lib-zero keeps the previous value.
struct TADirectionalState: TAFunctionState {
    enum Kind: Sendable { case plusDI, minusDI, dx, adx, adxr }
    let kind: Kind
    let period: Int
    let periodValue: Double
    var bar = -1
    var previousHigh = 0.0, previousLow = 0.0, previousClose = 0.0
    var plusDM = 0.0, minusDM = 0.0, range = 0.0
    var dx = 0.0
    var sumDX = 0.0
    var adx = 0.0
    var history: TAWindow

    init(kind: Kind, period: Int) {
        self.kind = kind
        self.period = period
        periodValue = Double(period)
        history = TAWindow(capacity: period)
    }

    var lookback: Int {
        switch kind {
        case .plusDI, .minusDI, .dx: period
        case .adx: 2 * period - 1
        case .adxr: 3 * period - 2
        }
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        bar += 1
        if bar == 0 {
            (previousHigh, previousLow, previousClose) = (input.high, input.low, input.close)
            return false
        }
        let diffP = input.high - previousHigh
        previousHigh = input.high
        let diffM = previousLow - input.low
        previousLow = input.low
        if bar >= period {
            minusDM -= minusDM / periodValue
            plusDM -= plusDM / periodValue
        }
        switch kind {
        case .plusDI:
            if diffP > 0 && diffP > diffM { plusDM += diffP }
        case .minusDI:
            if diffM > 0 && diffP < diffM { minusDM += diffM }
        default:
            if diffM > 0 && diffP < diffM {
                minusDM += diffM
            } else if diffP > 0 && diffP > diffM {
                plusDM += diffP
            }
        }
        let tr = trueRange(high: previousHigh, low: previousLow, previousClose: previousClose)
        range = bar >= period ? range - range / periodValue + tr : range + tr
        previousClose = input.close
        guard bar >= period else { return false }
        switch kind {
        case .plusDI:
            out[0] = taIsZero(range) ? 0.0 : 100.0 * (plusDM / range)
            return true
        case .minusDI:
            out[0] = taIsZero(range) ? 0.0 : 100.0 * (minusDM / range)
            return true
        case .dx, .adx, .adxr:
            var fresh: Double?
            if !taIsZero(range) {
                let minusDI = 100.0 * (minusDM / range)
                let plusDI = 100.0 * (plusDM / range)
                let sum = minusDI + plusDI
                if !taIsZero(sum) { fresh = 100.0 * (abs(minusDI - plusDI) / sum) }
            }
            if kind == .dx {
                if let fresh { dx = fresh }
                out[0] = dx
                return true
            }
            let seedEnd = 2 * period - 1
            if bar < seedEnd {
                if let fresh { sumDX += fresh }
                return false
            }
            if bar == seedEnd {
                if let fresh { sumDX += fresh }
                adx = sumDX / periodValue
            } else if let fresh {
                adx = (adx * (periodValue - 1) + fresh) / periodValue
            }
            history.push(adx)
            if kind == .adx {
                out[0] = adx
                return true
            }
            guard history.isFull else { return false }
            out[0] = (adx + history.back(period - 1)) / 2.0
            return true
        }
    }
}

/// AROON (`100/n·(n − bars since the n+1-bar extreme)`, down then up) and AROONOSC (`100/n·(iHigh − iLow)`); a
/// later equal extreme takes over, as in TA-Lib.
struct TAAROONState: TAFunctionState {
    let period: Int
    let oscillator: Bool
    let factor: Double
    var lowest: TAExtreme, highest: TAExtreme
    init(period: Int, oscillator: Bool) {
        self.period = period
        self.oscillator = oscillator
        factor = 100.0 / Double(period)
        lowest = TAExtreme(window: period + 1, isMaximum: false, rescanTies: true)
        highest = TAExtreme(window: period + 1, isMaximum: true, rescanTies: true)
    }
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let l = lowest.push(bar.low).index, h = highest.push(bar.high).index
        let today = lowest.values.pushed - 1
        guard today >= period else { return false }
        if oscillator {
            out[0] = factor * Double(h - l)
        } else {
            out[0] = factor * Double(period - (today - l))
            out[1] = factor * Double(period - (today - h))
        }
        return true
    }
}

/// MFI: money flow `tp·v` signed by the typical price's move (no move within TA-Lib's scaled dead zone: no flow),
/// running positive and negative sums over the window (reset to exactly 0 after a window without flow),
/// `100·pos/(pos + neg)` with `pos` clamped into `[0, pos + neg]`, 0 for an empty window.
struct TAMFIState: TAFunctionState {
    let period: Int
    var positive: TAWindow, negative: TAWindow
    var positiveSum = 0.0, negativeSum = 0.0
    var previous = 0.0
    var nullRun = 0
    var bar = -1

    init(period: Int) {
        self.period = period
        positive = TAWindow(capacity: period)
        negative = TAWindow(capacity: period)
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        bar += 1
        let typical = (input.high + input.low + input.close) / 3.0
        if bar == 0 {
            previous = typical
            return false
        }
        if positive.isFull {
            positiveSum -= positive.back(period - 1)
            negativeSum -= negative.back(period - 1)
        }
        let change = typical - previous
        let scale = abs(typical) + abs(previous)
        previous = typical
        let flow = typical * input.volume
        let moneyFlow = taIsZeroScaled(change, scale) ? 0.0 : flow
        let positiveFlow = change < 0.0 ? 0.0 : moneyFlow
        let negativeFlow = change < 0.0 ? moneyFlow : 0.0
        positive.push(positiveFlow)
        negative.push(negativeFlow)
        positiveSum += positiveFlow
        negativeSum += negativeFlow
        nullRun = moneyFlow == 0.0 ? nullRun + 1 : 0
        if nullRun >= period {
            nullRun = period
            positiveSum = 0.0
            negativeSum = 0.0
        }
        guard bar >= period else { return false }
        let total = positiveSum + negativeSum
        let clamped = positiveSum < 0.0 ? 0.0 : (positiveSum > total ? total : positiveSum)
        out[0] = total <= 0.0 ? 0.0 : 100.0 * (clamped / total)
        return true
    }
}

/// BOP: `(c − o)/(h − l)`, 0 where `h − l` is TA-Lib-zero-or-negative.
struct TABOPState: TAFunctionState {
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let range = bar.high - bar.low
        out[0] = taIsZeroOrNegative(range) ? 0.0 : (bar.close - bar.open) / range
        return true
    }
}

/// ULTOSC: buying pressure `c − min(l, c₋₁)` and true range summed over three windows (periods sorted),
/// `100·(4·a₁/b₁ + 2·a₂/b₂ + a₃/b₃)/7`, a term skipped where its range sum is TA-Lib-zero.
struct TAULTOSCState: TAFunctionState {
    let p1: Int, p2: Int, p3: Int
    var pressure: TAWindow, ranges: TAWindow
    var a1 = 0.0, a2 = 0.0, a3 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0
    var previousClose = 0.0
    var bar = -1

    init(_ t1: Int, _ t2: Int, _ t3: Int) {
        let sorted = [t1, t2, t3].sorted()
        p1 = sorted[0]
        p2 = sorted[1]
        p3 = sorted[2]
        pressure = TAWindow(capacity: p3)
        ranges = TAWindow(capacity: p3)
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        bar += 1
        let closeBefore = previousClose
        previousClose = input.close
        if bar == 0 { return false }
        let trueLow = input.low < closeBefore ? input.low : closeBefore
        let buying = input.close - trueLow
        var range = input.high - input.low
        var d = abs(closeBefore - input.high)
        if d > range { range = d }
        d = abs(closeBefore - input.low)
        if d > range { range = d }
        pressure.push(buying)
        ranges.push(range)
        if bar < p3 {
            if bar >= p3 - p1 + 1 { a1 += buying; b1 += range }
            if bar >= p3 - p2 + 1 { a2 += buying; b2 += range }
            a3 += buying
            b3 += range
            return false
        }
        a1 += buying; a2 += buying; a3 += buying
        b1 += range; b2 += range; b3 += range
        var output = 0.0
        if !taIsZero(b1) { output += 4.0 * (a1 / b1) }
        if !taIsZero(b2) { output += 2.0 * (a2 / b2) }
        if !taIsZero(b3) { output += a3 / b3 }
        a1 -= pressure.back(p1 - 1); b1 -= ranges.back(p1 - 1)
        a2 -= pressure.back(p2 - 1); b2 -= ranges.back(p2 - 1)
        a3 -= pressure.back(p3 - 1); b3 -= ranges.back(p3 - 1)
        out[0] = 100.0 * (output / 7.0)
        return true
    }
}

/// TA-Lib 0.8.1's ATR: seed = mean of the first `n` true ranges (summed from 0), then the two-coefficient Wilder
/// step `β·ATR + α·TR` as one fused multiply-add, `β = (n − 1)/n`, `α = 1 − β`. (Sentio's ``AverageTrueRange``
/// keeps the classic `(ATR·(n − 1) + TR)/n`, within 1e-13 of it.)
struct TAATR: Sendable {
    let period: Int
    let alpha: Double, beta: Double
    var bar = -1
    var previousClose = 0.0
    var average = 0.0

    init(period: Int) {
        self.period = period
        beta = Double(period - 1) / Double(period)
        alpha = 1.0 - beta
    }

    @inline(__always) mutating func update(high: Double, low: Double, close: Double) -> Double? {
        bar += 1
        defer { previousClose = close }
        if bar == 0 { return nil }
        let range = trueRange(high: high, low: low, previousClose: previousClose)
        if bar <= period {
            average += range
            guard bar == period else { return nil }
            average /= Double(period)
            return average
        }
        average = (alpha * range).addingProduct(beta, average)
        return average
    }
}

/// TRANGE and NATR (`ATR/c·100` with ``TAATR``, 0 where `c` is TA-Lib-zero).
struct TARangeState: TAFunctionState {
    var atr: TAATR?
    var previousClose: Double?
    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        if atr != nil {
            guard let a = atr!.update(high: bar.high, low: bar.low, close: bar.close) else { return false }
            out[0] = taIsZero(bar.close) ? 0.0 : (a / bar.close) * 100.0
            return true
        }
        defer { previousClose = bar.close }
        guard let previousClose else { return false }
        out[0] = trueRange(high: bar.high, low: bar.low, previousClose: previousClose)
        return true
    }
}

/// OBV (from the first bar's volume, `±v` by the close's direction), AD (`Σ((c − l) − (h − c))/(h − l)·v`, bars with
/// `h − l ≤ 0` adding nothing) and ADOSC (EMA-style `k·AD + (1 − k)·e` of AD, fused as in TA-Lib 0.8.1, seeded with the
/// first AD).
struct TAVolumeState: TAFunctionState {
    enum Kind: Sendable { case obv, ad, adosc }
    let kind: Kind
    var total = 0.0
    var previousClose = 0.0
    var bar = -1
    var fastK = 0.0, slowK = 0.0, fastEMA = 0.0, slowEMA = 0.0
    var lookback = 0

    init(kind: Kind, fast: Int = 3, slow: Int = 10) {
        self.kind = kind
        if kind == .adosc {
            fastK = 2.0 / Double(fast + 1)
            slowK = 2.0 / Double(slow + 1)
            lookback = max(fast, slow) - 1
        }
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        bar += 1
        switch kind {
        case .obv:
            if bar == 0 {
                total = input.volume
            } else if input.close > previousClose {
                total += input.volume
            } else if input.close < previousClose {
                total -= input.volume
            }
            previousClose = input.close
            out[0] = total
            return true
        case .ad, .adosc:
            let range = input.high - input.low
            if range > 0.0 {
                total += (((input.close - input.low) - (input.high - input.close)) / range) * input.volume
            }
            if kind == .ad {
                out[0] = total
                return true
            }
            if bar == 0 {
                fastEMA = total
                slowEMA = total
            } else {
                fastEMA = (fastK * total).addingProduct(1.0 - fastK, fastEMA)
                slowEMA = (slowK * total).addingProduct(1.0 - slowK, slowEMA)
            }
            guard bar >= lookback else { return false }
            out[0] = fastEMA - slowEMA
            return true
        }
    }
}

// MARK: - Statistics

/// LINEARREG and LINEARREG_SLOPE (TA-Lib 0.8.1): least squares over the window with `x = i` for the value `i` bars
/// back; `Σy` and `Σxy` slide in O(1) (`Σxy += Σy − n·leaving`, `Σy += x − leaving`) and are rebuilt from the window
/// every `32n` bars or when `|n·leaving| > 100·|Σy|`; `m = (n·Σxy − Σx·Σy)/(Σx² − n·Σx²ᵢ)`, `b = (Σy − m·Σx)/n`,
/// LINEARREG = `b + m·(n − 1)` as one fused multiply-add.
struct TALinearRegressionState: TAFunctionState {
    let period: Int
    let slopeOnly: Bool
    var window: TAWindow
    let sumX: Double, divisor: Double
    var sumXY = 0.0, sumY = 0.0
    var barsSinceReseed: Int

    init(period: Int, slopeOnly: Bool) {
        self.period = period
        self.slopeOnly = slopeOnly
        window = TAWindow(capacity: period + 1)
        let n = Double(period)
        sumX = n * Double(period - 1) * 0.5
        let sumXSquared = n * Double(period - 1) * Double(2 * period - 1) / 6.0
        divisor = sumX * sumX - n * sumXSquared
        barsSinceReseed = 32 * period
    }

    mutating func prime() {
        sumXY = 0
        sumY = 0
        var i = period - 1
        while i >= 0 {
            let y = window.back(i)
            sumY += y
            sumXY += Double(i) * y
            i -= 1
        }
    }

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        let x = bar.close
        window.push(x)
        let t = window.pushed - 1
        if t < period - 1 { return false }
        let n = Double(period)
        if t == period - 1 {
            prime()
        } else {
            let leaving = window.back(period)
            let weighted = n * leaving
            sumXY = sumXY + sumY - weighted
            sumY = sumY - leaving + x
            barsSinceReseed -= 1
            if barsSinceReseed <= 0 || abs(weighted) > 100.0 * abs(sumY) {
                barsSinceReseed = 32 * period
                prime()
            }
        }
        let m = (n * sumXY - sumX * sumY) / divisor
        if slopeOnly {
            out[0] = m
        } else {
            let b = (sumY - m * sumX) / n
            out[0] = b.addingProduct(m, Double(period - 1))
        }
        return true
    }
}

/// CORREL (TA-Lib 0.8.1): Pearson correlation of `high` and `low` (TA-Lib's default inputs) from running sums of the
/// deviations from shifts (first the window's first values, re-anchored on the window means by a two-pass rebuild
/// when a sum of squares falls below 1e-6 of its raw sum, a leaving square dwarfs the sum ×1e6, or every `32n`
/// bars); 0 unless both sums of squares exceed 1e-14 of their raw sums; clamped into [−1, 1].
struct TACORRELState: TAFunctionState {
    let period: Int
    let inversePeriod: Double
    var xs: TAWindow, ys: TAWindow
    var shiftX = 0.0, shiftY = 0.0
    var sumX = 0.0, sumY = 0.0, sumX2 = 0.0, sumY2 = 0.0, sumXY = 0.0
    var leavingX = 0.0, leavingY = 0.0
    var barsSinceReseed: Int

    init(period: Int) {
        self.period = period
        inversePeriod = 1.0 / Double(period)
        xs = TAWindow(capacity: period)
        ys = TAWindow(capacity: period)
        barsSinceReseed = 32 * period
    }

    @inline(__always) mutating func update(_ bar: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        if xs.pushed == 0 { (shiftX, shiftY) = (bar.high, bar.low) }
        xs.push(bar.high)
        ys.push(bar.low)
        let x = bar.high - shiftX, y = bar.low - shiftY
        sumX += x
        sumX2 += x * x
        sumXY += x * y
        sumY += y
        sumY2 += y * y
        guard xs.isFull else { return false }
        var ssX = sumX2 - ((sumX * sumX) * inversePeriod)
        var ssY = sumY2 - ((sumY * sumY) * inversePeriod)
        var spXY = sumXY - ((sumX * sumY) * inversePeriod)
        barsSinceReseed -= 1
        if ssX < 0.000001 * sumX2 || ssY < 0.000001 * sumY2 || leavingX > 1000000.0 * sumX2 || leavingY > 1000000.0 * sumY2
            || barsSinceReseed <= 0 {
            barsSinceReseed = 32 * period
            var tx = 0.0, ty = 0.0
            for j in 0..<period {
                tx += xs.back(period - 1 - j)
                ty += ys.back(period - 1 - j)
            }
            shiftX = tx * inversePeriod
            shiftY = ty * inversePeriod
            sumX = 0; sumY = 0; sumX2 = 0; sumY2 = 0; sumXY = 0
            for j in 0..<period {
                let a = xs.back(period - 1 - j) - shiftX, b = ys.back(period - 1 - j) - shiftY
                sumX += a
                sumX2 += a * a
                sumXY += a * b
                sumY += b
                sumY2 += b * b
            }
            ssX = sumX2 - ((sumX * sumX) * inversePeriod)
            ssY = sumY2 - ((sumY * sumY) * inversePeriod)
            spXY = sumXY - ((sumX * sumY) * inversePeriod)
            if ssX < 0.0 { ssX = 0.0 }
            if ssY < 0.0 { ssY = 0.0 }
        }
        let trailingX = xs.back(period - 1) - shiftX, trailingY = ys.back(period - 1) - shiftY
        if ssX > 0.00000000000001 * sumX2 && ssY > 0.00000000000001 * sumY2 {
            var r = spXY / (ssX * ssY).squareRoot()
            if r > 1.0 { r = 1.0 } else if r < -1.0 { r = -1.0 }
            out[0] = r
        } else {
            out[0] = 0.0
        }
        leavingX = trailingX * trailingX
        leavingY = trailingY * trailingY
        sumX -= trailingX
        sumX2 -= leavingX
        sumXY -= trailingX * trailingY
        sumY -= trailingY
        sumY2 -= leavingY
        return true
    }
}

/// BETA (TA-Lib 0.8.1) of `high` on `low` one-bar returns (TA-Lib's default inputs; a return from a TA-Lib-zero price
/// is 0) over the last `n` returns: running sums of the returns' deviations from shifts (first the window's first
/// return, re-anchored on the window means when `n·Σx² − (Σx)²` falls below 1e-6 of `n·Σx²`, a leaving square dwarfs
/// `Σx²` ×1e3, or every `32n` bars); `(n·Σxy − Σx·Σy)/(n·Σx² − (Σx)²)`, 0 unless the denominator exceeds 1e-14 of
/// its scale.
struct TABETAState: TAFunctionState {
    let period: Int
    let n: Double
    var prices: TAWindow, pricesY: TAWindow
    var shiftX = 0.0, shiftY = 0.0
    var sxx = 0.0, sxy = 0.0, sx = 0.0, sy = 0.0
    var leavingXX = 0.0
    var barsSinceReseed: Int

    init(period: Int) {
        self.period = period
        n = Double(period)
        prices = TAWindow(capacity: period + 1)
        pricesY = TAWindow(capacity: period + 1)
        barsSinceReseed = 32 * period
    }

    @inline(__always) static func ret(_ price: Double, _ previous: Double) -> Double? {
        taIsZero(previous) ? nil : (price - previous) / previous
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        prices.push(input.high)
        pricesY.push(input.low)
        let t = prices.pushed - 1
        if t == 0 { return false }
        if t == 1 {
            shiftX = Self.ret(prices.back(0), prices.back(1)) ?? 0.0
            shiftY = Self.ret(pricesY.back(0), pricesY.back(1)) ?? 0.0
        }
        let x = Self.ret(prices.back(0), prices.back(1)).map { $0 - shiftX } ?? -shiftX
        let y = Self.ret(pricesY.back(0), pricesY.back(1)).map { $0 - shiftY } ?? -shiftY
        sxx += x * x
        sxy += x * y
        sx += x
        sy += y
        guard t >= period else { return false }
        var scale = n * sxx
        var denominator = scale - (sx * sx)
        barsSinceReseed -= 1
        if denominator < 0.000001 * scale || leavingXX > 1000.0 * sxx || barsSinceReseed <= 0 {
            barsSinceReseed = 32 * period
            // The window's returns: bars t−n+1 … t, each from its predecessor (bar t−n is the oldest price kept).
            var rx = 0.0, ry = 0.0
            for j in 0..<period {
                let lag = period - 1 - j
                if let r = Self.ret(prices.back(lag), prices.back(lag + 1)) { rx += r }
                if let r = Self.ret(pricesY.back(lag), pricesY.back(lag + 1)) { ry += r }
            }
            shiftX = rx / n
            shiftY = ry / n
            sxx = 0; sxy = 0; sx = 0; sy = 0
            for j in 0..<period {
                let lag = period - 1 - j
                let a = Self.ret(prices.back(lag), prices.back(lag + 1)).map { $0 - shiftX } ?? -shiftX
                let b = Self.ret(pricesY.back(lag), pricesY.back(lag + 1)).map { $0 - shiftY } ?? -shiftY
                sxx += a * a
                sxy += a * b
                sx += a
                sy += b
            }
            scale = n * sxx
            denominator = scale - (sx * sx)
            if denominator < 0.0 { denominator = 0.0 }
        }
        // The return leaving the window (bar t−n+1), under the current shifts.
        let tx = Self.ret(prices.back(period - 1), prices.back(period)).map { $0 - shiftX } ?? -shiftX
        let ty = Self.ret(pricesY.back(period - 1), pricesY.back(period)).map { $0 - shiftY } ?? -shiftY
        out[0] = denominator > 0.00000000000001 * scale ? ((n * sxy) - (sx * sy)) / denominator : 0.0
        leavingXX = tx * tx
        sxx -= tx * tx
        sxy -= tx * ty
        sx -= tx
        sy -= ty
        return true
    }
}

// MARK: - SAR

/// Wilder's parabolic SAR as TA-Lib starts it: the direction from the first two bars' −DM (short when positive), the
/// first SAR the first bar's low (long) or high (short), then `sar + af·(ep − sar)` kept outside the last two bars'
/// range, reversals to the extreme point, `af` stepping by `acceleration` up to `maximum`; the step is one fused
/// multiply-add, as in TA-Lib 0.8.1.
struct TASARState: TAFunctionState {
    let acceleration: Double, maximum: Double
    var bar = -1
    var isLong = true
    var af = 0.0, ep = 0.0, sar = 0.0
    var newHigh = 0.0, newLow = 0.0
    var firstHigh = 0.0, firstLow = 0.0

    init(acceleration: Double, maximum: Double) {
        self.acceleration = min(acceleration, maximum)
        self.maximum = maximum
        af = self.acceleration
    }

    @inline(__always) mutating func update(_ input: TABar, _ out: inout SIMD4<Double>) throws(WindowOverflowError) -> Bool {
        bar += 1
        if bar == 0 {
            (firstHigh, firstLow) = (input.high, input.low)
            return false
        }
        if bar == 1 {
            let diffP = input.high - firstHigh, diffM = firstLow - input.low
            let minusDM = diffM > 0 && diffP < diffM ? diffM : 0.0
            isLong = !(minusDM > 0)
            if isLong {
                ep = input.high
                sar = firstLow
            } else {
                ep = input.low
                sar = firstHigh
            }
            newLow = input.low
            newHigh = input.high
        }
        let prevLow = newLow, prevHigh = newHigh
        newLow = input.low
        newHigh = input.high
        if isLong {
            if newLow <= sar {
                isLong = false
                sar = ep
                if sar < prevHigh { sar = prevHigh }
                if sar < newHigh { sar = newHigh }
                out[0] = sar
                af = acceleration
                ep = newLow
                sar = sar.addingProduct(af, ep - sar)
                if sar < prevHigh { sar = prevHigh }
                if sar < newHigh { sar = newHigh }
            } else {
                out[0] = sar
                if newHigh > ep {
                    ep = newHigh
                    af += acceleration
                    if af > maximum { af = maximum }
                }
                sar = sar.addingProduct(af, ep - sar)
                if sar > prevLow { sar = prevLow }
                if sar > newLow { sar = newLow }
            }
        } else if newHigh >= sar {
            isLong = true
            sar = ep
            if sar > prevLow { sar = prevLow }
            if sar > newLow { sar = newLow }
            out[0] = sar
            af = acceleration
            ep = newHigh
            sar = sar.addingProduct(af, ep - sar)
            if sar > prevLow { sar = prevLow }
            if sar > newLow { sar = newLow }
        } else {
            out[0] = sar
            if newLow < ep {
                ep = newLow
                af += acceleration
                if af > maximum { af = maximum }
            }
            sar = sar.addingProduct(af, ep - sar)
            if sar < prevHigh { sar = prevHigh }
            if sar < newHigh { sar = newHigh }
        }
        return true
    }
}

// MARK: - Independent copies (windows of their own; see TAWindow)

extension TAMovingAverageState { func independentCopy() -> Self { var c = self; c.average = average.independentCopy(); return c } }
extension TABBANDSState {
    func independentCopy() -> Self { var c = self; c.middle = middle.independentCopy(); c.variance = variance.independentCopy(); return c }
}
extension TAVARState { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TASTDDEVState { func independentCopy() -> Self { var c = self; c.variance = variance.independentCopy(); return c } }
extension TAExtremeState {
    func independentCopy() -> Self { var c = self; c.lowest = lowest.independentCopy(); c.highest = highest.independentCopy(); return c }
}
extension TASUMState { func independentCopy() -> Self { self } }  // RollingSum: an array (value semantics)
extension TAChangeState { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TACMOState { func independentCopy() -> Self { self } }
extension TATRIXState { func independentCopy() -> Self { self } }
extension TAMACDState {
    func independentCopy() -> Self {
        var c = self
        c.fast = fast.independentCopy()
        c.slow = slow.independentCopy()
        c.signal = signal.independentCopy()
        return c
    }
}
extension TAOscillatorState {
    func independentCopy() -> Self { var c = self; c.fast = fast.independentCopy(); c.slow = slow.independentCopy(); return c }
}
extension TAFastK {
    func independentCopy() -> Self { var c = self; c.lowest = lowest.independentCopy(); c.highest = highest.independentCopy(); return c }
}
extension TASTOCHState {
    func independentCopy() -> Self {
        var c = self
        c.k = k.independentCopy()
        c.slowK = slowK?.independentCopy()
        c.d = d.independentCopy()
        return c
    }
}
extension TASTOCHRSIState { func independentCopy() -> Self { var c = self; c.stochastic = stochastic.independentCopy(); return c } }
extension TAWILLRState {
    func independentCopy() -> Self { var c = self; c.lowest = lowest.independentCopy(); c.highest = highest.independentCopy(); return c }
}
extension TACCIState { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TADirectionalState { func independentCopy() -> Self { var c = self; c.history = history.independentCopy(); return c } }
extension TAAROONState {
    func independentCopy() -> Self { var c = self; c.lowest = lowest.independentCopy(); c.highest = highest.independentCopy(); return c }
}
extension TAMFIState {
    func independentCopy() -> Self { var c = self; c.positive = positive.independentCopy(); c.negative = negative.independentCopy(); return c }
}
extension TABOPState { func independentCopy() -> Self { self } }
extension TAULTOSCState {
    func independentCopy() -> Self { var c = self; c.pressure = pressure.independentCopy(); c.ranges = ranges.independentCopy(); return c }
}
extension TARangeState { func independentCopy() -> Self { self } }
extension TAVolumeState { func independentCopy() -> Self { self } }
extension TALinearRegressionState { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TACORRELState { func independentCopy() -> Self { var c = self; c.xs = xs.independentCopy(); c.ys = ys.independentCopy(); return c } }
extension TABETAState {
    func independentCopy() -> Self { var c = self; c.prices = prices.independentCopy(); c.pricesY = pricesY.independentCopy(); return c }
}
extension TASARState { func independentCopy() -> Self { self } }
