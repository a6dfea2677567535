import SentioCore
import SentioData
import SentioIndicators

// `sentio indicators --only`: every bar of a series with the chosen TA-Lib functions' columns, as CSV or JSON.

/// The chosen TA-Lib functions computed over one series, their columns in request order.
public struct TAFunctionPanel: Sendable {
    public let functions: [TAFunction]
    /// `(name, series)` per output column, functions in request order, outputs in TA-Lib's order.
    public let columns: [(name: String, series: IndicatorSeries)]

    /// Computes every function over `bars`.
    ///
    /// - Throws: `WindowOverflowError` naming the first bar (0-based) where a function's value cannot be represented.
    public init(_ bars: OHLCVSeries, functions: [TAFunction]) throws(WindowOverflowError) {
        self.functions = functions
        var columns: [(name: String, series: IndicatorSeries)] = []
        for f in functions {
            let outputs = try f.compute(bars)
            columns += zip(f.columnNames, outputs).map { (name: $0, series: $1) }
        }
        self.columns = columns
    }

    /// Parses `--only` and `--set` requests: `names` are TA-Lib function names (any case), `settings` are
    /// `function.parameter=value`.
    ///
    /// - Throws: `TAFunctionError` for an unknown function or parameter, a setting for a function not in `names`, a
    ///   malformed setting or a bad value.
    public static func functions(names: [String], settings: [String]) throws(TAFunctionError) -> [TAFunction] {
        var parsed: [TAParameterSetting] = []
        let upperNames = names.map { $0.uppercased() }
        for setting in settings {
            let s = try TAParameterSetting(parsing: setting)
            guard upperNames.contains(s.function) else {
                throw TAFunctionError("--set '\(setting)': \(s.function) is not among the --only functions (\(upperNames.joined(separator: ",")))")
            }
            parsed.append(s)
        }
        var seen = Set<String>()
        var result: [TAFunction] = []
        for name in upperNames {
            guard seen.insert(name).inserted else { throw TAFunctionError("--only names \(name) twice") }
            result.append(try TAFunction(name, settings: parsed))
        }
        return result
    }

    /// The CSV form: header `timestamp,open,high,low,close,volume,` then the columns; an empty cell before a
    /// function's lookback; numbers in the shortest round-trip form.
    public func csv(_ bars: OHLCVSeries) -> [UInt8] {
        var w = ByteWriter()
        w.append("timestamp,open,high,low,close,volume")
        for c in columns { w.append(",\(c.name)") }
        w.append(UInt8(ascii: "\n"))
        w.appendCSVRows(bars, columns: columns.map(\.series))
        return w.bytes
    }

    /// The JSON form: `{"symbol", "functions": [{"name", "parameters", "lookback", "columns"}], "bars": [{…}]}`, one
    /// bar per line, `null` before a function's lookback.
    public func json(_ bars: OHLCVSeries) -> [UInt8] {
        var w = ByteWriter()
        w.append("{\"symbol\":\(JSONText.quoted(bars.symbol)),\"unstablePeriod\":0,\"functions\":[")
        for (k, f) in functions.enumerated() {
            if k > 0 { w.append(UInt8(ascii: ",")) }
            w.append("{\"name\":\"\(f.descriptor.name)\",\"parameters\":{")
            for (j, (p, v)) in zip(f.descriptor.parameters, f.values).enumerated() {
                if j > 0 { w.append(UInt8(ascii: ",")) }
                w.append("\"\(p.name)\":")
                w.append(roundTrip: v)
            }
            w.append("},\"lookback\":\(f.lookback),\"columns\":[")
            w.append(f.columnNames.map { "\"\($0)\"" }.joined(separator: ","))
            w.append("]}")
        }
        w.append("],\"bars\":")
        w.appendJSONBars(bars, columns: columns)
        return w.bytes
    }

    /// The `--list` text: one block per function with its inputs, parameters (defaults and ranges) and lookback.
    public static func listing() -> String {
        var lines: [String] = [
            "TA-Lib functions (TA-Lib 0.8.1's definitions, defaults, lookbacks and bits; unstable period 0):",
            "Columns: the function's name, or function_output for functions with several outputs.",
        ]
        var group = ""
        for d in TAFunction.all {
            if d.group != group {
                group = d.group
                lines.append("")
                lines.append(group + ":")
            }
            let base = d.name.lowercased()
            let columns = d.outputs.count == 1 ? base : d.outputs.map { base + "_" + $0 }.joined(separator: ", ")
            lines.append("  \(d.name): \(d.summary)")
            lines.append("    inputs: \(d.inputs.joined(separator: ", ")); columns: \(columns); lookback: \(d.defaultLookback) (defaults)")
            if !d.parameters.isEmpty {
                let ps = d.parameters.map { p -> String in
                    let range = p.kind == .real ? "\(p.minimum)…\(p.maximum)" : p.kind == .movingAverageType
                        ? "0 SMA, 1 EMA, 2 WMA, 3 DEMA, 4 TEMA, 5 TRIMA, 6 KAMA" : "\(Int(p.minimum))…\(Int(p.maximum))"
                    return "\(p.name)=\(p.defaultDescription) [\(range)]"
                }
                lines.append("    parameters: " + ps.joined(separator: "; "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
