import SentioCore

/// Display names of instruments, for the symbol detail's `name` (`SymbolDetail.name`, SentioAPI).
///
/// The twelve leveraged ETFs of the sample market ship with their names, in the app's short style
/// ("Nasdaq 3x Bull"), and with the issuer's full fund name. Other symbols get a name from the caller
/// (a metadata file, the store's instruments table) through `overrides`, which also replace shipped names.
///
/// Resolution order of ``resolvedName(of:)``: the override, else the shipped name, else — only when
/// ``symbolAsLastResort`` is set, as `sentio signals --detail` does — the symbol itself; otherwise a symbol
/// without a name has none (`nil`).
public struct InstrumentNames: Sendable, Equatable {
    /// One instrument: ticker, short display name, the issuer's fund name.
    public struct Instrument: Sendable, Equatable {
        public var symbol: String
        public var name: String
        public var fundName: String
    }

    /// The shipped table: six 3x bull/bear pairs (ProShares for the Nasdaq-100 pair, Direxion for the others).
    public static let shipped: [Instrument] = [
        Instrument(symbol: "TQQQ", name: "Nasdaq 3x Bull", fundName: "ProShares UltraPro QQQ"),
        Instrument(symbol: "SQQQ", name: "Nasdaq 3x Bear", fundName: "ProShares UltraPro Short QQQ"),
        Instrument(symbol: "SOXL", name: "Semiconductor 3x Bull", fundName: "Direxion Daily Semiconductor Bull 3X Shares"),
        Instrument(symbol: "SOXS", name: "Semiconductor 3x Bear", fundName: "Direxion Daily Semiconductor Bear 3X Shares"),
        Instrument(symbol: "SPXL", name: "S&P 500 3x Bull", fundName: "Direxion Daily S&P 500 Bull 3X Shares"),
        Instrument(symbol: "SPXS", name: "S&P 500 3x Bear", fundName: "Direxion Daily S&P 500 Bear 3X Shares"),
        Instrument(symbol: "TNA", name: "Small Cap 3x Bull", fundName: "Direxion Daily Small Cap Bull 3X Shares"),
        Instrument(symbol: "TZA", name: "Small Cap 3x Bear", fundName: "Direxion Daily Small Cap Bear 3X Shares"),
        Instrument(symbol: "FAS", name: "Financials 3x Bull", fundName: "Direxion Daily Financial Bull 3X Shares"),
        Instrument(symbol: "FAZ", name: "Financials 3x Bear", fundName: "Direxion Daily Financial Bear 3X Shares"),
        Instrument(symbol: "LABU", name: "Biotech 3x Bull", fundName: "Direxion Daily S&P Biotech Bull 3X Shares"),
        Instrument(symbol: "LABD", name: "Biotech 3x Bear", fundName: "Direxion Daily S&P Biotech Bear 3X Shares"),
    ]

    /// Names by symbol: the shipped table with `overrides` applied.
    public var names: [String: String]

    /// Whether a symbol with no name is named by the symbol itself (`true`) or is an error (`false`).
    public var symbolAsLastResort: Bool

    public init(overrides: [String: String] = [:], symbolAsLastResort: Bool = false) {
        var names: [String: String] = [:]
        for i in Self.shipped { names[i.symbol] = i.name }
        for (symbol, name) in overrides where !name.isEmpty { names[symbol] = name }
        self.names = names
        self.symbolAsLastResort = symbolAsLastResort
    }

    /// The shipped names by symbol.
    public static var shippedNames: [String: String] {
        Dictionary(uniqueKeysWithValues: shipped.map { ($0.symbol, $0.name) })
    }

    /// The display name of `symbol` (see the resolution order above); `nil` when the symbol has none and
    /// ``symbolAsLastResort`` is off (SentioAPI's `name(of:)` makes that a contract error: a contract name is never
    /// empty or null).
    public func resolvedName(of symbol: String) -> String? {
        guard let name = names[symbol], !name.isEmpty else {
            return symbolAsLastResort && !symbol.isEmpty ? symbol : nil
        }
        return name
    }
}
