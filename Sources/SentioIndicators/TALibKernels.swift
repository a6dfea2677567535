import SentioCore

// The building blocks of the TA-Lib functions (TALibFunctions.swift): windows, TA-Lib's zero tests, its moving
// averages as streaming states. Every state is advanced one bar at a time; the batch form of every function runs
// the same `update` over the series, so batch and streaming agree bit for bit by construction.

/// TA-Lib's `TA_EPSILON` (1e-14): `TA_IS_ZERO(v)` is `−ε < v < ε`, `TA_IS_ZERO_OR_NEG(v)` is `v < ε`.
@usableFromInline let taEpsilon = 0.00000000000001

@inlinable @inline(__always) func taIsZero(_ v: Double) -> Bool { -taEpsilon < v && v < taEpsilon }
@inlinable @inline(__always) func taIsZeroOrNegative(_ v: Double) -> Bool { v < taEpsilon }
/// TA-Lib's `TA_IS_ZERO_SCALED(v, scale)`: `|v| ≤ ε·scale`.
@inlinable @inline(__always) func taIsZeroScaled(_ v: Double, _ scale: Double) -> Bool { abs(v) <= taEpsilon * scale }

/// The slots of a ``TAWindow``: one block of doubles, allocated once, freed with the last window that refers to it.
final class TAWindowStorage: @unchecked Sendable {
    let base: UnsafeMutablePointer<Double>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        base.initialize(repeating: 0, count: capacity)
    }

    init(copying other: TAWindowStorage) {
        capacity = other.capacity
        base = .allocate(capacity: capacity)
        base.initialize(from: other.base, count: capacity)
    }

    deinit {
        base.deinitialize(count: capacity)
        base.deallocate()
    }
}

/// A fixed-capacity window of the last values, in TA-Lib's circular-buffer layout: the `k`-th value pushed
/// (0-based) sits in slot `k mod capacity`, so a sum over the slots in slot order adds in TA-Lib's order.
/// Allocated once; pushing never allocates.
///
/// The slots are shared by copies of the window (a reference, written through a raw pointer: no copy-on-write check
/// per push, which measured 3–4× the cost of a whole MOM step in the batch loops). A state that holds windows
/// therefore gives an independent copy through ``TAFunctionState/independentCopy()``, and ``TAStream`` — the only
/// public owner of states — takes one before it updates a state whose stream value was copied (copy on write per
/// stream, checked once per update or batch run instead of once per push). Unchecked `Sendable` for the same
/// reason: a window is mutated only by the one stream that owns it uniquely.
struct TAWindow: @unchecked Sendable {
    private var storage: TAWindowStorage
    private var base: UnsafeMutablePointer<Double>
    let capacity: Int
    /// Values pushed so far.
    private(set) var pushed = 0
    /// The slot of the next push (`pushed mod capacity`, kept without a division).
    private var next = 0

    init(capacity: Int) {
        precondition(capacity >= 1 && capacity <= maximumIndicatorPeriod + 2, "window capacity out of range")
        storage = TAWindowStorage(capacity: capacity)
        base = storage.base
        self.capacity = capacity
    }

    /// This window with slots of its own (the same values).
    func independentCopy() -> TAWindow {
        var copy = self
        copy.storage = TAWindowStorage(copying: storage)
        copy.base = copy.storage.base
        return copy
    }

    var isFull: Bool { pushed >= capacity }
    var count: Int { Swift.min(pushed, capacity) }

    /// The value in slot `j` (`0..<capacity`), in TA-Lib's circular-buffer order.
    @inline(__always) func slot(_ j: Int) -> Double {
        assert(j >= 0 && j < capacity, "window slot out of range")
        return base[j]
    }

    /// Appends `x`, overwriting the oldest value once full.
    @inline(__always) mutating func push(_ x: Double) {
        base[next] = x
        next += 1
        if next == capacity { next = 0 }
        pushed += 1
    }

