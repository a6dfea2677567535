import SentioCore

/// What the model says to do.
public enum SignalType: String, Sendable, Codable, CaseIterable {
    case buy = "BUY"
    case sell = "SELL"
    case hold = "HOLD"
}

/// Which rule produced the signal type (drives the English text and the history's `status`).
public enum SignalReason: String, Sendable, CaseIterable, Codable {
    /// Not enough bars yet for a full regression window: HOLD, confidence 0.
    case warmUp
    /// The window's design matrix is singular (constant or collinear features): HOLD, confidence 0.
    case degenerateFit
    /// RSI ≥ `rsiOverbought`: SELL.
    case overbought
    /// `aiSignal ≤ −sellScoreThreshold` and RSI above `rsiOversold`: SELL.
    case negativeScore
    /// `aiSignal ≤ −sellScoreThreshold` but RSI ≤ `rsiOversold`: HOLD.
    case oversoldBlocksSell
    /// `aiSignal ≥ buyScoreThreshold`, `confidence ≥ minimumConfidence`, RSI below `rsiOverbought`: BUY.
    case positiveScore
    /// `aiSignal ≥ buyScoreThreshold` but `confidence < minimumConfidence`: HOLD.
    case lowConfidence
    /// The score is inside the thresholds: HOLD.
    case weakScore
}

/// One bar's signal for one symbol, at full precision.
///
/// Field meanings follow the `GET /signals` JSON (SentioAPI's `APISignal`): `targetReturn`, `stopLoss` and
/// `changePercent` are percents, `price`, `change` and `profitTarget` are prices. The English
/// `recommendation`/`reasoning` are generated on demand by ``SignalText`` (they are not part of the per-bar
/// update, so the streaming engine does no string work). Equality compares the bit patterns of every number
/// (so two NaNs are equal): "bit-identical" in tests means `==`.
public struct Signal: Sendable, Equatable, Codable {
    public var symbol: String
    /// Bar time, UTC epoch seconds.
    public var timestamp: Int64
    /// Index of the bar in its symbol's stream (0-based).
    public var barIndex: Int
    /// The bar's close.
    public var price: Double
    /// `close − previous close` (0 on the first bar).
    public var change: Double
    /// `100 × change / previous close` (0 on the first bar).
    public var changePercent: Double
    public var signalType: SignalType
    /// In [0, 1]: the calibrated probability that the signal is right (BUY: the log return over the next `h`
    /// bars is positive; SELL: negative), learned walk-forward from the signals already resolved by this bar
    /// (``ConfidenceCalibrator``). For a HOLD: the probability for a signal in the forecast's direction. 0 during
    /// warm-up and for a degenerate fit.
    public var confidence: Double
    /// Forecast simple return over the horizon, percent: `100 × (exp(forecast) − 1)`; 0 during warm-up.
    public var targetReturn: Double
    /// `−stopLossATRMultiple × ATR / close × 100` (negative percent); 0 before the ATR exists.
    public var stopLoss: Double
    /// `price × (1 + targetReturn/100)`.
    public var profitTarget: Double
    /// Forecast divided by its standard error (t-statistic-like score); 0 during warm-up.
    public var aiSignal: Double
    /// The uncalibrated fit strength `(2Φ(|aiSignal|) − 1) × √max(0, adjusted R²)` in [0, 1] (the BUY gate
    /// `minimumConfidence` reads it); 0 during warm-up.
    public var fitStrength: Double
    /// Wilder RSI; NaN before it exists.
    public var rsi: Double
    /// Volume over its window mean; NaN before it exists (or for an all-zero-volume window).
    public var volumeRatio: Double
    /// The forecast log return over the horizon, `xₜ·β` (0 during warm-up).
    public var forecastLogReturn: Double
    /// Standard error of the forecast, `s·√(xₜᵀ(XᵀX)⁻¹xₜ)` (× √h with the overlap correction); NaN during warm-up.
    public var forecastStandardError: Double
    /// Adjusted R² of the current fit; NaN during warm-up.
    public var adjustedRSquared: Double
    /// ATR; NaN before it exists.
    public var averageTrueRange: Double
    /// The rule that produced `signalType`.
    public var reason: SignalReason
    /// Bars still needed before the first forecast (0 once ready).
    public var barsUntilReady: Int

    public init(
        symbol: String, timestamp: Int64, barIndex: Int, price: Double, change: Double, changePercent: Double,
        signalType: SignalType, confidence: Double, targetReturn: Double, stopLoss: Double, profitTarget: Double,
        aiSignal: Double, rsi: Double, volumeRatio: Double, forecastLogReturn: Double,
        forecastStandardError: Double, adjustedRSquared: Double, averageTrueRange: Double,
        reason: SignalReason, barsUntilReady: Int, fitStrength: Double = 0
    ) {
        self.fitStrength = fitStrength
        self.symbol = symbol
        self.timestamp = timestamp
        self.barIndex = barIndex
        self.price = price
        self.change = change
        self.changePercent = changePercent
        self.signalType = signalType
        self.confidence = confidence
        self.targetReturn = targetReturn
        self.stopLoss = stopLoss
        self.profitTarget = profitTarget
        self.aiSignal = aiSignal
        self.rsi = rsi
        self.volumeRatio = volumeRatio
        self.forecastLogReturn = forecastLogReturn
        self.forecastStandardError = forecastStandardError
        self.adjustedRSquared = adjustedRSquared
        self.averageTrueRange = averageTrueRange
        self.reason = reason
        self.barsUntilReady = barsUntilReady
    }

    /// True during warm-up (not enough history for a forecast).
    public var isWarmUp: Bool { reason == .warmUp }

