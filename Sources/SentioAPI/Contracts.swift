import SentioSignals

// Every contract declares its stored properties in the order of the issue's field list: ``APIJSON`` writes
// keys in declaration order. Do not reorder them.

/// What the model says to do: `"BUY"`, `"SELL"` or `"HOLD"` (the engine's `SignalType`).
public typealias APISignalType = SentioSignals.SignalType

/// One symbol's signal at one bar (`GET /signals` element).
///
/// Units: `price`, `change` and `profitTarget` are **prices** (currency per share); `changePercent`,
/// `targetReturn` and `stopLoss` are **percents** (`2.5` = 2.5 %). `targetReturn` is the forecast simple
/// return over the model's horizon; `stopLoss` is a *negative* percent below `price`
/// (`−stopLossATRMultiple × ATR / price × 100`); `profitTarget` is the price `price × (1 + targetReturn/100)`.
/// `confidence` is a fraction in 0…1; `aiSignal` is the forecast's t-statistic-like score (forecast / its
/// standard error); `rsi` is Wilder's RSI (0…100); `volumeRatio` is volume over its window mean.
/// `id` is the UUIDv5 (URL namespace) of `sentio:signal:SYMBOL:TIMESTAMP`, e.g.
/// `sentio:signal:TQQQ:2024-12-05T00:00:00Z` (the same id the engine's `Signal.id` gives).
/// No field is ever `null`: a symbol still warming up is listed in ``SignalsResponse/warmingUp`` instead.
public struct APISignal: Sendable, Hashable, Codable {
    public var id: String
    public var symbol: String
    public var timestamp: APITimestamp
    public var price: Double
    public var change: Double
    public var changePercent: Double
    public var signalType: APISignalType
    public var confidence: Double
    public var targetReturn: Double
    public var stopLoss: Double
    public var profitTarget: Double
    public var aiSignal: Double
    public var rsi: Double
    public var volumeRatio: Double
    public var recommendation: String
    public var reasoning: String

    public init(
        id: String, symbol: String, timestamp: APITimestamp, price: Double, change: Double, changePercent: Double,
        signalType: APISignalType, confidence: Double, targetReturn: Double, stopLoss: Double, profitTarget: Double,
        aiSignal: Double, rsi: Double, volumeRatio: Double, recommendation: String, reasoning: String
    ) {
        self.id = id
        self.symbol = symbol
        self.timestamp = timestamp
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
        self.recommendation = recommendation
        self.reasoning = reasoning
    }
}

/// A symbol whose model has not seen enough bars to forecast: listed instead of a signal with nulls.
public struct WarmingUpSymbol: Sendable, Hashable, Codable {
    public var symbol: String
    /// Bars still needed before the first signal (≥ 1).
    public var barsRemaining: Int

    public init(symbol: String, barsRemaining: Int) {
        self.symbol = symbol
        self.barsRemaining = barsRemaining
    }
}

/// `GET /signals`: `{"timestamp", "signals": [Signal], "warmingUp": [{"symbol", "barsRemaining"}]}`.
///
/// `timestamp` is the latest bar time over all symbols (warming-up ones included). `warmingUp` is an extra
/// key (clients that do not know it ignore it); it is always present, `[]` when every symbol has a signal.
public struct SignalsResponse: Sendable, Hashable, Codable {
    public var timestamp: APITimestamp
    public var signals: [APISignal]
    public var warmingUp: [WarmingUpSymbol]

    public init(timestamp: APITimestamp, signals: [APISignal], warmingUp: [WarmingUpSymbol]) {
        self.timestamp = timestamp
        self.signals = signals
        self.warmingUp = warmingUp
    }
}