    /// The value pushed `lag` pushes ago (0: the newest). Requires `lag < count`.
    @inline(__always) func back(_ lag: Int) -> Double {
        var k = next - 1 - lag
        if k < 0 { k += capacity }
        assert(k >= 0 && k < capacity, "window lag out of range")
        return base[k]
    }

    /// The value with absolute push index `k` (it must still be in the window).
    @inline(__always) func at(_ k: Int) -> Double { back(pushed - 1 - k) }

    /// Scans the values with absolute push indices `start…end` (in the window) in push order, taking each value that
    /// `beats` the best so far (`best` at `bestIndex` to begin with): the slots in at most two contiguous runs.
    @inline(__always)
    func scan(from start: Int, through end: Int, best: inout Double, at bestIndex: inout Int,
              _ beats: (Double, Double) -> Bool) {
        guard start <= end else { return }
        var slot = start % capacity
        var i = start
        while i <= end {
            let run = Swift.min(end - i + 1, capacity - slot)
            for j in 0..<run {
                let v = base[slot + j]
                if beats(v, best) {
                    best = v
                    bestIndex = i + j
                }
            }
            i += run
            slot = 0
        }
    }
}

/// The extreme (lowest or highest) of the last `window` values by TA-Lib's rule: the extreme's bar is kept; when it
/// leaves the window the window is rescanned (`rescanTies`: whether a later equal value takes over in the rescan);
/// a new value equal to the extreme takes over. Used by MIN, MAX, MIDPOINT, MIDPRICE, STOCH, WILLR and AROON.
struct TAExtreme: Sendable {
    let window: Int
    let isMaximum: Bool
    let rescanTies: Bool
    var values: TAWindow
    var extremeIndex = -1
    var extreme = 0.0

    init(window: Int, isMaximum: Bool, rescanTies: Bool) {
        self.window = window
        self.isMaximum = isMaximum
        self.rescanTies = rescanTies
        values = TAWindow(capacity: window)
    }

    @inline(__always) func beats(_ x: Double, _ current: Double, ties: Bool) -> Bool {
        Self.beats(x, current, isMaximum: isMaximum, ties: ties)
    }

    /// Whether `x` takes over from `current`: higher (maximum) or lower, or equal too with `ties`.
    @inline(__always) static func beats(_ x: Double, _ current: Double, isMaximum: Bool, ties: Bool) -> Bool {
        if isMaximum { return ties ? x >= current : x > current }
        return ties ? x <= current : x < current
    }

    /// Pushes the next value; returns the extreme of the last `window` values (of those seen so far until the window
    /// is full) and the absolute index of its bar.
    @inline(__always) mutating func push(_ x: Double) -> (value: Double, index: Int) {
        values.push(x)
        let today = values.pushed - 1
        let trailing = Swift.max(0, today - window + 1)
        if extremeIndex < trailing {
            extremeIndex = trailing
            extreme = values.at(trailing)
            // `beats(v, extreme, ties: rescanTies)` over the rest of the window, one loop per rule (constants inlined).
            switch (isMaximum, rescanTies) {
            case (true, true): values.scan(from: trailing + 1, through: today, best: &extreme, at: &extremeIndex) { Self.beats($0, $1, isMaximum: true, ties: true) }
            case (true, false): values.scan(from: trailing + 1, through: today, best: &extreme, at: &extremeIndex) { Self.beats($0, $1, isMaximum: true, ties: false) }
            case (false, true): values.scan(from: trailing + 1, through: today, best: &extreme, at: &extremeIndex) { Self.beats($0, $1, isMaximum: false, ties: true) }
            case (false, false): values.scan(from: trailing + 1, through: today, best: &extreme, at: &extremeIndex) { Self.beats($0, $1, isMaximum: false, ties: false) }
            }
        } else if beats(x, extreme, ties: true) {
            extremeIndex = today
            extreme = x
        }
        return (extreme, extremeIndex)
    }
}

