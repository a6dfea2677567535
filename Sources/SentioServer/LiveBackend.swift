import Foundation
import SentioAPI
import SentioBacktest
import SentioCore
import SentioData
import SentioSignals
import SentioStore

/// What the server needs from the live engine: ingest bars durably, and answer the app contracts.
///
/// The server calls it from one task at a time (its engine actor), so an implementation may keep exclusive
/// mutable state. ``StoreBackedLive`` is the implementation shipped today; a `JournaledLiveSession` adapter
/// replaces it once that session can run (see the catalog article `Serving`).
public protocol LiveBackend: AnyObject {
    /// The symbols served, in order.
    var universe: [String] { get }
    /// Feeds bars; returns one outcome per bar (in order) and the `signal_update` messages they caused.
    /// When it returns, every accepted bar is durable.
    /// - Throws: a store error: then nothing of the batch counts as received.
    func ingest(_ bars: [FeedBar]) throws -> IngestResult
    /// `GET /signals`. - Throws: `APIContractError` when no symbol has a bar yet.
    func signals() throws -> SignalsResponse
    /// Each symbol's current `signal_update` (symbols past warm-up only), in universe order.
    func currentMessages() -> [LiveMessage]
    /// `GET /symbols/{symbol}`; `nil` for a symbol outside the universe or without bars.
    func symbolDetail(_ symbol: String, timeframe: Timeframe) throws -> SymbolDetail?
    /// `GET /portfolio`. - Throws: `APIContractError` before the first bar.
    func portfolio() throws -> Portfolio
    /// `GET /trades`. - Throws: `APIContractError` before the first closed trade.
    func tradeHistory() throws -> TradeHistory
    /// The last commit of a clean exit.
    func finish() throws
    /// Called about once a second (`now`: UTC epoch seconds): a backend with a step grace delay completes a step
    /// that waited too long. Returns whether the state changed, and the `signal_update` messages it caused.
    func tick(now: Double) throws -> (changed: Bool, messages: [LiveMessage])
}

extension LiveBackend {
    public func tick(now: Double) throws -> (changed: Bool, messages: [LiveMessage]) { (false, []) }
}

/// What happened to one ingested bar (the ingestion endpoint's per-bar status).
public enum BarOutcome: Sendable, Equatable {
    case accepted
    /// Equal to a bar already accepted: nothing happened.
    case duplicate
    /// Refused: `reason` is a `LiveRejectedEvent` reason code, `message` says why.
    case rejected(reason: String, message: String)
}

/// The outcome of one ingestion batch.
public struct IngestResult: Sendable {
    public var outcomes: [BarOutcome]
    public var messages: [LiveMessage]
}

/// The history window of `GET /symbols/{symbol}`: the last 1 or 5 trading days (exchange-local dates that have
/// bars), or the bars of the last 1 or 3 calendar months up to the last bar's local date.
public enum Timeframe: String, Sendable, CaseIterable {
    case oneDay = "1D", fiveDays = "5D", oneMonth = "1M", threeMonths = "3M"

    /// The index of the first bar of the window in `timestamps` (time-ordered, non-empty).
    func startIndex(_ timestamps: [Int64], zone: ExchangeTimeZone) -> Int {
        guard let last = timestamps.last else { return 0 }
        let lastDate = zone.localDate(last)
        switch self {
        case .oneDay, .fiveDays:
            let days = self == .oneDay ? 1 : 5
            var seen = 0, current: CivilDate? = nil, i = timestamps.count - 1
            while i >= 0 {
                let d = zone.localDate(timestamps[i])
                if d != current {
                    seen += 1
                    if seen > days { return i + 1 }
                    current = d
                }
                i -= 1
            }
            return 0
        case .oneMonth, .threeMonths:
            let first = lastDate.addingMonths(self == .oneMonth ? -1 : -3)
            var i = timestamps.count - 1
            while i >= 0, zone.localDate(timestamps[i]) > first { i -= 1 }
            return i + 1
        }
    }
}