/// Every bar's signal of one or more symbols: what `sentio signals --history` writes (Sentio's own shape).
///
/// `{"model", "config", "timestamp", "signals": [Signal], "warmingUp": [{"symbol", "barsRemaining"}]}`.
/// `model` names the model (``SignalHistoryResponse/modelName``); `config` is every model parameter used (the keys
/// of a `--config` file, so the history can be re-run); `timestamp` is the latest bar time over all symbols.
/// `signals` holds one ``APISignal`` per bar that has one — symbols in the given order, bars in time order;
/// the warm-up bars before a symbol's first signal have none and are not listed (`SignalModelConfig.firstSignalIndex`
/// of them per symbol). `warmingUp` lists, as in ``SignalsResponse``, the symbols whose latest bar is still
/// warming up. The CSV form (``csv()``) has one row per element of `signals`.
public struct SignalHistoryResponse: Sendable, Equatable, Codable {
    /// The model name written in ``model``.
    public static let modelName = "sentio-rolling-ols-v1"

    public var model: String
    public var config: SignalModelConfig
    public var timestamp: APITimestamp
    public var signals: [APISignalHistoryRow]
    public var warmingUp: [WarmingUpSymbol]

    public init(
        model: String = SignalHistoryResponse.modelName, config: SignalModelConfig, timestamp: APITimestamp, signals: [APISignalHistoryRow],
        warmingUp: [WarmingUpSymbol]
    ) {
        self.model = model
        self.config = config
        self.timestamp = timestamp
        self.signals = signals
        self.warmingUp = warmingUp
    }

    /// ``signals`` as CSV (``APISignalHistoryRow/csv(_:)``).
    public func csv() throws(APIEncodingError) -> String { try APISignalHistoryRow.csv(signals) }
}

/// One row of the signal history: the signal (every ``APISignal`` field, same keys) and its outcome.
///
/// - `horizonBars`: the model's horizon `h`; the signal is judged on the close `h` bars later.
/// - `realizedReturn`: `100 × (C[t+h] / C[t] − 1)` percent (the same unit as `targetReturn`), `null` until bar
///   `t + h` exists.
/// - `right`: for BUY `realizedReturn > 0`, for SELL `realizedReturn < 0` (the sign of the log return
///   `ln(C[t+h]/C[t])`); `null` for HOLD (not scored) and until resolved.
public struct APISignalHistoryRow: Sendable, Hashable, Codable {
    public var signal: APISignal
    public var horizonBars: Int
    public var realizedReturn: Double?
    public var right: Bool?

    public init(signal: APISignal, horizonBars: Int, realizedReturn: Double?, right: Bool?) {
        self.signal = signal
        self.horizonBars = horizonBars
        self.realizedReturn = realizedReturn
        self.right = right
    }

    private enum ExtraKeys: String, CodingKey { case horizonBars, realizedReturn, right }

    /// The signal's keys, then `horizonBars`, `realizedReturn`, `right` (`null` when not known).
    public func encode(to encoder: any Encoder) throws {
        try signal.encode(to: encoder)
        var c = encoder.container(keyedBy: ExtraKeys.self)
        try c.encode(horizonBars, forKey: .horizonBars)
        try c.encodeIfPresent(realizedReturn, forKey: .realizedReturn)
        try c.encodeIfPresent(right, forKey: .right)
    }

    public init(from decoder: any Decoder) throws {
        signal = try APISignal(from: decoder)
        let c = try decoder.container(keyedBy: ExtraKeys.self)
        horizonBars = try c.decode(Int.self, forKey: .horizonBars)
        realizedReturn = try c.decode(Double?.self, forKey: .realizedReturn)
        right = try c.decode(Bool?.self, forKey: .right)
    }

    /// The CSV header: ``APISignal/csvColumns`` then `horizonBars`, `realizedReturn`, `right`.
    public static let csvColumns = APISignal.csvColumns + ["horizonBars", "realizedReturn", "right"]

