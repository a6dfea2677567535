import SentioCore
import SentioIndicators

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bar the model cannot take.
public enum SignalInputError: UserInputError, Equatable {
    /// The bar's timestamp is not after the previous bar's.
    case nonIncreasingTimestamp(symbol: String, barIndex: Int, previous: Int64, timestamp: Int64)
    /// A price or the volume is NaN, infinite, negative (or a price is zero).
    case invalidValue(symbol: String, barIndex: Int, timestamp: Int64, field: String, value: Double)
    /// A windowed quantity of this bar cannot be represented as a double (e.g. the volume ratio's window sum
    /// overflows, or the regression window's moments do). The bar has been consumed (the state stays usable).
    case unrepresentable(symbol: String, barIndex: Int, timestamp: Int64, detail: String)

    public var description: String {
        switch self {
        case let .nonIncreasingTimestamp(symbol, barIndex, previous, timestamp):
            return "\(symbol): bar \(barIndex): timestamp \(iso8601(epochSeconds: timestamp)) is not after the previous bar's \(iso8601(epochSeconds: previous))"
        case let .invalidValue(symbol, barIndex, timestamp, field, value):
            return "\(symbol): bar \(barIndex) (\(iso8601(epochSeconds: timestamp))): field '\(field)' is \(value); "
                + "the signal model needs finite positive prices (log returns) and a finite non-negative volume"
        case let .unrepresentable(symbol, barIndex, timestamp, detail):
            return "\(symbol): bar \(barIndex) (\(iso8601(epochSeconds: timestamp))): \(detail)"
        }
    }
}

/// The streaming state of the Sentio signal model for one symbol.
///
/// ``update(_:)`` turns the next bar into its ``Signal`` in O(k²) work (k = 5 features plus the config's indicator
/// features) with no allocation:
/// the indicator states, the ring of recent closes and feature rows, and the rolling regression are all
/// allocated in `init`. The model (features, target, fit, forecast, score, confidence, rules) is described in
/// the catalog article `SignalModel.md` and in ``SignalModelConfig``. Batch evaluation
/// (``SignalModel/evaluate(_:config:)``) runs this same update, so batch and streaming results are
/// bit-identical.
public struct SignalModelState: Sendable, Codable {
    /// Number of built-in features (regressors, without the intercept); the config's indicator features follow them.
    public static let featureCount = SignalModelConfig.parameterCount - 1

    public let config: SignalModelConfig
    public let symbol: String

    @usableFromInline var rsi: RelativeStrengthIndex
    @usableFromInline var atr: AverageTrueRange
    @usableFromInline var volumeRatio: VolumeRatio
    /// The config's indicator features (``SignalModelConfig/indicatorFeatures``); `nil` without them (so that a
    /// snapshot of a model without them keeps its bytes: the key is absent).
    var indicators: IndicatorFeatureStreams?
    /// The last `max(m, h) + 1` closes (m > s), newest last.
    @usableFromInline var closes: RingBuffer
    /// Feature rows of the last `h + 1` bars, row of bar `t` at slot `t mod (h + 1)`.
    @usableFromInline var featureRows: [Double]
    @usableFromInline var regression: RollingRegression
    /// The walk-forward confidence calibrator (see ``ConfidenceCalibrator``).
    public private(set) var calibrator: ConfidenceCalibrator
    /// Signals awaiting their outcome: slot `t mod (h + 1)` holds `0` (no BUY/SELL at bar `t`) or
    /// `1 + direction × bins + bin` of the signal made at bar `t`.
    @usableFromInline var pendingSignals: [Int]
    @usableFromInline var barIndex = 0
    @usableFromInline var previousClose = Double.nan
    @usableFromInline var previousTimestamp = Int64.min
    @usableFromInline let featureLookback: Int
    @usableFromInline let firstSignalIndex: Int
    @usableFromInline let overlapFactor: Double
    @usableFromInline let adjustedRSquaredFactor: Double

