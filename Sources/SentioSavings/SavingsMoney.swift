import Foundation
import SentioCore
import SentioCSV

/// Money in the allowance ledger: `Decimal` amounts with at most 2 decimal places, summed exactly.
///
/// Rules:
/// - Text follows the one Sentio number grammar (`DecimalParser`: optional sign, digits, optional `.` fraction,
///   optional exponent; no thousands separators, no `nan`/`inf`).
/// - The value may have at most 2 decimal places: `1.005` is an error, `12.5`, `12.50` and `12.500` are 12.50.
/// - The value is below 10¹² in magnitude (at most 12 digits before the point).
/// - Sums and differences of such values are exact in `Decimal` (38 significant digits), so adding 0.10 a
///   million times gives exactly 100000.00.
public enum SavingsMoney {
    /// The largest magnitude accepted: 999,999,999,999.99.
    public static let maximum = Decimal(string: "999999999999.99", locale: Locale(identifier: "en_US_POSIX"))!

    /// Why a cell is not an amount of money.
    public struct Problem: Error, Sendable, Equatable {
        public var message: String
    }

    /// The exact value of `text`, or the reason it is not an amount with at most 2 decimal places.
    public static func parse(_ text: String) -> Result<Decimal, Problem> {
        let shown = EchoedText.quoted(text)
        guard let numeral = DecimalParser.numeral(text) else {
            if DecimalParser.spellsNonFinite(text) { return .failure(Problem(message: "\(shown) is not a finite amount")) }
            return .failure(Problem(message:
                "\(shown) is not an amount (expected an optional sign, digits and at most 2 decimal places, as in 12.50)"))
        }
        if numeral.digits.isEmpty { return .success(0) }
        if numeral.exponent < -2 {
            return .failure(Problem(message: "\(shown) has more than 2 decimal places (amounts are in whole cents)"))
        }
        if numeral.digits.utf8.count + numeral.exponent > 12 {
            return .failure(Problem(message: "\(shown) is too large (at most 999999999999.99)"))
        }
        // At most 12 integer digits + 2 decimals: the digits fit a UInt64.
        let significand = Decimal(UInt64(numeral.digits)!)
        return .success(Decimal(sign: numeral.negative ? .minus : .plus, exponent: numeral.exponent, significand: significand))
    }

    /// `value` rounded to `places` decimal places, halves away from zero.
    public static func rounded(_ value: Decimal, places: Int = 2) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, places, .plain)
        return result
    }

    /// `value` rounded down (toward zero for positive values) to `places` decimal places.
    public static func roundedDown(_ value: Decimal, places: Int = 2) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, places, .down)
        return result
    }

    /// The amount of `cents` whole cents, exactly.
    public static func decimal(cents: Int64) -> Decimal { Decimal(cents) / 100 }

    /// `value` in whole cents.
    /// - Precondition: `value` has at most 2 decimal places and is at most ``maximum`` in magnitude.
    public static func cents(_ value: Decimal) -> Int64 {
        precondition(isWholeCents(value) && value.magnitude <= maximum, "\(value) is not an amount in whole cents")
        return NSDecimalNumber(decimal: value * 100).int64Value
    }

    /// Whether `value` has at most 2 decimal places.
    public static func isWholeCents(_ value: Decimal) -> Bool { rounded(value) == value }

    /// `value` written with exactly two decimals: `12.50`, `-0.05`, `0.00`.
    ///
    /// - Precondition: `value` has at most 2 decimal places (round it first: ``rounded(_:places:)``); a value
    ///   with more is a bug, never silently rounded here.
    public static func text(_ value: Decimal) -> String {
        precondition(isWholeCents(value), "\(value) has more than 2 decimal places")
        let cents = value * 100
        var digits = cents.magnitude.description
        precondition(digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber), "unexpected decimal text \(digits)")
        if digits.count < 3 { digits = String(repeating: "0", count: 3 - digits.count) + digits }
        let sign = value < 0 ? "-" : ""
        return sign + digits.dropLast(2) + "." + digits.suffix(2)
    }
}

/// The day of the week a child's allowance is paid.
public enum AllowanceDay: String, Sendable, Hashable, CaseIterable, Codable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// 0 = Monday ... 6 = Sunday, as `CivilDate.weekday`.
    public var weekday: Int { Self.allCases.firstIndex(of: self)! }
}

/// Timestamps of ledger rows: a date `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM:SSZ` (UTC).
public enum LedgerTimestamp {
    /// Epoch seconds of `text`, or `nil` when it is neither form (or out of range: hours 00–23, minutes and
    /// seconds 00–59, years 0001–9999).
    public static func parse(_ text: String) -> Int64? {
        if let date = CivilDate(iso: text) { return date.epochSeconds }
        let u = Array(text.utf8)
        guard u.count == 20, u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":"),
            u[19] == UInt8(ascii: "Z"), let date = CivilDate(iso: String(decoding: u[0..<10], as: UTF8.self)),
            let h = twoDigits(u[11], u[12]), let m = twoDigits(u[14], u[15]), let s = twoDigits(u[17], u[18]),
            h < 24, m < 60, s < 60
        else { return nil }
        return date.epochSeconds + Int64(h * 3600 + m * 60 + s)
    }

    private static func twoDigits(_ a: UInt8, _ b: UInt8) -> Int? {
        let x = a &- 48, y = b &- 48
        guard x < 10, y < 10 else { return nil }
        return Int(x) * 10 + Int(y)
    }
}