    /// Rows as CSV: the ``APISignal/csv(_:)`` cells, then `horizonBars`, `realizedReturn` (empty until known)
    /// and `right` (`true`/`false`, empty for HOLD and until known).
    ///
    /// - Throws: ``APIEncodingError`` naming `signals[i].field` for a non-finite number.
    public static func csv(_ rows: [APISignalHistoryRow]) throws(APIEncodingError) -> String {
        let base = try APISignal.csv(rows.map(\.signal)).split(separator: "\n", omittingEmptySubsequences: false)
        var out = csvColumns.joined(separator: ",") + "\n"
        // APISignal.csv writes one line per signal (texts never hold line breaks: they are generated).
        for (i, row) in rows.enumerated() {
            var realized = ""
            if let r = row.realizedReturn {
                guard let text = APIJSON.number(r) else {
                    throw APIEncodingError(field: "signals[\(i)].realizedReturn", message: "non-finite number \(r): a contract number is never null, NaN or infinite")
                }
                realized = text
            }
            out += base[i + 1] + ",\(row.horizonBars),\(realized),\(row.right.map { $0 ? "true" : "false" } ?? "")\n"
        }
        return out
    }
}

extension APISignal {
    /// The CSV header: the ``APISignal`` fields in contract order.
    public static let csvColumns = [
        "id", "symbol", "timestamp", "price", "change", "changePercent", "signalType", "confidence", "targetReturn",
        "stopLoss", "profitTarget", "aiSignal", "rsi", "volumeRatio", "recommendation", "reasoning",
    ]

    /// Signals as CSV: the header ``csvColumns``, then one row per signal, cells as the JSON contract writes
    /// them (numbers in the shortest round-trip form, timestamps ISO-8601 `Z`), text quoted only when it holds
    /// `,`, `"` or a line break (RFC 4180); lines end with `\n`.
    ///
    /// - Throws: ``APIEncodingError`` naming `signals[i].field` for a non-finite number.
    public static func csv(_ signals: [APISignal]) throws(APIEncodingError) -> String {
        var out = csvColumns.joined(separator: ",") + "\n"
        for (i, s) in signals.enumerated() {
            func number(_ x: Double, _ field: String) throws(APIEncodingError) -> String {
                guard let text = APIJSON.number(x) else {
                    throw APIEncodingError(field: "signals[\(i)].\(field)",
                        message: "non-finite number \(x): a contract number is never null, NaN or infinite")
                }
                return text
            }
            let cells = [
                TradeHistory.csvText(s.id), TradeHistory.csvText(s.symbol), s.timestamp.description,
                try number(s.price, "price"), try number(s.change, "change"), try number(s.changePercent, "changePercent"),
                s.signalType.rawValue, try number(s.confidence, "confidence"), try number(s.targetReturn, "targetReturn"),
                try number(s.stopLoss, "stopLoss"), try number(s.profitTarget, "profitTarget"),
                try number(s.aiSignal, "aiSignal"), try number(s.rsi, "rsi"), try number(s.volumeRatio, "volumeRatio"),
                TradeHistory.csvText(s.recommendation), TradeHistory.csvText(s.reasoning),
            ]
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }
}

/// One bar of ``SymbolDetail/historicalData``: prices in currency, volume in shares.
public struct HistoricalBar: Sendable, Hashable, Codable {
    public var timestamp: APITimestamp
    public var open: Double
    public var high: Double
    public var low: Double
    public var close: Double
    public var volume: Double

    public init(timestamp: APITimestamp, open: Double, high: Double, low: Double, close: Double, volume: Double) {
        self.timestamp = timestamp
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }
}

/// `GET /symbols/{symbol}`: `{"symbol", "name", "price", "signal", "historicalData"}`.
///
/// `name` comes from instrument metadata (`InstrumentNames`, SentioData); `price` is the latest close (equal to
/// `signal.price`); `historicalData` is in time order.
public struct SymbolDetail: Sendable, Hashable, Codable {
    public var symbol: String
    public var name: String
    public var price: Double
    public var signal: APISignal
    public var historicalData: [HistoricalBar]

