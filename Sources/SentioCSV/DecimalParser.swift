#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one number grammar and parser of every Sentio reader: OHLCV prices and volumes, fund event amounts, cash-flow
/// (XIRR) amounts and index levels. Results are identical to `Double(String)` (correctly rounded).
///
/// Grammar (ASCII, nothing else in the cell):
/// ```
/// number   = [sign] (digits ["." [digits]] | "." digits) [exponent]
/// exponent = ("e" | "E") [sign] digits
/// sign     = "+" | "-"
/// ```
/// So `12`, `-0.5`, `+3.`, `.25`, `1e3`, `2.5E-4` are numbers; spaces inside the cell, thousands separators,
/// hexadecimal (`0x10`), `nan`, `inf`, `infinity` and an empty cell are not. A numeral whose value overflows
/// `Double` gives an infinite result, which every reader rejects as "not a finite number"; one that underflows
/// rounds to 0 or a subnormal, as `Double(String)` does. Readers then apply their own range rules (prices > 0,
/// volumes ≥ 0, fund amounts ≥ 0 and exactly representable as `Decimal`, index levels > 0).
///
/// Fast path (Clinger 1990, "How to read floating point numbers accurately"): when the significant digits fit
/// in a `UInt64` mantissa `m <= 2^53` and the decimal exponent `e` satisfies `|e| <= 22`, both `m` and `10^|e|`
/// are exact doubles, so the single IEEE operation `m * 10^e` or `m / 10^-e` is correctly rounded. Anything
/// else (more than 19 significant digits, large exponents) goes to the C library's `strtod`, which is
/// correctly rounded on glibc.
public enum DecimalParser {
    /// Exact powers of ten, 10^0 ... 10^22 (all representable in binary64).
    public static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
        1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// 10^k for k in 0...22 (exact), without touching a global: inlined into other modules' hot loops, a table in
    /// a global would cost a lazy-initialisation check per call.
    @inlinable @inline(__always)
    static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// Parses `text` (ASCII bytes); returns `nil` when it is not a decimal number.
    public static func parse(_ text: some StringProtocol) -> Double? {
        var copy = String(text)
        return copy.withUTF8 { parse($0.baseAddress!, count: $0.count) }
    }

    /// Parses `count` bytes at `p`; returns `nil` when they are not a decimal number.
    ///
    /// The result may be infinite when the value overflows `Double` (as `Double(String)` does).
    @inlinable
    public static func parse(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        var i = 0
        var negative = false
        if i < count, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
            negative = p[i] == UInt8(ascii: "-")
            i += 1
        }
        // Leading zeros carry no information; then every digit goes into the mantissa (it may wrap past 19
        // significant digits, in which case the exact fallback below is used).
        let integerStart = i
        while i < count, p[i] == UInt8(ascii: "0") { i += 1 }
        var mantissa: UInt64 = 0
        let significantStart = i
        while i < count {
            let d = p[i] &- 48
            if d >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        var significantDigits = i - significantStart
        var sawDigit = i > integerStart
        var exponent = 0
        if i < count, p[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            if significantDigits == 0 {
                while i < count, p[i] == UInt8(ascii: "0") { i += 1 }
            }
            let fractionSignificantStart = i
            while i < count {
                let d = p[i] &- 48
                if d >= 10 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            significantDigits += i - fractionSignificantStart
            exponent = fractionStart - i
            sawDigit = sawDigit || i > fractionStart
        }
        let tooManyDigits = significantDigits > 19
        guard sawDigit else { return nil }
        if i < count, p[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < count, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
                exponentNegative = p[i] == UInt8(ascii: "-")
                i += 1
            }
            var explicit = 0
            var sawExponentDigit = false
            while i < count {
                let d = p[i] &- 48
                if d >= 10 { break }
                sawExponentDigit = true
                if explicit < 100_000 { explicit = explicit * 10 + Int(d) }
                i += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentNegative ? -explicit : explicit
        }
        guard i == count else { return nil }

        if !tooManyDigits {
            if mantissa == 0 { return negative ? -0.0 : 0.0 }
            if mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
                var value = Double(mantissa)
                if exponent < 0 {
                    value /= powerOfTen(-exponent)
                } else {
                    value *= powerOfTen(exponent)
                }
                return negative ? -value : value
            }
        }
        return parseWithStrtod(p, count: count)
    }

    /// As ``parse(_:count:)``, with a fast path for the common shape of prices and volumes in CSV files:
    /// at most 8 bytes of plain digits with at most one `.` (`16.5846`, `2003963`, `0.5`, `12.`). `readable`
    /// is how many bytes at `p` may be read (at least `count`); with 8 or more, the field is loaded as one
    /// 64-bit word and converted without a loop over its bytes (SWAR, as in Lemire's fast_float
    /// `parse_eight_digits_unrolled`: pairs, then quads, then the 8-digit value by two multiplications).
    /// The mantissa (< 10⁸) and exponent are exactly those of the general path, so the result is the same
    /// correctly rounded `mantissa / 10^fractionDigits`. Anything else (signs, exponents, longer fields,
    /// non-digits) goes to the general path.
    @inlinable @inline(__always)
    public static func parse(_ p: UnsafePointer<UInt8>, count: Int, readable: Int) -> Double? {
        if count > 0, count <= 8, readable >= 8, let value = parseEightBytes(p, count: count) { return value }
        return parse(p, count: count)
    }

