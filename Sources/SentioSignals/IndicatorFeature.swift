import SentioCore
import SentioIndicators

/// A TA-Lib function's output used as an extra regressor of the signal model (``SignalModelConfig/indicatorFeatures``).
///
/// Text form `COLUMN[(PARAMETER=VALUE,...)][/close]`:
/// - `COLUMN` names the output as `sentio indicators` names its columns: `adx`, `cci`, `macd_macdhist`,
///   `bbands_upperband`, `stoch_slowk`;
/// - parameters in parentheses override TA-Lib's defaults (`macd_macdhist(fastperiod=8,slowperiod=21)`);
/// - `/close` divides the value by the bar's close (`wma(timeperiod=50)/close`), for outputs in price units.
///
/// The feature at bar *t* is the output's value at *t* — TA-Lib's value, computed by the function's streaming
/// state (`TAStream`), the same bits as `sentio indicators` — or that value over `Cₜ`. Like the built-in
/// features, a non-finite value enters the regression as 0.
public struct IndicatorFeature: Sendable, Equatable, CustomStringConvertible {
    /// The function with its parameters.
    public let function: TAFunction
    /// The output's index in TA-Lib's order.
    public let output: Int
    /// Whether the value is divided by the close.
    public let perClose: Bool

    /// Parses the text form (any case).
    ///
    /// - Throws: `TAFunctionError` for text of another form, an unknown column or parameter, a value out of range.
    public init(parsing text: String) throws(TAFunctionError) {
        var rest = Substring(text.lowercased().filter { $0 != " " })
        var perClose = false
        if rest.hasSuffix("/close") {
            perClose = true
            rest = rest.dropLast(6)
        }
        var parameters = ""
        if let open = rest.firstIndex(of: "(") {
            guard rest.hasSuffix(")") else {
                throw TAFunctionError("indicator feature '\(text)': expected COLUMN, COLUMN(PARAMETER=VALUE,...) or either followed by /close")
            }
            parameters = String(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)])
            rest = rest[..<open]
        }
        guard let (descriptor, output) = TAFunction.column(named: String(rest)) else {
            throw TAFunctionError(
                "indicator feature '\(text)': '\(rest)' is not a TA-Lib column (columns are named as sentio indicators names them: adx, cci, macd_macdhist, bbands_upperband)")
        }
        let function: TAFunction
        do { function = try TAFunction(descriptor.name, parametersText: parameters) } catch {
            throw TAFunctionError("indicator feature '\(text)': \(error.description)")
        }
        self.function = function
        self.output = output
        self.perClose = perClose
    }

    public static func == (a: IndicatorFeature, b: IndicatorFeature) -> Bool {
        a.function.descriptor.name == b.function.descriptor.name && a.function.values == b.function.values
            && a.output == b.output && a.perClose == b.perClose
    }

    /// The canonical text: the column, every parameter, `/close` when divided (`macd_macdhist(fastperiod=12,slowperiod=26,signalperiod=9)`).
    public var description: String {
        let parameters = function.parametersText
        return function.columnNames[output] + (parameters.isEmpty ? "" : "(\(parameters))") + (perClose ? "/close" : "")
    }
}

/// The streaming states of a model's indicator features: one `TAStream` per feature, updated with every bar.
///
/// Not saved in a snapshot: a live session whose model has indicator features takes no snapshot and is rebuilt by
/// replaying its journal (encoding or decoding this type throws).
struct IndicatorFeatureStreams: Sendable, Codable {
    private var streams: [TAStream]
    private let outputs: [Int]
    private let perClose: [Bool]

    init(_ features: [IndicatorFeature]) {
        streams = features.map { $0.function.makeStream() }
        outputs = features.map(\.output)
        perClose = features.map(\.perClose)
    }

    var count: Int { streams.count }

    /// Updates every stream with `bar` and writes feature *j* to `row[j]` (0 where the value is not finite or not
    /// yet defined). No allocation.
    ///
    /// - Throws: `WindowOverflowError` from the first stream whose value overflows (the others are still updated).
    @inline(__always)
    mutating func update(_ bar: Bar, into row: UnsafeMutablePointer<Double>?) throws(WindowOverflowError) {
        let input = TABar(open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.volume)
        var failure: WindowOverflowError?
        for j in streams.indices {
            var value = Double.nan
            do throws(WindowOverflowError) {
                if try streams[j].update(input) { value = streams[j].value(outputs[j]) }
            } catch {
                failure = failure ?? error
            }
            if perClose[j] { value /= bar.close }
            row?[j] = finiteOrZero(value)
        }
        if let failure { throw failure }
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, EncodingError.Context(
            codingPath: encoder.codingPath,
            debugDescription: "indicator features' streaming states are not saved (the session is rebuilt from its journal)"))
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: decoder.codingPath, debugDescription: "indicator features' streaming states are not saved"))
    }
}