    public init(symbol: String, name: String, price: Double, signal: APISignal, historicalData: [HistoricalBar]) {
        self.symbol = symbol
        self.name = name
        self.price = price
        self.signal = signal
        self.historicalData = historicalData
    }
}

/// An open position, marked to market.
///
/// `pnl = (currentPrice − entryPrice) × quantity` (gross: commissions are in the portfolio's totals, not
/// here) and `pnlPercent = 100 × (currentPrice − entryPrice) / entryPrice` (a percent). `shares` is the held
/// amount rounded toward zero; when the backtest allows fractional shares an extra key `quantity` carries
/// the exact amount (so `pnl` is exact), otherwise `quantity` is absent and `shares` is exact.
/// `entryPrice` is the fill price after slippage (share-weighted for added lots). `id` is the UUIDv5 (URL
/// namespace) of `sentio:position:SYMBOL:ENTRYTIME`.
public struct Position: Sendable, Hashable, Codable {
    public var id: String
    public var symbol: String
    public var entryPrice: Double
    public var currentPrice: Double
    public var shares: Int
    public var entryTime: APITimestamp
    public var pnl: Double
    public var pnlPercent: Double
    /// The exact amount held, only with fractional sizing (extra key, written last).
    public var quantity: Double?

    public init(
        id: String, symbol: String, entryPrice: Double, currentPrice: Double, shares: Int, entryTime: APITimestamp,
        pnl: Double, pnlPercent: Double, quantity: Double? = nil
    ) {
        self.id = id
        self.symbol = symbol
        self.entryPrice = entryPrice
        self.currentPrice = currentPrice
        self.shares = shares
        self.entryTime = entryTime
        self.pnl = pnl
        self.pnlPercent = pnlPercent
        self.quantity = quantity
    }

    enum CodingKeys: String, CodingKey {
        case id, symbol, entryPrice, currentPrice, shares, entryTime, pnl, pnlPercent, quantity
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(symbol, forKey: .symbol)
        try c.encode(entryPrice, forKey: .entryPrice)
        try c.encode(currentPrice, forKey: .currentPrice)
        try c.encode(shares, forKey: .shares)
        try c.encode(entryTime, forKey: .entryTime)
        try c.encode(pnl, forKey: .pnl)
        try c.encode(pnlPercent, forKey: .pnlPercent)
        if let quantity { try c.encode(quantity, forKey: .quantity) }
    }
}

/// A closed round trip.
///
/// `pnl` is net of the commissions and fees paid at entry and exit (the engine's figure:
/// `quantity × (exitPrice − entryPrice) − costs`); `pnlPercent = 100 × pnl / (quantity × entryPrice)` (a percent).
/// Prices are fill prices after slippage. `shares` is rounded toward zero; with fractional sizing the extra
/// key `quantity` carries the exact amount. `signalType` is the signal that opened the trade (`BUY`: the
/// backtest is long-only). `id` is the UUIDv5 (URL namespace) of `sentio:trade:SYMBOL:ENTRYTIME:EXITTIME`.
public struct Trade: Sendable, Hashable, Codable {
    public var id: String
    public var symbol: String
    public var entryPrice: Double
    public var exitPrice: Double
    public var shares: Int
    public var entryTime: APITimestamp
    public var exitTime: APITimestamp
    public var pnl: Double
    public var pnlPercent: Double
    public var signalType: APISignalType
    /// The exact amount traded, only with fractional sizing (extra key, written last).
    public var quantity: Double?

    public init(
        id: String, symbol: String, entryPrice: Double, exitPrice: Double, shares: Int, entryTime: APITimestamp,
        exitTime: APITimestamp, pnl: Double, pnlPercent: Double, signalType: APISignalType, quantity: Double? = nil
    ) {
        self.id = id
        self.symbol = symbol
        self.entryPrice = entryPrice
        self.exitPrice = exitPrice
        self.shares = shares
        self.entryTime = entryTime
        self.exitTime = exitTime
        self.pnl = pnl
        self.pnlPercent = pnlPercent
        self.signalType = signalType
        self.quantity = quantity
    }

