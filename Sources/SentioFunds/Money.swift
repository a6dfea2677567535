import Foundation

/// An amount parsed exactly from decimal text: the `Decimal` for sums of money, the correctly rounded
/// `Double` for the solver.
public struct MoneyAmount: Sendable, Hashable {
    public var decimal: Decimal
    public var double: Double

    /// Parses `[+-]digits[.digits]` (no exponent, no thousands separator, at most 30 significant digits,
    /// within `Decimal`'s exact range); `nil` otherwise.
    public init?(text: String) {
        let u = Array(text.utf8)
        var i = 0
        if i < u.count && (u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-")) { i += 1 }
        var integerDigits = 0, fractionDigits = 0
        while i < u.count && u[i] >= 48 && u[i] <= 57 { integerDigits += 1; i += 1 }
        if i < u.count && u[i] == UInt8(ascii: ".") {
            i += 1
            while i < u.count && u[i] >= 48 && u[i] <= 57 { fractionDigits += 1; i += 1 }
            guard fractionDigits > 0 else { return nil }
        }
        guard i == u.count, integerDigits > 0, integerDigits + fractionDigits <= 30,
            let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
            let double = Double(text), double.isFinite
        else { return nil }
        self.decimal = decimal
        self.double = double
    }

    public init(_ decimal: Decimal) {
        self.decimal = decimal
        self.double = decimal.doubleValue
    }
}

extension Decimal {
    /// The nearest `Double`, via the exact decimal text (Foundation's own conversion may be off by an ulp).
    public var doubleValue: Double { Double(description) ?? NSDecimalNumber(decimal: self).doubleValue }
}