/// TA-Lib's moving-average types (`TA_MAType`), as `matype` parameters number them.
public enum TAMovingAverageType: Int, Sendable, CaseIterable, Codable {
    case sma = 0, ema, wma, dema, tema, trima, kama

    /// TA-Lib's name of the type.
    public var name: String {
        switch self {
        case .sma: "SMA"
        case .ema: "EMA"
        case .wma: "WMA"
        case .dema: "DEMA"
        case .tema: "TEMA"
        case .trima: "TRIMA"
        case .kama: "KAMA"
        }
    }

    /// TA-Lib's `TA_MA_Lookback`: 0 for period 1 (the average is then the input itself), else the type's lookback.
    public func lookback(_ period: Int) -> Int {
        if period <= 1 { return 0 }
        switch self {
        case .sma, .ema, .wma, .trima: return period - 1
        case .dema: return 2 * (period - 1)
        case .tema: return 3 * (period - 1)
        case .kama: return period
        }
    }
}

/// TA-Lib 0.8.1's EMA: default seeding (the mean of the first `n` values, summed from 0 in order), `k = 2/(n+1)`, and
/// the step `e + (x − e)·k` as one fused multiply-add (TA-Lib 0.8.1 fuses it; IEEE `fma` is correctly rounded, so
/// the bits are the same on every CPU, with or without FMA hardware). Sentio's own ``ExponentialMovingAverage``
/// keeps the unfused step; the two differ in the last bit on a few bars in a thousand.
struct TAEMA: Sendable {
    let period: Int
    let k: Double
    var seen = 0
    var average = 0.0

    init(period: Int) {
        self.period = period
        k = 2.0 / Double(period + 1)
    }

    @inline(__always) mutating func update(_ x: Double) -> Double? {
        if seen >= period {
            average = average.addingProduct(x - average, k)
            return average
        }
        seen += 1
        average += x
        guard seen == period else { return nil }
        average /= Double(period)
        return average
    }
}

/// TA-Lib `TA_WMA`: weights 1…n, kept as TA-Lib keeps them — `periodSum` (the weighted sum) and `periodSub` (the
/// plain sum): per bar `sub += x; sub −= trailing; sum += x·n; out = sum/divider; sum −= sub`, `divider = n(n+1)/2`;
/// both sums rebuilt from the window (oldest first, weights 1…n) every `8n` bars, as TA-Lib 0.8.1 does.
struct TAWMA: Sendable {
    let period: Int
    let divider: Double
    var window: TAWindow
    var periodSum = 0.0, periodSub = 0.0, trailingValue = 0.0
    var barsSinceReseed: Int

    init(period: Int) {
        self.period = period
        divider = Double(period) * Double(period + 1) / 2.0
        window = TAWindow(capacity: period)
        barsSinceReseed = 8 * period
    }

    @inline(__always) mutating func update(_ x: Double) -> Double? {
        if period == 1 { return x }
        let seen = window.pushed
        window.push(x)
        if seen < period - 1 {
            periodSub += x
            periodSum += x * Double(seen + 1)
            return nil
        }
        periodSub += x
        periodSub -= trailingValue
        periodSum += x * Double(period)
        barsSinceReseed -= 1
        if barsSinceReseed <= 0 {
            barsSinceReseed = 8 * period
            periodSub = 0
            periodSum = 0
            for w in 0..<period {
                let v = window.back(period - 1 - w)
                periodSub += v
                periodSum += v * Double(w + 1)
            }
        }
        trailingValue = window.back(period - 1)
        let value = periodSum / divider
        periodSum -= periodSub
        return value
    }
}

/// TA-Lib `TA_DEMA`: `2·EMA − EMA(EMA)`, as `(2·e₁) − e₂`.
struct TADEMA: Sendable {
    var first: TAEMA, second: TAEMA
    init(period: Int) { first = TAEMA(period: period); second = TAEMA(period: period) }
    @inline(__always) mutating func update(_ x: Double) -> Double? {
        guard let e1 = first.update(x), let e2 = second.update(e1) else { return nil }
        return (2.0 * e1) - e2
    }
}