    enum CodingKeys: String, CodingKey {
        case id, symbol, entryPrice, exitPrice, shares, entryTime, exitTime, pnl, pnlPercent, signalType, quantity
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(symbol, forKey: .symbol)
        try c.encode(entryPrice, forKey: .entryPrice)
        try c.encode(exitPrice, forKey: .exitPrice)
        try c.encode(shares, forKey: .shares)
        try c.encode(entryTime, forKey: .entryTime)
        try c.encode(exitTime, forKey: .exitTime)
        try c.encode(pnl, forKey: .pnl)
        try c.encode(pnlPercent, forKey: .pnlPercent)
        try c.encode(signalType, forKey: .signalType)
        if let quantity { try c.encode(quantity, forKey: .quantity) }
    }
}

/// `GET /portfolio`: the account at the end of a backtest.
///
/// - `initialCapital`: starting cash (`100000.0` by default); `currentValue`: cash + positions at the last
///   close; `cashBalance`: cash.
/// - `totalPnL = currentValue − initialCapital − contributions` (DCA deposits are not profit);
///   `totalPnLPercent = 100 × totalPnL / (initialCapital + contributions)`.
/// - `dayPnL` = `currentValue` minus the account value at the close of the previous trading day, minus the
///   deposits made during the current day; `dayPnLPercent = 100 × dayPnL / previous day's value`. Days are
///   calendar days **in the exchange's time zone** (default `America/New_York`, see
///   ``BacktestContracts/portfolio(_:recentTrades:exchangeTimeZone:)``): every step whose timestamp falls on
///   the same local date as the last step belongs to "today". Daily bars (one per day) make it the last
///   step's change; intraday bars sum the day's steps. With no earlier day, the previous value is
///   `initialCapital`.
/// - `positions`: the open positions; `recentTrades`: the most recent closed trades, newest exit first;
///   `trades`: every closed trade, in the engine's (exit) order as in ``TradeHistory`` (the Sentio Lite spec's own
///   `Portfolio` model decodes `trades`, its API example `recentTrades`: both are served).
public struct Portfolio: Sendable, Hashable, Codable {
    public var initialCapital: Double
    public var currentValue: Double
    public var cashBalance: Double
    public var totalPnL: Double
    public var totalPnLPercent: Double
    public var dayPnL: Double
    public var dayPnLPercent: Double
    public var positions: [Position]
    public var recentTrades: [Trade]
    public var trades: [Trade]

    public init(
        initialCapital: Double, currentValue: Double, cashBalance: Double, totalPnL: Double, totalPnLPercent: Double,
        dayPnL: Double, dayPnLPercent: Double, positions: [Position], recentTrades: [Trade], trades: [Trade]
    ) {
        self.initialCapital = initialCapital
        self.currentValue = currentValue
        self.cashBalance = cashBalance
        self.totalPnL = totalPnL
        self.totalPnLPercent = totalPnLPercent
        self.dayPnL = dayPnL
        self.dayPnLPercent = dayPnLPercent
        self.positions = positions
        self.recentTrades = recentTrades
        self.trades = trades
    }
}

/// The trade history of a backtest: `{"winRate", "totalTrades", "trades"}`.
///
/// `winRate` is a **percent** (0…100): `100 × (trades with pnl > 0) / totalTrades`; `totalTrades` counts
/// closed trades (open positions are not trades). `trades` is every closed trade in exit order. The same
/// log as CSV is ``csv()``.
public struct TradeHistory: Sendable, Hashable, Codable {
    public var winRate: Double
    public var totalTrades: Int
    public var trades: [Trade]

    public init(winRate: Double, totalTrades: Int, trades: [Trade]) {
        self.winRate = winRate
        self.totalTrades = totalTrades
        self.trades = trades
    }

