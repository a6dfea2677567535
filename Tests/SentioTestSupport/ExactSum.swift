/// Exact arithmetic for checking windowed statistics: every finite `Double` is an integer multiple of
/// `2^offset` for a small enough `offset`, so sums, differences and products of doubles are computed
/// exactly as arbitrary-precision integers (sign and magnitude over `UInt64` limbs) in units of
/// `2^offset`. Only the final comparison rounds (see ``ExactInteger/scaled(offset:)``).

/// A signed arbitrary-precision integer (sign and little-endian `UInt64` magnitude, no leading zero limbs).
public struct ExactInteger: Sendable, Equatable {
    public var negative = false
    public var limbs: [UInt64] = []

    public init() {}

    public var isZero: Bool { limbs.isEmpty }

    /// `x / 2^offset` exactly. Precondition: `x` is finite and a multiple of `2^offset`.
    public init(_ x: Double, offset: Int) {
        precondition(x.isFinite)
        guard x != 0 else { return }
        negative = x < 0
        let bits = x.significandBitPattern | (x.isNormal ? 1 << 52 : 0)
        let exponent = (x.isNormal ? Int(x.exponentBitPattern) - 1075 : -1074)
        let shift = exponent - offset
        precondition(shift >= 0 || bits.trailingZeroBitCount >= -shift, "offset \(offset) too large for \(x)")
        if shift < 0 {
            limbs = [bits >> UInt64(-shift)]
        } else {
            limbs = ExactInteger.shiftedLeft([bits], by: shift)
        }
        trim()
    }

    /// The smallest `offset` for which every value of `xs` is a multiple of `2^offset` (or 0 if all are 0).
    public static func offset(for xs: [Double]) -> Int {
        var best = Int.max
        for x in xs where x != 0 && x.isFinite {
            let bits = x.significandBitPattern | (x.isNormal ? 1 << 52 : 0)
            let exponent = (x.isNormal ? Int(x.exponentBitPattern) - 1075 : -1074)
            best = min(best, exponent + bits.trailingZeroBitCount)
        }
        return best == Int.max ? 0 : best
    }

    static func shiftedLeft(_ a: [UInt64], by shift: Int) -> [UInt64] {
        let whole = shift / 64, part = shift % 64
        var out = [UInt64](repeating: 0, count: a.count + whole + 1)
        for (i, limb) in a.enumerated() {
            out[i + whole] |= limb << UInt64(part)
            if part > 0 { out[i + whole + 1] |= limb >> UInt64(64 - part) }
        }
        return out
    }

    mutating func trim() {
        while let last = limbs.last, last == 0 { limbs.removeLast() }
        if limbs.isEmpty { negative = false }
    }

    static func compareMagnitude(_ a: [UInt64], _ b: [UInt64]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }

    static func addMagnitudes(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: max(a.count, b.count) + 1)
        var carry: UInt64 = 0
        for i in 0..<(out.count - 1) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            let (s1, o1) = x.addingReportingOverflow(y)
            let (s2, o2) = s1.addingReportingOverflow(carry)
            out[i] = s2
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        out[out.count - 1] = carry
        return out
    }

    /// `a − b` for `|a| ≥ |b|`.
    static func subtractMagnitudes(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var out = a
        var borrow: UInt64 = 0
        for i in 0..<out.count {
            let y = i < b.count ? b[i] : 0
            let (d1, o1) = out[i].subtractingReportingOverflow(y)
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            out[i] = d2
            borrow = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        return out
    }

    public static func + (a: ExactInteger, b: ExactInteger) -> ExactInteger {
        var r = ExactInteger()
        if a.negative == b.negative {
            r.limbs = addMagnitudes(a.limbs, b.limbs)
            r.negative = a.negative
        } else if compareMagnitude(a.limbs, b.limbs) >= 0 {
            r.limbs = subtractMagnitudes(a.limbs, b.limbs)
            r.negative = a.negative
        } else {
            r.limbs = subtractMagnitudes(b.limbs, a.limbs)
            r.negative = b.negative
        }
        r.trim()
        return r
    }

    public static prefix func - (a: ExactInteger) -> ExactInteger {
        var r = a
        if !r.isZero { r.negative.toggle() }
        return r
    }

    public static func - (a: ExactInteger, b: ExactInteger) -> ExactInteger { a + (-b) }

    public static func * (a: ExactInteger, b: ExactInteger) -> ExactInteger {
        guard !a.isZero, !b.isZero else { return ExactInteger() }
        var out = [UInt64](repeating: 0, count: a.limbs.count + b.limbs.count + 1)
        for (i, x) in a.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, y) in b.limbs.enumerated() {
                let (high, low) = x.multipliedFullWidth(by: y)
                let (s1, o1) = out[i + j].addingReportingOverflow(low)
                let (s2, o2) = s1.addingReportingOverflow(carry)
                out[i + j] = s2
                carry = high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
            }
            var k = i + b.limbs.count
            while carry != 0 {
                let (s, o) = out[k].addingReportingOverflow(carry)
                out[k] = s
                carry = o ? 1 : 0
                k += 1
            }
        }
        var r = ExactInteger()
        r.limbs = out
        r.negative = a.negative != b.negative
        r.trim()
        return r
    }

    /// `self · k` for a small non-negative integer `k`.
    public func times(_ k: Int) -> ExactInteger {
        var kk = ExactInteger()
        if k != 0 { kk.limbs = [UInt64(k)] }
        return self * kk
    }

    public var magnitude: ExactInteger {
        var r = self
        r.negative = false
        return r
    }

    /// The value `self · 2^offset` as `m · 2^e` with `m` a double in `[1, 2)` (sign included) rounded from the
    /// top 64 bits (relative error below 2⁻⁵²), or `(0, 0)`.
    public func scaled(offset: Int) -> Scaled {
        guard let top = limbs.last else { return Scaled(mantissa: 0, exponent: 0) }
        let topBits = 64 - top.leadingZeroBitCount
        let totalBits = (limbs.count - 1) * 64 + topBits
        // The 64 most significant bits, and a sticky bit for the rest.
        var high: UInt64 = 0
        let drop = totalBits - 64
        if drop <= 0 {
            high = limbs[0] << UInt64(-drop)
        } else {
            let whole = drop / 64, part = drop % 64
            high = limbs[whole] >> UInt64(part)
            if part > 0, whole + 1 < limbs.count { high |= limbs[whole + 1] << UInt64(64 - part) }
            var sticky = part > 0 && (limbs[whole] << UInt64(64 - part)) != 0
            for i in 0..<whole where limbs[i] != 0 { sticky = true }
            if sticky { high |= 1 }
        }
        let m = Double(high) * 0x1p-63  // in [1, 2]
        let value = Scaled(mantissa: negative ? -m : m, exponent: totalBits - 64 + 63 + offset)
        return value.normalized
    }
}

/// `mantissa · 2^exponent`: a double with an unbounded exponent, for comparisons beyond the double range.
public struct Scaled: Sendable {
    public var mantissa: Double
    public var exponent: Int

    public init(mantissa: Double, exponent: Int) {
        self.mantissa = mantissa
        self.exponent = exponent
    }

    public init(_ x: Double) {
        if x == 0 || !x.isFinite {
            self.init(mantissa: x, exponent: 0)
        } else {
            self.init(mantissa: x.significand * (x < 0 ? -1 : 1), exponent: Int(x.exponent))
        }
    }

    var normalized: Scaled {
        guard mantissa != 0 && mantissa.isFinite else { return self }
        let e = Int(mantissa.exponent)
        return Scaled(mantissa: mantissa * Double(sign: .plus, exponent: -e, significand: 1), exponent: exponent + e)
    }

    public var isZero: Bool { mantissa == 0 }