/// The live engine in process, on the Sentio store: each accepted bar is written to the store's bars table
/// (one transaction per symbol of a batch) before it is applied; the signal model runs streaming
/// (`SignalEngine`), and the portfolio and trades are the `sentio` signal strategy's backtest over the stored
/// bars (`Backtest.run`, recomputed when a GET needs it after new bars). A restart loads the stored bars of the
/// universe and continues where it stopped.
///
/// Bars, in order of the checks: a symbol outside the universe is `unknown-symbol`; a bar breaking the OHLCV
/// rules is `invalid-bar`; a bar at or before the symbol's last bar is a `duplicate` when a stored bar of that
/// time has the same values, `conflicting-bar` when it has other values, `late-bar` otherwise.
public final class StoreBackedLive: LiveBackend {
    public let universe: [String]
    public let signalModel: SignalModelConfig
    public let backtest: BacktestConfiguration
    public let names: InstrumentNames
    let database: SentioDatabase
    let zone: ExchangeTimeZone
    private var series: [OHLCVSeries]
    private var index: [String: Int]
    private var engine: SignalEngine
    private var latest: [Signal?]
    private var cachedResult: (version: Int, result: BacktestResult)?
    private var version = 0

    /// Opens the engine on `database`, loading the universe's stored bars.
    /// - Throws: `StoreError`, `SignalConfigError`, or `SignalInputError` for a stored bar the model rejects.
    public init(
        database: SentioDatabase, universe: [String], signalModel: SignalModelConfig = SignalModelConfig(),
        backtest: BacktestConfiguration = BacktestConfiguration(), names: InstrumentNames = InstrumentNames(),
        exchangeTimeZone: ExchangeTimeZone = .newYork
    ) throws {
        self.database = database
        self.universe = universe
        self.signalModel = signalModel
        self.backtest = backtest
        self.names = names
        self.zone = exchangeTimeZone
        engine = try SignalEngine(config: signalModel)
        let stored = Set(try database.instruments().map(\.symbol))
        let loaded = try database.loadSeries(symbols: universe.filter { stored.contains($0) })
        var bySymbol: [String: OHLCVSeries] = [:]
        for s in loaded { bySymbol[s.symbol] = s }
        series = universe.map { bySymbol[$0] ?? OHLCVSeries(symbol: $0) }
        index = [:]
        latest = Array(repeating: nil, count: universe.count)
        for (i, symbol) in universe.enumerated() {
            index[symbol] = i
            _ = engine.register(symbol: symbol)
            let s = series[i]
            for k in 0..<s.count { latest[i] = try engine.update(symbolIndex: i, bar: s[bar: k]) }
        }
    }

    /// Bars stored for the universe.
    public var barCount: Int { series.reduce(0) { $0 + $1.count } }

    /// The last bar time of `symbol`, or `nil`.
    public func lastTimestamp(_ symbol: String) -> Int64? { index[symbol].flatMap { series[$0].timestamps.last } }

    public func ingest(_ bars: [FeedBar]) throws -> IngestResult {
        var outcomes: [BarOutcome] = []
        outcomes.reserveCapacity(bars.count)
        // Classify against the stored bars plus the batch's accepted ones; write; then apply.
        var pending: [Int: OHLCVSeries] = [:]
        var order: [Int] = []
        for fb in bars {
            guard let i = index[fb.symbol] else {
                outcomes.append(.rejected(reason: "unknown-symbol", message: "\(fb.symbol) is not in the session's universe (\(universe.joined(separator: ",")))"))
                continue
            }
            let b = fb.bar
            if let problem = Self.barProblem(b) {
                outcomes.append(.rejected(reason: "invalid-bar", message: problem))
                continue
            }
            let batch = pending[i]
            let lastTime = batch?.timestamps.last ?? series[i].timestamps.last
            if let lastTime, b.timestamp <= lastTime {
                let existing = batch.flatMap { Self.bar(in: $0, at: b.timestamp) } ?? Self.bar(in: series[i], at: b.timestamp)
                if let existing {
                    outcomes.append(existing == b ? .duplicate : .rejected(
                        reason: "conflicting-bar",
                        message: "a different \(fb.symbol) bar of \(iso8601(epochSeconds: b.timestamp)) was already accepted (open \(existing.open), high \(existing.high), low \(existing.low), close \(existing.close), volume \(existing.volume))"))
                } else {
                    outcomes.append(.rejected(reason: "late-bar", message: "older than \(fb.symbol)'s last bar \(iso8601(epochSeconds: lastTime))"))
                }
                continue
            }
            if pending[i] == nil { pending[i] = OHLCVSeries(symbol: fb.symbol); order.append(i) }
            pending[i]!.append(timestamp: b.timestamp, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume)
            outcomes.append(.accepted)
        }
        // Durable first.
        for i in order {
            try database.importSeries(pending[i]!, sourcePath: "sentio serve", fingerprint: "serve-" + UUID().uuidString)
        }
        var messages: [LiveMessage] = []
        for i in order {
            let p = pending[i]!
            for k in 0..<p.count {
                let b = p[bar: k]
                series[i].append(timestamp: b.timestamp, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume)
                do {
                    let signal = try engine.update(symbolIndex: i, bar: b)
                    latest[i] = signal
                    if !signal.isWarmUp, let message = try? SignalContracts.liveMessage(signal, config: signalModel) {
                        messages.append(message)
                    }
                } catch {
                    // The bar is stored but the model cannot represent it: the signal stays at the previous bar.
                }
            }
        }
        if !order.isEmpty { version += 1 }
        return IngestResult(outcomes: outcomes, messages: messages)
    }