    /// The trade log as CSV: a header row, then one row per trade, columns in ``Trade``'s order (`id` first:
    /// `id,symbol,entryPrice,exitPrice,shares,entryTime,exitTime,pnl,pnlPercent,signalType`) plus a last
    /// `quantity` column when any trade has one (fractional sizing). Numbers as ``APIJSON`` writes them,
    /// timestamps ISO-8601 `Z`, text quoted only when it holds `,`, `"` or a line break (RFC 4180); lines end
    /// with `\n`.
    ///
    /// - Throws: ``APIEncodingError`` naming `trades[i].field` for a non-finite number.
    public func csv() throws(APIEncodingError) -> String {
        let withQuantity = trades.contains { $0.quantity != nil }
        var out = "id,symbol,entryPrice,exitPrice,shares,entryTime,exitTime,pnl,pnlPercent,signalType"
        out += withQuantity ? ",quantity\n" : "\n"
        for (i, t) in trades.enumerated() {
            func number(_ x: Double, _ field: String) throws(APIEncodingError) -> String {
                guard let text = APIJSON.number(x) else {
                    throw APIEncodingError(field: "trades[\(i)].\(field)",
                        message: "non-finite number \(x): a contract number is never null, NaN or infinite")
                }
                return text
            }
            var cells = [
                Self.csvText(t.id), Self.csvText(t.symbol), try number(t.entryPrice, "entryPrice"),
                try number(t.exitPrice, "exitPrice"), String(t.shares), t.entryTime.description, t.exitTime.description,
                try number(t.pnl, "pnl"), try number(t.pnlPercent, "pnlPercent"), t.signalType.rawValue,
            ]
            if withQuantity {
                guard let q = t.quantity else {
                    throw APIEncodingError(field: "trades[\(i)].quantity", message: "missing while other trades have one")
                }
                cells.append(try number(q, "quantity"))
            }
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }

    static func csvText(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// One reported NAV of a fund: `{"id", "date", "nav"}` (`nav` in the fund's currency). `id` is the UUIDv5
/// (URL namespace) of `sentio:nav:FUNDID:n` (n = 1-based report number in date order).
public struct NAVPoint: Sendable, Hashable, Codable {
    public var id: String
    public var date: APITimestamp
    public var nav: Double

    public init(id: String, date: APITimestamp, nav: Double) {
        self.id = id
        self.date = date
        self.nav = nav
    }
}

/// A fund (OneLPM), list form.
///
/// Money (`commitment`, `paidIn`, `nav`) is in the fund's currency; `irr` is a **decimal fraction**
/// (`0.15` = 15 %, XIRR on Actual/365 unless the report says otherwise); `tvpi` and `dpi` are ratios.
/// `paidIn` counts calls paid (status PAID or none), as SentioFunds does. `lastReportDate` is the latest NAV
/// date on or before the as-of date. `id` is the UUIDv5 (URL namespace) of `sentio:fund:FUNDID`. The
/// detail form, ``FundDetail``, adds `documents`.
public struct Fund: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var domicile: String
    public var vintage: Int
    public var manager: String
    public var commitment: Double
    public var paidIn: Double
    public var nav: Double
    public var irr: Double
    public var tvpi: Double
    public var dpi: Double
    public var lastReportDate: APITimestamp
    public var navHistory: [NAVPoint]

    public init(
        id: String, name: String, domicile: String, vintage: Int, manager: String, commitment: Double, paidIn: Double,
        nav: Double, irr: Double, tvpi: Double, dpi: Double, lastReportDate: APITimestamp, navHistory: [NAVPoint]
    ) {
        self.id = id
        self.name = name
        self.domicile = domicile
        self.vintage = vintage
        self.manager = manager
        self.commitment = commitment
        self.paidIn = paidIn
        self.nav = nav
        self.irr = irr
        self.tvpi = tvpi
        self.dpi = dpi
        self.lastReportDate = lastReportDate
        self.navHistory = navHistory
    }
}

/// A fund in detail form: every ``Fund`` key in its order, then `documents`.
public struct FundDetail: Sendable, Hashable, Codable {
    public var fund: Fund
    public var documents: [Document]

    public init(fund: Fund, documents: [Document]) {
        self.fund = fund
        self.documents = documents
    }

    enum CodingKeys: String, CodingKey { case documents }

    public init(from decoder: any Decoder) throws {
        fund = try Fund(from: decoder)
        documents = try decoder.container(keyedBy: CodingKeys.self).decode([Document].self, forKey: .documents)
    }

    public func encode(to encoder: any Encoder) throws {
        try fund.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(documents, forKey: .documents)
    }
}

/// The kind of a fund document.
public enum DocumentType: String, Sendable, Hashable, Codable, CaseIterable {
    case capitalCall = "CAPITAL_CALL"
    case quarterlyReport = "QUARTERLY_REPORT"
    case annualReport = "ANNUAL_REPORT"
    case kyc = "KYC"
    case compliance = "COMPLIANCE"
    case other = "OTHER"
}

/// The payment status of a capital call document (see ``FundContracts`` for the rule that derives it).
public enum PaymentStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pending = "PENDING"
    case paid = "PAID"
    case late = "LATE"
    case overdue = "OVERDUE"
}

/// A string-to-string object whose keys keep their order (`parsedData`).
public struct OrderedStrings: Sendable, Hashable, Codable {
    public var pairs: [Pair]