/// TA-Lib `TA_TEMA`: `3·e₁ − 3·e₂ + e₃` (e₂ = EMA(e₁), e₃ = EMA(e₂)), as `e₃ + ((3·e₁) − (3·e₂))`.
struct TATEMA: Sendable {
    var first: TAEMA, second: TAEMA, third: TAEMA
    init(period: Int) { first = TAEMA(period: period); second = TAEMA(period: period); third = TAEMA(period: period) }
    @inline(__always) mutating func update(_ x: Double) -> Double? {
        guard let e1 = first.update(x), let e2 = second.update(e1), let e3 = third.update(e2) else { return nil }
        return e3 + ((3.0 * e1) - (3.0 * e2))
    }
}

/// TA-Lib `TA_TRIMA`: the triangular average, by TA-Lib's four running adjustments of one numerator (a numerator
/// over the first half and one over the second), times `1/((h+1)²)` (odd `n`, `h = n/2`) or `1/(h(h+1))` (even).
struct TATRIMA: Sendable {
    let period: Int
    let half: Int
    let factor: Double
    var window: TAWindow
    var numerator = 0.0, numeratorSub = 0.0, numeratorAdd = 0.0

    init(period: Int) {
        self.period = period
        half = period >> 1
        factor = period % 2 == 1 ? 1.0 / Double((half + 1) * (half + 1)) : 1.0 / Double(half * (half + 1))
        window = TAWindow(capacity: period + 1)
    }

    @inline(__always) mutating func update(_ x: Double) -> Double? {
        window.push(x)
        let t = window.pushed - 1
        if t < period - 1 { return nil }
        let odd = period % 2 == 1
        if t == period - 1 {
            // The first window, bars 0…n−1: TA-Lib's two initial loops.
            let middle = odd ? half : half - 1
            var i = middle
            while i >= 0 {
                numeratorSub += window.at(i)
                numerator += numeratorSub
                i -= 1
            }
            var k = middle + 1
            while k <= period - 1 {
                numeratorAdd += window.at(k)
                numerator += numeratorAdd
                k += 1
            }
            return numerator * factor
        }
        let leaving = window.at(t - period)
        let middleValue = window.at(t - half)
        numerator -= numeratorSub
        numeratorSub -= leaving
        numeratorSub += middleValue
        if odd {
            numerator += numeratorAdd
            numeratorAdd -= middleValue
        } else {
            numeratorAdd -= middleValue
            numerator += numeratorAdd
        }
        numeratorAdd += x
        numerator += x
        return numerator * factor
    }
}

/// TA-Lib `TA_KAMA` (Kaufman): efficiency ratio `|xₜ − xₜ₋ₙ| / Σ|Δx|` over `n` bars (1 where the sum is not above the
/// change or is zero), `sc = (ER·(2/3 − 2/31) + 2/31)²`, `KAMA = (x − KAMA)·sc + KAMA` (both multiply-adds fused, as in TA-Lib 0.8.1), first value at bar `n` from
/// `KAMA = xₙ₋₁`; the sum of absolute changes is kept running, as in TA-Lib.
struct TAKAMA: Sendable {
    let period: Int
    var window: TAWindow
    var sumROC1 = 0.0
    var previous = 0.0
    static let constMax = 2.0 / (30.0 + 1.0)
    static let constDiff = 2.0 / (2.0 + 1.0) - constMax

    init(period: Int) {
        self.period = period
        window = TAWindow(capacity: period + 2)
    }

