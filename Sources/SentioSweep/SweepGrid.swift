import SentioCore

/// A parameter grid: named parameters, each with a list of values (strings, as a command line would give them).
///
/// Syntax (``parse(_:)``): `name=v1,v2,…;name2=…`. A value may be a range `start:stop:step` (stop inclusive), which
/// expands in exact decimal arithmetic: `0.1:0.3:0.1` gives exactly `0.1`, `0.2`, `0.3` (each value is
/// `start + k × step` computed on integers scaled by the largest number of decimals among the three, then written
/// with that many decimals), so a range never drifts the way repeated floating-point addition does.
///
/// Combination order: the grid is a mixed-radix number whose **last** parameter varies fastest (nested loops in grid
/// order). Combination `i` has, for parameter `p` with `n_p` values, the value index
/// `(i / Π_{q > p} n_q) mod n_p`. The order depends only on the grid text, so every process agrees on it.
public struct SweepGrid: Sendable, Equatable {
    public var parameters: [SweepGridParameter]

    /// The largest grid accepted (a typo in a range should fail fast, not allocate billions of rows).
    public static let maximumCombinations = 10_000_000

    public init(parameters: [SweepGridParameter]) throws(SweepGridError) {
        guard !parameters.isEmpty else { throw SweepGridError("the grid has no parameter") }
        var seen = Set<String>()
        var total = 1
        for p in parameters {
            guard seen.insert(p.name).inserted else { throw SweepGridError("parameter \(p.name) appears twice in the grid") }
            guard !p.values.isEmpty else { throw SweepGridError("parameter \(p.name) has no value") }
            var values = Set<String>()
            for v in p.values where !values.insert(v).inserted {
                throw SweepGridError("parameter \(p.name): value \(v) appears twice")
            }
            let (product, overflow) = total.multipliedReportingOverflow(by: p.values.count)
            guard !overflow, product <= Self.maximumCombinations else {
                throw SweepGridError("the grid has more than \(Self.maximumCombinations) combinations")
            }
            total = product
        }
        self.parameters = parameters
    }

    /// Parses `name=v1,v2,…;name2=…` (whitespace around names and values ignored, ranges expanded).
    ///
    /// - Throws: ``SweepGridError`` for an empty grid, a part without `=`, an empty name or value, a malformed or
    ///   empty range, a parameter given twice, a repeated value, or more than ``maximumCombinations`` combinations.
    public static func parse(_ text: String) throws(SweepGridError) -> SweepGrid {
        var parameters: [SweepGridParameter] = []
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingSpaces
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw SweepGridError("'\(trimmed)' is not name=values (parameters are separated by ';')")
            }
            let name = String(trimmed[..<eq]).trimmingSpaces
            guard !name.isEmpty else { throw SweepGridError("'\(trimmed)' has no parameter name") }
            if name.hasPrefix("-") { throw SweepGridError("parameter \(name): write the option name without '--'") }
            var values: [String] = []
            for item in trimmed[trimmed.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false) {
                let v = String(item).trimmingSpaces
                guard !v.isEmpty else { throw SweepGridError("parameter \(name) has an empty value") }
                if v.contains(":") { values += try expandRange(v, parameter: name) } else { values.append(v) }
            }
            parameters.append(SweepGridParameter(name: name, values: values))
        }
        return try SweepGrid(parameters: parameters)
    }

    /// The values of `start:stop:step` (see the type's documentation).
    static func expandRange(_ text: String, parameter: String) throws(SweepGridError) -> [String] {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count == 3 else { throw SweepGridError("parameter \(parameter): range '\(text)' is not start:stop:step") }
        guard let a = ExactDecimal(parts[0]), let b = ExactDecimal(parts[1]), let s = ExactDecimal(parts[2]) else {
            throw SweepGridError("parameter \(parameter): range '\(text)' needs plain decimal numbers (e.g. 0.1:0.5:0.1)")
        }
        let scale = max(a.scale, b.scale, s.scale)
        guard let start = a.scaled(to: scale), let stop = b.scaled(to: scale), let step = s.scaled(to: scale) else {
            throw SweepGridError("parameter \(parameter): range '\(text)' has too many digits")
        }
        guard step > 0 else { throw SweepGridError("parameter \(parameter): range '\(text)' needs a positive step") }
        guard stop >= start else { throw SweepGridError("parameter \(parameter): range '\(text)' has stop below start") }
        let count = (stop - start) / step + 1
        guard count <= maximumCombinations else { throw SweepGridError("parameter \(parameter): range '\(text)' has \(count) values") }
        return (0..<count).map { ExactDecimal.format(start + $0 * step, scale: scale) }
    }

    /// The number of combinations (the product of the value counts).
    public var count: Int { parameters.reduce(1) { $0 * $1.values.count } }

    /// The names, in grid order.
    public var names: [String] { parameters.map(\.name) }

    /// Combination `index`'s values, in grid order (last parameter fastest).
    public func combination(_ index: Int) -> SweepParameters {
        precondition(index >= 0 && index < count, "combination index out of range")
        var rest = index
        var values = [(name: String, value: String)](repeating: ("", ""), count: parameters.count)
        for p in parameters.indices.reversed() {
            let n = parameters[p].values.count
            values[p] = (parameters[p].name, parameters[p].values[rest % n])
            rest /= n
        }
        return SweepParameters(values)
    }
}

