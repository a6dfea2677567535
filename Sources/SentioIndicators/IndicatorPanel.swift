import SentioCore

/// The standard indicator columns of `sentio indicators`, computed together over one series.
///
/// Columns: RSI (Wilder, TA-Lib), volume ratio (current bar inside the window), ATR (TA-Lib),
/// SMA and EMA (TA-Lib seeding) of the close. Each column is an `IndicatorSeries` aligned with the
/// input bars, so a row's value is valid from that column's `firstValidIndex` on.
public struct IndicatorPanel: Sendable {
    /// Periods (in bars) of each indicator.
    public struct Periods: Sendable, Equatable, Codable {
        public var rsi: Int
        public var volumeWindow: Int
        public var atr: Int
        public var movingAverage: Int

        public init(rsi: Int = 14, volumeWindow: Int = 20, atr: Int = 14, movingAverage: Int = 20) {
            self.rsi = rsi
            self.volumeWindow = volumeWindow
            self.atr = atr
            self.movingAverage = movingAverage
        }
    }

    public var periods: Periods
    public var rsi: IndicatorSeries
    public var volumeRatio: IndicatorSeries
    public var atr: IndicatorSeries
    public var sma: IndicatorSeries
    public var ema: IndicatorSeries

    /// Computes every column over `bars`.
    ///
    /// - Throws: `WindowOverflowError` naming the first bar (0-based index into `bars`) where a
    ///   column's window is not representable (e.g. a volume sum above 1.8e308); never an empty cell.
    public init(_ bars: OHLCVSeries, periods: Periods = .init()) throws(WindowOverflowError) {
        self.periods = periods
        rsi = relativeStrengthIndex(bars.close, period: periods.rsi)
        volumeRatio = try SentioIndicators.volumeRatio(bars.volume, window: periods.volumeWindow)
        atr = try averageTrueRange(bars, period: periods.atr)
        sma = try simpleMovingAverage(bars.close, period: periods.movingAverage)
        ema = exponentialMovingAverage(bars.close, period: periods.movingAverage)
    }

    /// The columns in output order with their CSV/JSON names.
    public var namedColumns: [(name: String, series: IndicatorSeries)] {
        [("rsi", rsi), ("volume_ratio", volumeRatio), ("atr", atr), ("sma", sma), ("ema", ema)]
    }
}