    @inline(__always) mutating func update(_ x: Double) -> Double? {
        if period == 1 { return x }
        window.push(x)
        let t = window.pushed - 1
        if t == 0 { return nil }
        if t <= period {
            var d = window.at(t - 1)
            d -= x
            sumROC1 += abs(d)
            guard t == period else { return nil }
            previous = window.at(t - 1)
        } else {
            sumROC1 -= abs(window.at(t - period - 1) - window.at(t - period))
            sumROC1 += abs(x - window.at(t - 1))
        }
        let periodROC = x - window.at(t - period)
        var ratio = sumROC1 <= periodROC || taIsZero(sumROC1) ? 1.0 : abs(periodROC / sumROC1)
        ratio = Self.constMax.addingProduct(ratio, Self.constDiff)
        ratio *= ratio
        previous = previous.addingProduct(x - previous, ratio)
        return previous
    }
}

/// A TA-Lib moving average of any supported type (`TA_MA`): period 1 returns the input itself, as TA-Lib does for
/// every type. Lookback: ``TAMovingAverageType/lookback(_:)``.
struct TAMovingAverage: Sendable {
    let type: TAMovingAverageType
    let period: Int
    var sma: SimpleMovingAverage?
    var ema: TAEMA?
    var wma: TAWMA?
    var dema: TADEMA?
    var tema: TATEMA?
    var trima: TATRIMA?
    var kama: TAKAMA?
    /// Period 1 passes the input through (TA-Lib's `TA_MA`); MACD's signal EMA of period 1 is a true EMA instead.
    let identity: Bool

    init(type: TAMovingAverageType, period: Int, identityAtPeriodOne: Bool = true) {
        self.type = type
        self.period = period
        identity = period <= 1 && identityAtPeriodOne
        guard !identity else { return }
        switch type {
        case .sma: sma = SimpleMovingAverage(period: period)
        case .ema: ema = TAEMA(period: period)
        case .wma: wma = TAWMA(period: period)
        case .dema: dema = TADEMA(period: period)
        case .tema: tema = TATEMA(period: period)
        case .trima: trima = TATRIMA(period: period)
        case .kama: kama = TAKAMA(period: period)
        }
    }

    var lookback: Int { identity ? 0 : type.lookback(Swift.max(period, 2)) - (period == 1 ? 1 : 0) }

    @inline(__always) mutating func update(_ x: Double) throws(WindowOverflowError) -> Double? {
        if identity { return x }
        switch type {
        case .sma: return try sma!.update(x)
        case .ema: return ema!.update(x)
        case .wma: return wma!.update(x)
        case .dema: return dema!.update(x)
        case .tema: return tema!.update(x)
        case .trima: return trima!.update(x)
        case .kama: return kama!.update(x)
        }
    }
}

/// TA-Lib's RSI as its `TA_STOCHRSI` uses it: Wilder averages in ``RelativeStrengthIndex``'s (TA-Lib's) order, and 0
/// where `avgGain + avgLoss` is TA-Lib-zero (Sentio's own RSI says 50 there; STOCHRSI keeps TA-Lib's value).
struct TARSI: Sendable {
    var rsi: RelativeStrengthIndex
    init(period: Int) { rsi = RelativeStrengthIndex(period: period) }
    @inline(__always) mutating func update(_ x: Double) -> Double? {
        guard let value = rsi.update(x) else { return nil }
        let total = (rsi.averageGain + rsi.averageLoss) / RelativeStrengthIndex.inputScale
        return taIsZero(total) ? 0.0 : value
    }
}

// MARK: - Independent copies (windows of their own; see TAWindow)

extension TAExtreme { func independentCopy() -> Self { var c = self; c.values = values.independentCopy(); return c } }
extension TAWMA { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TATRIMA { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TAKAMA { func independentCopy() -> Self { var c = self; c.window = window.independentCopy(); return c } }
extension TAMovingAverage {
    /// SMA (a `RingBuffer` array), EMA, DEMA, TEMA hold no ``TAWindow``.
    func independentCopy() -> Self {
        var c = self
        c.wma = wma?.independentCopy()
        c.trima = trima?.independentCopy()
        c.kama = kama?.independentCopy()
        return c
    }
}
