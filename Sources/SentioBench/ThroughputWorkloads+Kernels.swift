import Foundation
import SentioCore
import SentioIndicators

// Throughput workloads of the indicator kernels beyond rsi and volume-ratio: windowed statistics (sma,
// rolling-std) over one concatenated column, and several series at once (rsi-many, ema-many, atr-many).

extension ThroughputWorkloads {
    static let kernelWindow = 20

    /// `sma`: `simpleMovingAverage(closes, period: 20)` over `size` closes. Units: values. Checksum: sum of the
    /// valid values. Dump: all values.
    static func smaWorkload(inputs: BenchInputs, size: Int) throws -> ThroughputWorkload<IndicatorSeries> {
        let closes = try inputs.concatenatedColumn(\.close, count: size)
        return ThroughputWorkload(
            unit: "values", units: size, run: { try simpleMovingAverage(closes, period: kernelWindow) },
            checksum: { compensatedFiniteSum($0.validValues) }, dumpValues: { $0.values })
    }

    /// `rolling-std`: `rollingStandardDeviation(closes, window: 20)` (ddof 1) over `size` closes. Units: values.
    /// Checksum: sum of the valid values. Dump: all values.
    static func rollingStdWorkload(inputs: BenchInputs, size: Int) throws -> ThroughputWorkload<IndicatorSeries> {
        let closes = try inputs.concatenatedColumn(\.close, count: size)
        return ThroughputWorkload(
            unit: "values", units: size, run: { try rollingStandardDeviation(closes, window: kernelWindow) },
            checksum: { compensatedFiniteSum($0.validValues) }, dumpValues: { $0.values })
    }

    /// `rsi-many`, `ema-many`, `atr-many`: RSI(14), EMA(20) or ATR(14) of the first `symbols` inputs cut to `size`
    /// bars, all series at once (`relativeStrengthIndex(many:)` etc.). Units: values (symbols × size). Checksum:
    /// sum of the valid values of every series. Dump: the series' values one after another.
    static func manyWorkload(_ kind: BenchWorkload, inputs: BenchInputs, symbols: Int, size: Int) throws
        -> ThroughputWorkload<[IndicatorSeries]>
    {
        let series = try backtestSeries(inputs: inputs, symbols: symbols, size: size)
        let closes = series.map(\.close)
        let run: () throws -> [IndicatorSeries] = switch kind {
        case .emaMany: { exponentialMovingAverage(many: closes, period: 20) }
        case .atrMany: { try averageTrueRange(many: series, period: 14) }
        default: { relativeStrengthIndex(many: closes, period: rsiPeriod) }
        }
        return ThroughputWorkload(
            unit: "values", units: series.count * size, run: run,
            checksum: { compensatedFiniteSum($0.lazy.flatMap(\.validValues)) },
            dumpValues: { $0.flatMap(\.values) })
    }

    /// `macd-many`, `bbands-many`, `stoch-many`, `adx-many`: the TA-Lib function with TA-Lib's defaults over each of
    /// the first `symbols` inputs cut to `size` bars, one series after another (``TAFunction/compute(_:)``). Units:
    /// values (symbols × size). Checksum: sum of the valid values of every output. Dump: the outputs one after another.
    static func taManyWorkload(_ kind: BenchWorkload, inputs: BenchInputs, symbols: Int, size: Int) throws
        -> ThroughputWorkload<[IndicatorSeries]>
    {
        let series = try backtestSeries(inputs: inputs, symbols: symbols, size: size)
        let name = switch kind {
        case .macdMany: "MACD"
        case .bbandsMany: "BBANDS"
        case .stochMany: "STOCH"
        default: "ADX"
        }
        let function = try TAFunction(name)
        return ThroughputWorkload(
            unit: "values", units: series.count * size, run: { try series.flatMap { try function.compute($0) } },
            checksum: { compensatedFiniteSum($0.lazy.flatMap(\.validValues)) },
            dumpValues: { $0.flatMap(\.values) })
    }
}