    /// A fresh state.
    ///
    /// - Precondition: `config` is valid (``SignalModelConfig/validate()``); the CLI validates user configs first.
    public init(symbol: String, config: SignalModelConfig = SignalModelConfig()) {
        do { try config.validate() } catch { preconditionFailure("invalid signal model config: \(error)") }
        self.config = config
        self.symbol = symbol
        rsi = RelativeStrengthIndex(period: config.rsiPeriod)
        atr = AverageTrueRange(period: config.atrPeriod)
        volumeRatio = VolumeRatio(window: config.volumeWindow)
        let features = (try? config.parsedIndicatorFeatures()) ?? []
        indicators = features.isEmpty ? nil : IndicatorFeatureStreams(features)
        let featureCount = Self.featureCount + features.count
        closes = RingBuffer(capacity: Swift.max(config.mediumMomentumPeriod, config.horizon) + 1)
        featureRows = [Double](repeating: 0, count: (config.horizon + 1) * featureCount)
        regression = RollingRegression(
            window: config.regressionWindow, regressorCount: featureCount, reseedInterval: config.regressionReseedInterval)
        calibrator = ConfidenceCalibrator(config: config)
        pendingSignals = [Int](repeating: 0, count: config.horizon + 1)
        featureLookback = config.featureLookback
        firstSignalIndex = config.firstSignalIndex
        overlapFactor = config.overlapCorrection ? Double(config.horizon).squareRoot() : 1
        let n = Double(config.regressionWindow)
        adjustedRSquaredFactor = (n - 1) / (n - Double(config.regressionParameterCount))
    }

    /// Bars seen so far.
    public var barsSeen: Int { barIndex }

    /// Feeds the next bar and returns its signal.
    ///
    /// - Throws: ``SignalInputError`` for a timestamp not after the previous one, or a non-finite, negative or
    ///   zero price, or a negative or non-finite volume (the state is then unchanged); `.unrepresentable` when a
    ///   windowed quantity of this bar overflows the double range (the bar is then consumed, and later bars can
    ///   still be fed).
    public mutating func update(_ bar: Bar) throws(SignalInputError) -> Signal {
        try check(bar)
        return try advance(bar)
    }

    /// Feeds the next bar and writes its signal into `signal` — the per-bar path of the live engine, which keeps
    /// each symbol's latest signal in place instead of copying the value (about 170 bytes) through every caller.
    ///
    /// - Throws: as ``update(_:)``; `signal` is then left unchanged.
    public mutating func update(_ bar: Bar, into signal: inout Signal) throws(SignalInputError) {
        try check(bar)
        try advance(bar, into: &signal)
    }

    /// Validates `bar` against the state. `mutating` although it changes nothing: called from the mutating
    /// `update`, a non-mutating method made the optimizer copy the whole state (680 bytes, `memcpy` per bar,
    /// callgrind) to pass `self`; an `inout` pass borrows it in place.
    @inline(__always)
    mutating func check(_ bar: Bar) throws(SignalInputError) {
        if bar.timestamp <= previousTimestamp {
            throw .nonIncreasingTimestamp(symbol: symbol, barIndex: barIndex, previous: previousTimestamp, timestamp: bar.timestamp)
        }
        if !(bar.close > 0 && bar.close.isFinite) { throw invalid("close", bar.close, bar.timestamp) }
        if !(bar.high > 0 && bar.high.isFinite) { throw invalid("high", bar.high, bar.timestamp) }
        if !(bar.low > 0 && bar.low.isFinite) { throw invalid("low", bar.low, bar.timestamp) }
        if !(bar.volume >= 0 && bar.volume.isFinite) { throw invalid("volume", bar.volume, bar.timestamp) }
    }

    @inline(never)
    func invalid(_ field: String, _ value: Double, _ timestamp: Int64) -> SignalInputError {
        .invalidValue(symbol: symbol, barIndex: barIndex, timestamp: timestamp, field: field, value: value)
    }

