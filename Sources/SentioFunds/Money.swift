import Foundation
import SentioCSV

/// An amount parsed exactly from decimal text: the `Decimal` for sums of money, the correctly rounded
/// `Double` for the solver.
public struct MoneyAmount: Sendable, Hashable {
    public var decimal: Decimal
    public var double: Double

    /// Parses a number of the one Sentio number grammar (see `DecimalParser`: optional sign, digits with an
    /// optional `.`, optional exponent) whose value `Decimal` holds exactly: at most 30 significant digits and a
    /// power of ten within ±100 after dropping trailing zeros (`1.5e3`, `-0.25`, `1000`); `nil` otherwise. The
    /// `Double` is `DecimalParser`'s, the same every reader gets for the same text.
    public init?(text: String) {
        guard let double = DecimalParser.parse(text), double.isFinite,
            let numeral = DecimalParser.numeral(text), numeral.digits.utf8.count <= 30,
            (-100...100).contains(numeral.exponent)
        else { return nil }
        let significand = numeral.digits.isEmpty ? Decimal(0) : Decimal(string: numeral.digits, locale: Locale(identifier: "en_US_POSIX"))
        guard let significand else { return nil }
        self.decimal = Decimal(sign: numeral.negative && !numeral.digits.isEmpty ? .minus : .plus, exponent: numeral.exponent, significand: significand)
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