    /// The deterministic identifier: UUIDv5 in the URL namespace of `sentio:signal:SYMBOL:TIMESTAMP`
    /// (timestamp as ISO-8601 UTC, e.g. `sentio:signal:TQQQ:2025-10-20T10:30:00Z`). Equal to Python's
    /// `uuid.uuid5(uuid.NAMESPACE_URL, name)`.
    public var id: String {
        String(unsafeUninitializedCapacity: Self.idLength) { buffer in
            writeID(to: buffer.baseAddress!)
            return Self.idLength
        }
    }

    /// The length of ``id`` in bytes (ASCII): 36.
    public static let idLength = 36

    /// Writes the 36 ASCII bytes of ``id`` at `out`. Allocation-free for symbols up to 190 UTF-8 bytes and
    /// timestamps in the years 1 to 9999 (the name is assembled on the stack and hashed there); otherwise through
    /// ``idName(symbol:timestamp:)`` and ``NameBasedUUID/version5(namespace:name:)`` — the same bytes either way.
    public func writeID(to out: UnsafeMutablePointer<UInt8>) {
        let prefix: StaticString = "sentio:signal:"
        var symbol = symbol
        let done: Bool = symbol.withUTF8 { sym in
            // namespace (16) ‖ "sentio:signal:" (14) ‖ symbol ‖ ":" ‖ YYYY-MM-DDTHH:MM:SSZ (20)
            let length = 16 + prefix.utf8CodeUnitCount + sym.count + 1 + 20
            guard length <= 256 else { return false }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer in
                let m = buffer.baseAddress!
                var k = 0
                for b in NameBasedUUID.urlNamespace {
                    m[k] = b
                    k += 1
                }
                (m + k).update(from: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                k += prefix.utf8CodeUnitCount
                if sym.count > 0 { (m + k).update(from: sym.baseAddress!, count: sym.count) }
                k += sym.count
                m[k] = UInt8(ascii: ":")
                k += 1
                guard Self.writeISO8601(epochSeconds: timestamp, to: m + k) else { return false }
                k += 20
                NameBasedUUID.writeVersion5(message: UnsafeRawBufferPointer(start: m, count: k), to: out)
                return true
            }
        }
        if done { return }
        let text = NameBasedUUID.version5(namespace: NameBasedUUID.urlNamespace, name: Self.idName(symbol: symbol, timestamp: timestamp))
        var i = 0
        for b in text.utf8 {
            out[i] = b
            i += 1
        }
    }

    /// Writes `YYYY-MM-DDTHH:MM:SSZ` (20 bytes, as SentioCore's `iso8601(epochSeconds:)`) at `out` and returns
    /// `true` for the years 1 to 9999; writes nothing and returns `false` otherwise.
    static func writeISO8601(epochSeconds t: Int64, to out: UnsafeMutablePointer<UInt8>) -> Bool {
        let days = floorDivide(t, 86_400)
        let date = CivilDate(daysSinceEpoch: Int(days))
        guard (1...9999).contains(date.year) else { return false }
        let s = Int(t - days * 86_400)
        @inline(__always) func put(_ x: Int, _ at: Int, _ width: Int) {
            var x = x
            for i in stride(from: at + width - 1, through: at, by: -1) {
                out[i] = UInt8(ascii: "0") + UInt8(x % 10)
                x /= 10
            }
        }
        put(date.year, 0, 4)
        out[4] = UInt8(ascii: "-")
        put(date.month, 5, 2)
        out[7] = UInt8(ascii: "-")
        put(date.day, 8, 2)
        out[10] = UInt8(ascii: "T")
        put(s / 3600, 11, 2)
        out[13] = UInt8(ascii: ":")
        put(s / 60 % 60, 14, 2)
        out[16] = UInt8(ascii: ":")
        put(s % 60, 17, 2)
        out[19] = UInt8(ascii: "Z")
        return true
    }

    /// The UUIDv5 name of a signal: `sentio:signal:SYMBOL:ISO-TIMESTAMP`.
    public static func idName(symbol: String, timestamp: Int64) -> String {
        "sentio:signal:\(symbol):\(iso8601(epochSeconds: timestamp))"
    }

    public static func == (a: Signal, b: Signal) -> Bool {
        a.symbol == b.symbol && a.timestamp == b.timestamp && a.barIndex == b.barIndex
            && a.signalType == b.signalType && a.reason == b.reason && a.barsUntilReady == b.barsUntilReady
            && a.price.bitPattern == b.price.bitPattern && a.change.bitPattern == b.change.bitPattern
            && a.changePercent.bitPattern == b.changePercent.bitPattern
            && a.confidence.bitPattern == b.confidence.bitPattern
            && a.fitStrength.bitPattern == b.fitStrength.bitPattern
            && a.targetReturn.bitPattern == b.targetReturn.bitPattern
            && a.stopLoss.bitPattern == b.stopLoss.bitPattern
            && a.profitTarget.bitPattern == b.profitTarget.bitPattern
            && a.aiSignal.bitPattern == b.aiSignal.bitPattern && a.rsi.bitPattern == b.rsi.bitPattern
            && a.volumeRatio.bitPattern == b.volumeRatio.bitPattern
            && a.forecastLogReturn.bitPattern == b.forecastLogReturn.bitPattern
            && a.forecastStandardError.bitPattern == b.forecastStandardError.bitPattern
            && a.adjustedRSquared.bitPattern == b.adjustedRSquared.bitPattern
            && a.averageTrueRange.bitPattern == b.averageTrueRange.bitPattern
    }
}