    /// The SWAR fast path of ``parse(_:count:readable:)``; `nil` means "not this shape" (not "invalid").
    @inlinable @inline(__always)
    static func parseEightBytes(_ p: UnsafePointer<UInt8>, count n: Int) -> Double? {
        let zeros: UInt64 = 0x3030_3030_3030_3030
        // Shifting the field to the top of the word drops the bytes that follow it; the freed low bytes are 0.
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) &<< UInt64(8 * (8 - n))
        // Every `.` (exact zero-byte test of word XOR "........", no false positives); take the lowest.
        let x = word ^ 0x2E2E_2E2E_2E2E_2E2E
        let dotFlags = ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x) & 0x8080_8080_8080_8080
        var digits = word
        var digitCount = n
        var fractionDigits = 0
        if dotFlags != 0 {
            let dot = dotFlags.trailingZeroBitCount >> 3  // ≥ 8 − n
            let shift = UInt64(8 * dot)
            // Remove the dot: the bytes below it move up one byte, the ones above stay (right-aligned).
            let below = word & ((1 &<< shift) &- 1)
            let above = ((word &>> shift) & ~0xFF) &<< shift
            digits = above | (below &<< 8)
            digitCount = n - 1
            fractionDigits = 7 - dot
            if digitCount == 0 { return nil }
        }
        // Pad the 8 − digitCount low bytes (leading positions) with '0'.
        digits |= (zeros &>> UInt64(8 * digitCount - 8)) &>> 8
        // All eight bytes must be ASCII digits (a second dot, a sign, `e` or a space fail here).
        guard (digits & 0xF0F0_F0F0_F0F0_F0F0) | (((digits &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) &>> 4)
            == 0x3333_3333_3333_3333
        else { return nil }
        var v = digits &- zeros
        v = (v &* 10) &+ (v &>> 8)
        v = (((v & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 &<< 32)))
            &+ (((v &>> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 &<< 32)))) &>> 32
        let mantissa = Double(v)
        return fractionDigits == 0 ? mantissa : mantissa / powerOfTen(fractionDigits)
    }

    /// The parts of a numeral of the grammar: sign, significant digits (no leading or trailing zeros; empty for
    /// zero) and the power of ten they are scaled by, so that the value is `±digits × 10^exponent` exactly.
    public struct Numeral: Sendable, Equatable {
        public var negative: Bool
        public var digits: String
        public var exponent: Int
    }

    /// Splits `text` into its ``Numeral`` parts, for readers that keep the exact decimal value (fund amounts);
    /// `nil` exactly when ``parse(_:)`` returns `nil`. The exponent saturates at ±1,000,000.
    public static func numeral(_ text: some StringProtocol) -> Numeral? {
        guard parse(text) != nil else { return nil }
        let u = Array(text.utf8)
        var i = 0
        var negative = false
        if i < u.count, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") {
            negative = u[i] == UInt8(ascii: "-")
            i += 1
        }
        var digits: [UInt8] = []
        var exponent = 0
        var seenDot = false
        while i < u.count, u[i] != UInt8(ascii: "e"), u[i] != UInt8(ascii: "E") {
            if u[i] == UInt8(ascii: ".") {
                seenDot = true
            } else {
                if !(digits.isEmpty && u[i] == UInt8(ascii: "0")) { digits.append(u[i]) }
                if seenDot { exponent -= 1 }
            }
            i += 1
        }
        if i < u.count {
            i += 1
            var exponentNegative = false
            if u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") {
                exponentNegative = u[i] == UInt8(ascii: "-")
                i += 1
            }
            var explicit = 0
            while i < u.count {
                explicit = min(explicit * 10 + Int(u[i] - 48), 1_000_000)
                i += 1
            }
            exponent += exponentNegative ? -explicit : explicit
        }
        while let last = digits.last, last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { exponent = 0 }
        return Numeral(negative: negative, digits: String(decoding: digits, as: UTF8.self), exponent: exponent)
    }

    /// Exact fallback for syntax already validated above.
    @usableFromInline @inline(never)
    static func parseWithStrtod(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
            for k in 0..<count { buffer[k] = CChar(bitPattern: p[k]) }
            buffer[count] = 0
            var end: UnsafeMutablePointer<CChar>? = nil
            let value = strtod(buffer.baseAddress!, &end)
            guard let end, end - buffer.baseAddress! == count else { return nil }
            return value
        }
    }

    /// Whether `text` spells NaN or infinity (`nan`, `inf`, `infinity`, any case, optional sign).
    public static func spellsNonFinite(_ text: String) -> Bool {
        var t = text.lowercased()
        if t.hasPrefix("-") || t.hasPrefix("+") { t.removeFirst() }
        return t == "nan" || t == "inf" || t == "infinity"
    }
}