/// A malformed grid (`--grid`).
public struct SweepGridError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "--grid: \(message)" }
}

/// A part of a sharded sweep: `--shard K/N` runs the combinations `i` (0-based, grid order) with `i mod N == K − 1`.
///
/// Striding (rather than contiguous blocks) spreads neighbouring combinations — which often share indicator work
/// and cost about the same — over every shard, so shards take about the same time.
public struct SweepShard: Sendable, Equatable {
    /// 1-based.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) throws(SweepGridError) {
        guard count >= 1, index >= 1, index <= count else {
            throw SweepGridError("shard \(index)/\(count): K must be in 1...N")
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init(parsing text: String) throws(SweepShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw SweepShardError("--shard expects K/N (e.g. 2/8), got '\(text)'")
        }
        guard n >= 1, k >= 1, k <= n else { throw SweepShardError("--shard \(text): K must be in 1...N") }
        self.index = k
        self.count = n
    }

    /// Whether combination `i` belongs to this shard.
    public func contains(_ i: Int) -> Bool { i % count == index - 1 }

    /// The combinations of a grid of `total` that belong to this shard, ascending.
    public func indices(of total: Int) -> StrideTo<Int> { stride(from: index - 1, to: total, by: count) }

    public var info: SweepShardInfo { SweepShardInfo(index: index, count: count) }
}

/// A malformed `--shard`.
public struct SweepShardError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A plain decimal number (`-12.340`) as an integer and a count of decimals.
struct ExactDecimal {
    var units: Int
    var scale: Int

    init?(_ text: String) {
        var s = Substring(text)
        var negative = false
        if s.first == "-" || s.first == "+" { negative = s.first == "-"; s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty || (parts.count == 2 && !parts[1].isEmpty) else { return nil }
        let digits = parts[0] + (parts.count == 2 ? parts[1] : "")
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 17 else { return nil }
        guard let value = Int(digits) else { return nil }
        units = negative ? -value : value
        scale = parts.count == 2 ? parts[1].count : 0
    }

    /// The units at `target` decimals (≥ `scale`), or `nil` on overflow.
    func scaled(to target: Int) -> Int? {
        var u = units
        for _ in scale..<target {
            let (p, o) = u.multipliedReportingOverflow(by: 10)
            if o { return nil }
            u = p
        }
        return u
    }

    /// `units / 10^scale` written with exactly `scale` decimals.
    static func format(_ units: Int, scale: Int) -> String {
        let negative = units < 0
        var digits = String(units.magnitude)
        guard scale > 0 else { return (negative ? "-" : "") + digits }
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        let cut = digits.index(digits.endIndex, offsetBy: -scale)
        return (negative ? "-" : "") + digits[..<cut] + "." + digits[cut...]
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
