/// Values of an indicator over a series, with the index of the first valid value.
///
/// Mirrors TA-Lib's `outBegIdx`: `values` has the same length as the input; entries before
/// `firstValidIndex` are `.nan` and must not be read as data. When the input is shorter than the
/// lookback, `firstValidIndex == values.count` (nothing is valid).
public struct IndicatorSeries: Sendable, Equatable {
    public var values: [Double]
    public var firstValidIndex: Int

    public init(values: [Double], firstValidIndex: Int) {
        self.values = values
        self.firstValidIndex = Swift.min(firstValidIndex, values.count)
    }

    /// The valid part only.
    public var validValues: ArraySlice<Double> { values[firstValidIndex...] }

    /// The value at `index`, or `nil` before the first valid index.
    @inlinable public func value(at index: Int) -> Double? {
        index >= firstValidIndex && index < values.count ? values[index] : nil
    }

    public static func == (lhs: IndicatorSeries, rhs: IndicatorSeries) -> Bool {
        guard lhs.firstValidIndex == rhs.firstValidIndex, lhs.values.count == rhs.values.count else { return false }
        for i in lhs.firstValidIndex..<lhs.values.count where lhs.values[i].bitPattern != rhs.values[i].bitPattern {
            return false
        }
        return true
    }
}