    public struct Pair: Sendable, Hashable {
        public var key: String
        public var value: String
    }

    public init(_ pairs: [(String, String)]) { self.pairs = pairs.map { Pair(key: $0.0, value: $0.1) } }

    public subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        pairs = try c.allKeys.map { Pair(key: $0.stringValue, value: try c.decode(String.self, forKey: $0)) }
            .sorted { $0.key < $1.key }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for pair in pairs { try c.encode(pair.value, forKey: Key(stringValue: pair.key)) }
    }
}

/// A fund document.
///
/// `dueDate`, `callAmount` and `paymentStatus` describe a capital call: they are `null` on other document
/// types (the only `null` numbers of the contracts, because the field does not apply). `url` is the
/// document's link when the events data gives one, else `null`. `uploadDate` is the call date for a capital
/// call and the report date for a report. `parsedData` holds strings extracted from the document
/// (`{"callNumber": "3", "percentage": "5%"}` for a call). `id` is the UUIDv5 (URL namespace) of
/// `sentio:document:FUNDID:KIND:n`.
public struct Document: Sendable, Hashable, Codable {
    public var id: String
    public var type: DocumentType
    public var title: String
    public var uploadDate: APITimestamp
    public var dueDate: APITimestamp?
    public var callAmount: Double?
    public var paymentStatus: PaymentStatus?
    public var url: String?
    public var parsedData: OrderedStrings

    public init(
        id: String, type: DocumentType, title: String, uploadDate: APITimestamp, dueDate: APITimestamp?,
        callAmount: Double?, paymentStatus: PaymentStatus?, url: String?, parsedData: OrderedStrings
    ) {
        self.id = id
        self.type = type
        self.title = title
        self.uploadDate = uploadDate
        self.dueDate = dueDate
        self.callAmount = callAmount
        self.paymentStatus = paymentStatus
        self.url = url
        self.parsedData = parsedData
    }
}

/// Totals over the funds: `totalCommitment` and `totalNav` in currency, `portfolioTvpi` a ratio
/// (`(Σ distributions + Σ NAV) / Σ paid-in`), `activeCapitalCalls` the number of calls awaiting payment
/// (status PENDING, LATE or OVERDUE in the events data, as SentioFunds counts them).
///
/// `portfolioTvpi` is always a number, because the app's model (`PortfolioSummary.portfolioTvpi: Double`) cannot
/// decode `null`. When the multiple is undefined — no capital paid in: an investor with no accessible fund, or funds
/// with commitments but no call yet — it is written as `0.0` (the app shows "0.00x") and `portfolioTvpiDefined` is
/// `false`; otherwise `portfolioTvpiDefined` is `true` and `portfolioTvpi` is the multiple. A client that can tell
/// the two apart reads `portfolioTvpiDefined` first, so the placeholder is never taken for a real zero multiple
/// (which would mean everything paid in was lost). ``definedTvpi`` is the same rule in Swift.
public struct PortfolioSummary: Sendable, Hashable, Codable {
    public var totalCommitment: Double
    public var totalNav: Double
    /// The portfolio TVPI, or `0.0` when it is undefined (see ``portfolioTvpiDefined``).
    public var portfolioTvpi: Double
    /// Whether ``portfolioTvpi`` is a real multiple (`false`: no capital paid in, and `portfolioTvpi` is `0.0`).
    public var portfolioTvpiDefined: Bool
    public var activeCapitalCalls: Int

