import FuzzOracle
import Sentio

/// libFuzzer entry: the bytes are an OHLCV CSV file. Read strictly and leniently; whatever is accepted must
/// hold the reader's invariants, survive a write/read round trip bit for bit, and give SMA and volume-ratio
/// values within 1e-12 of an independently, exactly rounded window computation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOHLCVReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    for lenient in [false, true] {
        guard let result = try? OHLCVReader.parse(bytes, file: "fuzz.csv", symbol: "FUZZ", lenient: lenient) else {
            continue
        }
        check(result.series, lenient: lenient)
    }
    return 0
}

/// Smallest and largest epoch seconds of years 0001...9999 (UTC).
let firstSecond: Int64 = -62_135_596_800
let lastSecond: Int64 = 253_402_300_799

func check(_ s: OHLCVSeries, lenient: Bool) {
    let n = s.timestamps.count
    guard n > 0 else { finding("accepted a file with no bars (lenient: \(lenient))") }
    for i in 0..<n {
        let (o, h, l, c, v) = (s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i])
        guard [o, h, l, c, v].allSatisfy(\.isFinite) else { finding("bar \(i): a value is not finite") }
        guard min(o, h, l, c) > 0 else { finding("bar \(i): a price is not positive") }
        guard v >= 0 else { finding("bar \(i): negative volume") }
        guard h >= max(o, c), l <= min(o, c), h >= l else { finding("bar \(i): OHLC invariants") }
        guard s.timestamps[i] >= firstSecond, s.timestamps[i] <= lastSecond else {
            finding("bar \(i): timestamp \(s.timestamps[i]) outside years 0001-9999")
        }
        if i > 0, s.timestamps[i] <= s.timestamps[i - 1] { finding("bar \(i): timestamps not increasing") }
    }
    // Round trip through the writer.
    let text = OHLCVWriter.encode(s)
    let reread = text.withUnsafeBufferPointer {
        try? OHLCVReader.parse($0, file: "roundtrip.csv", symbol: s.symbol, lenient: false).series
    }
    guard let again = reread else {
        finding("the writer's output of an accepted series does not read back")
    }
    guard again == s else { finding("write/read round trip changed the series") }
    // Windowed statistics against exactly rounded window sums.
    for period in [1, 2, 3, 7] where period <= n {
        // A window sum that is not representable is an error (WindowOverflowError) by design: it must name a bar
        // whose exactly rounded window sum overflows.
        do {
            let sma = try simpleMovingAverage(s.close, period: period)
            checkWindows(sma, s.close, period: period, name: "SMA(\(period))") { sum, _, _ in sum / Double(period) }
        } catch {
            checkOverflow(error, s.close, period: period)
        }
        do {
            let ratio = try volumeRatio(s.volume, window: period)
            checkWindows(ratio, s.volume, period: period, name: "volume ratio(\(period))") { sum, last, _ in
                sum == 0 ? nil : last / (sum / Double(period))
            }
        } catch {
            checkOverflow(error, s.volume, period: period)
        }
    }
}

func checkOverflow(_ error: WindowOverflowError, _ x: [Double], period: Int) {
    let t = error.barIndex
    guard t >= period - 1, t < x.count, exactlyRoundedSum(x[(t - period + 1)...t]) == nil else {
        finding("\(error) although that window's sum is representable")
    }
}

func checkWindows(
    _ series: IndicatorSeries, _ x: [Double], period: Int, name: String,
    expected: (Double, Double, Int) -> Double?
) {
    guard series.firstValidIndex <= period - 1 || series.values.isEmpty else {
        finding("\(name): first value at \(series.firstValidIndex), expected \(period - 1)")
    }
    for t in (period - 1)..<x.count {
        let window = x[(t - period + 1)...t]
        guard let sum = exactlyRoundedSum(window) else { continue }  // not representable: an error is right
        guard let want = expected(sum, x[t], t) else { continue }
        guard let got = series.value(at: t) else { finding("\(name) at \(t): no value, expected \(want)") }
        let scale = max(abs(want), 1e-300)
        guard isClose(got, want, tolerance: 1e-12, scale: scale) else {
            finding("\(name) at \(t): \(got), exact \(want)")
        }
    }
}