    static func bar(in s: OHLCVSeries, at t: Int64) -> Bar? {
        var lo = 0, hi = s.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if s.timestamps[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo < s.count && s.timestamps[lo] == t ? s[bar: lo] : nil
    }

    /// The OHLCV reader's value rules (finite, prices > 0, high/low enclose open/close, volume ≥ 0).
    static func barProblem(_ b: Bar) -> String? {
        for (field, x) in [("open", b.open), ("high", b.high), ("low", b.low), ("close", b.close), ("volume", b.volume)]
        where !x.isFinite { return "field '\(field)': \(x) is not a finite number" }
        for (field, x) in [("open", b.open), ("high", b.high), ("low", b.low), ("close", b.close)]
        where x <= 0 { return "field '\(field)': price \(x) must be > 0" }
        if b.high < b.low { return "field 'high': high \(b.high) is below low \(b.low)" }
        if b.high < max(b.open, b.close) { return "field 'high': high \(b.high) is below open/close" }
        if b.low > min(b.open, b.close) { return "field 'low': low \(b.low) is above open/close" }
        if b.volume < 0 { return "field 'volume': volume \(b.volume) is negative" }
        return nil
    }

    public func signals() throws -> SignalsResponse {
        try SignalContracts.response(latest.compactMap { $0 }, config: signalModel)
    }

    public func currentMessages() -> [LiveMessage] {
        latest.compactMap { s in s.flatMap { $0.isWarmUp ? nil : try? SignalContracts.liveMessage($0, config: signalModel) } }
    }

    public func symbolDetail(_ symbol: String, timeframe: Timeframe) throws -> SymbolDetail? {
        guard let i = index[symbol], let signal = latest[i], !series[i].isEmpty else { return nil }
        let contract = try SignalContracts.signal(signal, config: signalModel)
        let name = try names.name(of: symbol)
        let s = series[i]
        let start = timeframe.startIndex(s.timestamps, zone: zone)
        var bars: [HistoricalBar] = []
        bars.reserveCapacity(s.count - start)
        for k in start..<s.count {
            let b = s[bar: k]
            bars.append(HistoricalBar(
                timestamp: APITimestamp(epochSeconds: b.timestamp), open: b.open, high: b.high, low: b.low,
                close: b.close, volume: b.volume))
        }
        return SymbolDetail(symbol: symbol, name: name, price: signal.price, signal: contract, historicalData: bars)
    }

    func result() throws -> BacktestResult {
        if let cached = cachedResult, cached.version == version { return cached.result }
        let withBars = series.filter { !$0.isEmpty }
        guard !withBars.isEmpty else {
            throw APIContractError(subject: "portfolio", field: "currentValue", message: "no bar has arrived yet")
        }
        let result = try Backtest(backtest).run(try SignalStrategy.sentio(config: signalModel), on: try Market(withBars))
        cachedResult = (version, result)
        return result
    }

    public func portfolio() throws -> Portfolio {
        try BacktestContracts.portfolio(try result(), exchangeTimeZone: zone)
    }

    public func tradeHistory() throws -> TradeHistory {
        try BacktestContracts.tradeHistory(try result())
    }

    public func finish() throws {
        try database.checkpoint()
    }
}