    /// A summary whose TVPI is `portfolioTvpi`, or undefined when it is `nil` or not finite (written as `0.0`
    /// with `portfolioTvpiDefined: false`).
    public init(totalCommitment: Double, totalNav: Double, portfolioTvpi: Double?, activeCapitalCalls: Int) {
        self.totalCommitment = totalCommitment
        self.totalNav = totalNav
        let tvpi = portfolioTvpi.flatMap { $0.isFinite ? $0 : nil }
        self.portfolioTvpi = tvpi ?? 0
        self.portfolioTvpiDefined = tvpi != nil
        self.activeCapitalCalls = activeCapitalCalls
    }

    /// The TVPI when it is defined, else `nil`.
    public var definedTvpi: Double? { portfolioTvpiDefined ? portfolioTvpi : nil }
}

/// One crypto holding valued at the latest close on or before the valuation date.
///
/// `amount` is in units of the coin; `valueUsd = amount × close` (the close of the symbol's market series,
/// e.g. BTCUSD, in USD). `id` is the UUIDv5 (URL namespace) of `sentio:crypto:SYMBOL`.
public struct CryptoHolding: Sendable, Hashable, Codable {
    public var id: String
    public var symbol: String
    public var name: String
    public var amount: Double
    public var valueUsd: Double

    public init(id: String, symbol: String, name: String, amount: Double, valueUsd: Double) {
        self.id = id
        self.symbol = symbol
        self.name = name
        self.amount = amount
        self.valueUsd = valueUsd
    }
}

/// `GET /api/crypto`: `{"holdings": [CryptoHolding], "totalValue"}` (`totalValue = Σ valueUsd`, USD).
public struct CryptoHoldingsResponse: Sendable, Hashable, Codable {
    public var holdings: [CryptoHolding]
    public var totalValue: Double

    public init(holdings: [CryptoHolding], totalValue: Double) {
        self.holdings = holdings
        self.totalValue = totalValue
    }
}

/// `GET /api/dashboard`: `{"portfolioSummary", "funds", "cryptoHoldings"}` (funds in list form).
public struct Dashboard: Sendable, Hashable, Codable {
    public var portfolioSummary: PortfolioSummary
    public var funds: [Fund]
    public var cryptoHoldings: [CryptoHolding]

    public init(portfolioSummary: PortfolioSummary, funds: [Fund], cryptoHoldings: [CryptoHolding]) {
        self.portfolioSummary = portfolioSummary
        self.funds = funds
        self.cryptoHoldings = cryptoHoldings
    }
}

/// A live push message: `{"type": "signal_update", "data": {"symbol", "price", "signal": Signal}}`.
public struct LiveMessage: Sendable, Hashable, Codable {
    /// Always `"signal_update"`.
    public var type: String
    public var data: Payload

    public struct Payload: Sendable, Hashable, Codable {
        public var symbol: String
        /// The latest price (the signal's bar close).
        public var price: Double
        public var signal: APISignal

        public init(symbol: String, price: Double, signal: APISignal) {
            self.symbol = symbol
            self.price = price
            self.signal = signal
        }
    }

    /// A `signal_update` for `signal`.
    public init(signalUpdate signal: APISignal) {
        self.type = "signal_update"
        self.data = Payload(symbol: signal.symbol, price: signal.price, signal: signal)
    }
}