    /// The nearest double (±∞ beyond the range, a correctly scaled subnormal or 0 below it).
    public var double: Double {
        if mantissa == 0 { return 0 }
        if exponent > 1023 { return mantissa > 0 ? .infinity : -.infinity }
        if exponent < -1100 { return 0 }
        let half = exponent / 2
        return mantissa * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: exponent - half, significand: 1)
    }

    public static func * (a: Scaled, b: Scaled) -> Scaled {
        Scaled(mantissa: a.mantissa * b.mantissa, exponent: a.exponent + b.exponent).normalized
    }

    public static func / (a: Scaled, b: Scaled) -> Scaled {
        Scaled(mantissa: a.mantissa / b.mantissa, exponent: a.exponent - b.exponent).normalized
    }

    public func squareRoot() -> Scaled {
        precondition(mantissa >= 0)
        if mantissa == 0 { return self }
        var m = mantissa, e = exponent
        if e % 2 != 0 {
            m *= 2
            e -= 1
        }
        return Scaled(mantissa: m.squareRoot(), exponent: e / 2).normalized
    }

    public var magnitude: Scaled { Scaled(mantissa: abs(mantissa), exponent: exponent) }

    /// `|a − b| ≤ bound` for `a` given as a double (finite) — computed in the common scale.
    public static func distance(_ a: Double, _ b: Scaled) -> Scaled {
        if b.isZero { return Scaled(a).magnitude }
        let e = b.exponent
        let scaledA = Scaled(a)
        let aInB = scaledA.isZero ? 0 : scaledA.mantissa * Scaled.pow2(scaledA.exponent - e)
        return Scaled(mantissa: abs(aInB - b.mantissa), exponent: e).normalized
    }

    /// `self ≤ other`.
    public func isAtMost(_ other: Scaled) -> Bool {
        if mantissa == 0 { return other.mantissa >= 0 }
        if other.mantissa == 0 { return mantissa <= 0 }
        let d = exponent - other.exponent
        if d > 3 { return mantissa < 0 }
        if d < -3 { return other.mantissa > 0 }
        return mantissa * Scaled.pow2(d) <= other.mantissa
    }

    static func pow2(_ e: Int) -> Double {
        if e > 1023 { return .infinity }
        if e < -1074 { return 0 }
        return Double(sign: .plus, exponent: e, significand: 1)
    }
}

/// Exact sums over a sliding window of doubles: `Σx`, `Σ|x|` and `Σx²` as ``ExactInteger``s (units `2^offset`
/// and `2^(2·offset)`), updated exactly by adding the new value and removing the old one.
public struct ExactWindow: Sendable {
    public let offset: Int
    public private(set) var sum = ExactInteger()
    public private(set) var absoluteSum = ExactInteger()
    public private(set) var sumOfSquares = ExactInteger()
    public private(set) var values: [Double] = []
    let trackSquares: Bool

    public init(offset: Int, trackSquares: Bool = true) {
        self.offset = offset
        self.trackSquares = trackSquares
    }

    public mutating func add(_ x: Double) {
        let e = ExactInteger(x, offset: offset)
        sum = sum + e
        absoluteSum = absoluteSum + e.magnitude
        if trackSquares { sumOfSquares = sumOfSquares + e * e }
        values.append(x)
    }

    public mutating func removeOldest() {
        let x = values.removeFirst()
        let e = ExactInteger(x, offset: offset)
        sum = sum - e
        absoluteSum = absoluteSum - e.magnitude
        if trackSquares { sumOfSquares = sumOfSquares - e * e }
    }

    public var count: Int { values.count }
    /// `Σx`.
    public var exactSum: Scaled { sum.scaled(offset: offset) }
    /// `Σ|x|`.
    public var exactAbsoluteSum: Scaled { absoluteSum.scaled(offset: offset) }
    /// `Σx²`.
    public var exactSumOfSquares: Scaled { sumOfSquares.scaled(offset: 2 * offset) }
    /// `n·M2 = n·Σx² − (Σx)²` (exact, then rounded).
    public var countTimesM2: Scaled { (sumOfSquares.times(count) - sum * sum).scaled(offset: 2 * offset) }
    /// `n·x − Σx` for a value `x` (exact, then rounded).
    public func countTimesDeviation(_ x: Double) -> Scaled {
        (ExactInteger(x, offset: offset).times(count) - sum).scaled(offset: offset)
    }
}
