import SentioCore

// The text forms of TA-Lib functions that front ends and strategies share: a parameter setting
// (`macd.fastperiod=8`), a column (`macd_macdsignal`, `adx`) and a function's parameters (`fastperiod=12,...`).

/// A parameter of a named TA-Lib function set by text: `FUNCTION.PARAMETER=VALUE` (`macd.fastperiod=8`,
/// `bbands.nbdevup=2.5`), the form of `sentio indicators --set`, `sentio backtest --ta-set` and a sweep's grid.
public struct TAParameterSetting: Sendable, Equatable {
    /// The function's name, upper case (`MACD`).
    public var function: String
    /// The parameter's name, lower case (`fastperiod`).
    public var parameter: String
    public var value: Double

    public init(function: String, parameter: String, value: Double) {
        self.function = function.uppercased()
        self.parameter = parameter.lowercased()
        self.value = value
    }

    /// Parses `FUNCTION.PARAMETER=VALUE`; the function and parameter are checked when a ``TAFunction`` is built.
    ///
    /// - Parameters:
    ///   - text: `FUNCTION.PARAMETER=VALUE`.
    ///   - option: how the caller spells the option in its messages (`--set`, `--ta-set`).
    /// - Throws: ``TAFunctionError`` for text of another form or a value that is not a finite number.
    public init(parsing text: String, option: String = "--set") throws(TAFunctionError) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let target = parts.first?.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init) ?? []
        guard parts.count == 2, target.count == 2, !target[0].isEmpty, !target[1].isEmpty else {
            throw TAFunctionError("\(option) '\(text)': expected FUNCTION.PARAMETER=VALUE, e.g. macd.fastperiod=8")
        }
        guard let value = Double(parts[1]), value.isFinite else {
            throw TAFunctionError("\(option) '\(text)': '\(parts[1])' is not a number")
        }
        self.init(function: target[0], parameter: target[1], value: value)
    }

    /// `macd.fastperiod=8` (the value in the parameter's form: a whole number without a fraction).
    public var text: String {
        "\(function.lowercased()).\(parameter)=\(TAFunction.format(value))"
    }
}

extension TAFunction {
    /// The function named `name` with the `settings` that name it (other functions' settings are the caller's to
    /// refuse or use).
    ///
    /// - Throws: ``TAFunctionError`` for an unknown function, parameter or a value out of range.
    public init(_ name: String, settings: [TAParameterSetting]) throws(TAFunctionError) {
        let upper = name.uppercased()
        var parameters: [String: Double] = [:]
        for s in settings where s.function == upper { parameters[s.parameter] = s.value }
        try self.init(name, parameters: parameters)
    }

    /// Every parameter with its value, `fastperiod=12,slowperiod=26,signalperiod=9` (empty without parameters):
    /// equal texts for equal parameters.
    public var parametersText: String {
        zip(descriptor.parameters, values).map { "\($0.name)=\(Self.format($1))" }.joined(separator: ",")
    }

    /// The function `name` with the parameters of `parametersText` (the form ``parametersText`` writes).
    ///
    /// - Throws: ``TAFunctionError`` for malformed text, an unknown function or parameter, a value out of range.
    public init(_ name: String, parametersText: String) throws(TAFunctionError) {
        var parameters: [String: Double] = [:]
        for pair in parametersText.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, let value = Double(kv[1]), value.isFinite else {
                throw TAFunctionError("\(name.uppercased()) parameters '\(parametersText)': expected NAME=VALUE,NAME=VALUE")
            }
            parameters[kv[0]] = value
        }
        try self.init(name, parameters: parameters)
    }

    /// The function and output index a column name stands for: the function's name in lower case for a
    /// single-output function (`adx`, `linearreg_slope`), `function_output` otherwise (`macd_macdsignal`,
    /// `stoch_slowk`): the names ``columnNames`` gives. Any case.
    public static func column(named name: String) -> (descriptor: TAFunctionDescriptor, output: Int)? {
        let lower = name.lowercased()
        for d in all {
            let base = d.name.lowercased()
            if d.outputs.count == 1 {
                if lower == base { return (d, 0) }
            } else if lower.hasPrefix(base + "_"), let k = d.outputs.firstIndex(of: String(lower.dropFirst(base.count + 1))) {
                return (d, k)
            }
        }
        return nil
    }

    /// A value as text: whole numbers without a fraction (`12`), others in the shortest round-trip form (`2.5`).
    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