    /// The update step shared by streaming and batch evaluation (inputs already checked). A quantity that
    /// overflows is recorded, the bar is consumed in full (so the state stays consistent), then reported.
    @usableFromInline
    mutating func advance(_ bar: Bar) throws(SignalInputError) -> Signal {
        var signal = Signal(
            symbol: symbol, timestamp: bar.timestamp, barIndex: barIndex, price: 0, change: 0, changePercent: 0,
            signalType: .hold, confidence: 0, targetReturn: 0, stopLoss: 0, profitTarget: 0, aiSignal: 0, rsi: .nan,
            volumeRatio: .nan, forecastLogReturn: 0, forecastStandardError: .nan, adjustedRSquared: .nan,
            averageTrueRange: .nan, reason: .warmUp, barsUntilReady: 0)
        try advance(bar, into: &signal)
        return signal
    }

    /// ``advance(_:)`` writing into `signal` (every field is set; `signal` is unchanged when it throws).
    @usableFromInline
    mutating func advance(_ bar: Bar, into signal: inout Signal) throws(SignalInputError) {
        let t = barIndex
        let close = bar.close
        var overflow: String?
        let rsiValue = rsi.update(close) ?? .nan
        let atrValue: Double
        do { atrValue = try atr.update(high: bar.high, low: bar.low, close: close) ?? .nan } catch {
            atrValue = .nan
            overflow = error.description
        }
        let ratio: Double
        do { ratio = try volumeRatio.update(bar.volume) ?? .nan } catch {
            ratio = .nan
            overflow = overflow ?? error.description
        }
        closes.push(close)

        let k = Self.featureCount + (indicators?.count ?? 0)
        let h = config.horizon
        let slots = h + 1
        // The BUY/SELL signal made at bar t − h (if any) resolves now: right when ln(Cₜ / Cₜ₋ₕ) has its sign.
        if t >= h {
            let code = pendingSignals[(t - h) % slots]
            if code > 0 {
                let bins = config.calibrationBins
                let direction = (code - 1) / bins
                let realized = log(close / closes[closes.count - 1 - h])
                calibrator.record(direction: direction, bin: (code - 1) % bins, isRight: direction == 0 ? realized > 0 : realized < 0)
            }
        }
        pendingSignals[t % slots] = 0
        let hasFeatures = t >= featureLookback
        var status = RegressionWindowStatus.warmingUp
        var forecast = (value: 0.0, standardError: Double.nan)
        featureRows.withUnsafeMutableBufferPointer { rows in
            let newest = closes.count - 1
            if hasFeatures {
                // x_t: short and medium momentum, centred RSI, log volume ratio, ATR/price.
                let row = rows.baseAddress! + (t % slots) * k
                row[0] = finiteOrZero(log(close / closes[newest - config.shortMomentumPeriod]))
                row[1] = finiteOrZero(log(close / closes[newest - config.mediumMomentumPeriod]))
                row[2] = finiteOrZero((rsiValue - 50) / 50)
                row[3] = finiteOrZero(log(Swift.min(Swift.max(ratio, 0.01), 100)))
                row[4] = finiteOrZero(atrValue / close)
            }
            if indicators != nil {
                // Every bar updates the streams; from the feature lookback on, their values follow the built-in five.
                do throws(WindowOverflowError) {
                    try indicators!.update(bar, into: hasFeatures ? rows.baseAddress! + (t % slots) * k + Self.featureCount : nil)
                } catch {
                    overflow = overflow ?? error.description
                }
            }
            if t - h >= featureLookback {
                // The pair (x_{t−h}, ln(C_t / C_{t−h})): its target became known at this bar.
                let target = finiteOrZero(log(close / closes[newest - h]))
                let pastRow = UnsafeBufferPointer(start: rows.baseAddress! + ((t - h) % slots) * k, count: k)
                status = regression.update(y: target, regressors: pastRow)
            }
        }
        if status == .estimated {
            // Outside the mutable pass over `featureRows`: reading `regression` in there copied the whole regression
            // state per bar (callgrind).
            forecast = featureRows.withUnsafeBufferPointer { rows in
                regression.forecast(regressors: UnsafeBufferPointer(start: rows.baseAddress! + (t % slots) * k, count: k))
            }
        }

        let change = t == 0 ? 0 : close - previousClose
        let changePercent = t == 0 ? 0 : 100 * change / previousClose
        let stopLoss = atrValue.isNaN ? 0 : -config.stopLossATRMultiple * atrValue / close * 100
        barIndex = t + 1
        previousClose = close
        previousTimestamp = bar.timestamp
        if status == .unrepresentable {
            overflow = overflow ?? "the regression window's moments (features and targets of the last "
                + "\(config.regressionWindow) bars) exceed the largest double (1.8e308) and cannot be represented"
        }
        if let overflow {
            throw .unrepresentable(symbol: symbol, barIndex: t, timestamp: bar.timestamp, detail: overflow)
        }

        signal = Signal(
            symbol: symbol, timestamp: bar.timestamp, barIndex: t, price: close, change: change,
            changePercent: changePercent, signalType: .hold, confidence: 0, targetReturn: 0, stopLoss: stopLoss,
            profitTarget: close, aiSignal: 0, rsi: rsiValue, volumeRatio: ratio, forecastLogReturn: 0,
            forecastStandardError: .nan, adjustedRSquared: .nan, averageTrueRange: atrValue,
            reason: .warmUp, barsUntilReady: Swift.max(0, firstSignalIndex - t))
        switch status {
        case .warmingUp:
            return
        case .singular, .nonFiniteInput, .unrepresentable:
            signal.reason = .degenerateFit
            return
        case .estimated:
            break
        }
        let standardError = forecast.standardError * overlapFactor
        guard standardError > 0, standardError.isFinite, forecast.value.isFinite else {
            signal.reason = .degenerateFit
            return
        }
        let score = forecast.value / standardError
        let adjustedRSquared = 1 - (1 - regression.rSquared) * adjustedRSquaredFactor
        let quality = adjustedRSquared > 0 ? adjustedRSquared.squareRoot() : 0  // NaN (constant target) → 0
        // 2Φ(|z|) − 1 = erf(|z|/√2): the probability mass of the forecast's sign beyond a coin flip.
        let fitStrength = Swift.min(1, Swift.max(0, erf(abs(score) * 0.7071067811865476) * quality))
        let targetReturn = expm1(forecast.value) * 100
        signal.forecastLogReturn = forecast.value
        signal.forecastStandardError = standardError
        signal.adjustedRSquared = adjustedRSquared
        signal.aiSignal = score
        signal.fitStrength = fitStrength
        signal.targetReturn = targetReturn
        signal.profitTarget = close * (1 + targetReturn / 100)
        (signal.signalType, signal.reason) = Self.rule(score: score, fitStrength: fitStrength, rsi: rsiValue, config: config)
        // Calibrated confidence: BUY/SELL in their own direction; HOLD in the forecast's direction.
        let direction: Int
        switch signal.signalType {
        case .buy: direction = 0
        case .sell: direction = 1
        case .hold: direction = score >= 0 ? 0 : 1
        }
        let directionalScore = direction == 0 ? score : -score
        signal.confidence = calibrator.probability(direction: direction, directionalScore: directionalScore)
        if signal.signalType != .hold {
            pendingSignals[t % slots] = 1 + direction * config.calibrationBins + calibrator.bin(directionalScore: directionalScore)
        }
    }

    /// The signal-type rules, in order: overbought RSI → SELL; score ≤ −sell threshold → SELL unless RSI is
    /// oversold (HOLD); score ≥ buy threshold → BUY if the fit strength clears `minimumConfidence`, else HOLD;
    /// otherwise HOLD.
    @inlinable
    static func rule(score: Double, fitStrength: Double, rsi: Double, config: SignalModelConfig) -> (SignalType, SignalReason) {
        if rsi >= config.rsiOverbought { return (.sell, .overbought) }
        if score <= -config.sellScoreThreshold {
            return rsi <= config.rsiOversold ? (.hold, .oversoldBlocksSell) : (.sell, .negativeScore)
        }
        if score >= config.buyScoreThreshold {
            return fitStrength >= config.minimumConfidence ? (.buy, .positiveScore) : (.hold, .lowConfidence)
        }
        return (.hold, .weakScore)
    }
}

/// `x` when finite, else 0: one bad value must not poison the regression window.
@inline(__always) @usableFromInline
func finiteOrZero(_ x: Double) -> Double { x.isFinite ? x : 0 }
