import Foundation
import SentioBacktest
import SentioCore
import SentioData
import SentioStore

/// What a paper brokerage did, for one investor (``PaperEvent/userID``) or for everyone (`nil`: quotes and FX),
/// in the order it happened. Emitted only after the change is durable.
public struct PaperEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A symbol's bar: its quote (`close` in USD; `rate` the latest GBPUSD rate, `nil` before the first).
        case quote(symbol: String, time: Int64, close: Double, previousClose: Double?, rate: Double?)
        /// A GBPUSD bar.
        case fxRate(rate: Double, time: Int64)
        /// An order placed: a DCA purchase, or a sale (``PaperBrokerage/closePosition(userID:id:symbol:quantity:percentage:now:)``).
        case orderCreated(StoredPaperOrder)
        case orderFilled(StoredPaperOrder)
        case orderRejected(StoredPaperOrder)
        /// A pending order of a deleted schedule.
        case orderCancelled(StoredPaperOrder)
        /// A position after a fill: `created` when it was flat before; quantity 0 when a sale closed it.
        case position(PaperPosition, created: Bool)
        case cashChanged(cashGBP: Double, rate: Double?)
        /// The investor's free cash (``PaperBrokerage/buyingPowerGBP(_:)``) after a change of the cash or of the
        /// budgets reserved by pending purchases.
        case buyingPowerChanged(buyingPowerGBP: Double, rate: Double?)
        case dcaExecuted(StoredPaperOrder)
        case dcaFailed(scheduleID: String, symbol: String, amountGBP: Double, time: Int64, reason: String)
        /// A deposit, or a withdrawal settled at a bar.
        case transferComplete(StoredPaperTransfer)
        /// A withdrawal the cash no longer covered when it was settled (its `reason` says why).
        case transferFailed(StoredPaperTransfer)
    }

    /// The investor the event belongs to; `nil` for market events (quotes, FX).
    public var userID: String?
    public var kind: Kind
}

/// One holding of a paper account, from its filled orders.
public struct PaperPosition: Sendable, Equatable {
    public var symbol: String
    public var quantity: Double
    /// GBP spent on it: notional plus commission.
    public var costGBP: Double
    /// The last close in USD (`nil` before the symbol's first bar).
    public var lastPriceUSD: Double?
}

/// Why a brokerage operation was refused (the server answers 4xx).
public struct PaperBrokerageError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case invalid, notFound }
    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// The investing app's paper brokerage: investors' GBP cash accounts, deposits, and DCA schedules executed on the
/// live feed's bars with the backtest's DCA rules — one implementation.
///
/// Rules, the same as `backtest --strategy dca --currency GBP --fx FILE` (SentioBacktest's
/// `DollarCostAveragingStrategy`, `InvestorCurrencyMarket`, `BuyFill`):
/// - A schedule is due at a bar of its symbol at or after its start whose week or month
///   (`ContributionPeriod.periodKey`) differs from the period of its last execution: the order is placed at that
///   bar (`order_created`) and filled at the next bar's open (`FillTiming.nextOpen`, the default) or at the same
///   bar's close (`.close`).
/// - The fill converts the USD price at the GBPUSD rate of the fill bar's UTC date, or the last date before it
///   (rates: each day's last `GBPUSD` bar close from the feed, over the `--fx` file's rates), and sizes with
///   `BuyFill.size` (fractional shares, the configuration's slippage, commission and fee).
/// - The order's budget is reserved from the cash when placed: a schedule due without that much free cash fails
///   (`dca_failed` with the reason) and waits for its next period; cash never goes negative.
/// - A sale (``closePosition(userID:id:symbol:quantity:percentage:now:)``, a market order) fills at the next bar of
///   its symbol — at its open (`.nextOpen`) or its close (`.close`) — through `SellFill` (the backtest's exit rule:
///   slippage, commission and fee), converted at that bar's day's rate; the position's cost is reduced in
///   proportion to the shares sold.
/// - A withdrawal (`OUTGOING` transfer) is accepted when it does not exceed the free cash less the withdrawals
///   already pending, and settled after the bars of the next timestamp processed (after their DCA executions):
///   completed if the free cash still covers it, else failed with the reason.
///
/// Each operation writes its changes in one store transaction before its events are returned; bars at or before
/// a symbol's last seen bar are duplicates (a restarted replay catches up without doing anything twice). One task
/// at a time (the server serializes calls).
public final class PaperBrokerage {
    /// Costs and fill timing of the purchases, and the FX pair's symbol.
    public struct Configuration: Sendable {
        public var costs: TradingCosts
        public var fill: FillTiming
        /// The feed symbol of the rates (USD per GBP).
        public var fxSymbol: String
        /// Rates given up front (`--fx FILE` during a replay); feed rates of the same days replace them.
        public var rates: ExchangeRates?

        /// The backtest's DCA defaults (`BacktestRequest`): commission 0.1 %, no fee or slippage, next-open fills.
        public init(costs: TradingCosts = TradingCosts(commissionRate: BacktestRequest.Defaults.commissionRate),
                    fill: FillTiming = .nextOpen, fxSymbol: String = "GBPUSD", rates: ExchangeRates? = nil) {
            self.costs = costs
            self.fill = fill
            self.fxSymbol = fxSymbol
            self.rates = rates
        }
    }

    public let configuration: Configuration
    /// The store the brokerage's rows are written to.
    public let database: SentioDatabase
    private(set) var investors: [String: StoredInvestor] = [:]
    private var transfers: [String: [StoredPaperTransfer]] = [:]
    private var schedules: [String: StoredDCASchedule] = [:]
    /// Schedule ids by symbol, in creation order.
    private var schedulesBySymbol: [String: [String]] = [:]
    private var orders: [String: [StoredPaperOrder]] = [:]
    /// Orders placed, not yet filled or rejected, by symbol.
    private var pending: [String: [StoredPaperOrder]] = [:]
    private var cash: [String: Double] = [:]
    private var reserved: [String: Double] = [:]
    /// Withdrawals waiting for the next bar, in creation order.
    private var pendingWithdrawals: [StoredPaperTransfer] = []
    /// Each schedule's cash as the backtest's DCA account holds it: its placed amounts less what its fills spent
    /// (the backtest deposits each contribution and buys with it; a purchase never spends more than that cash).
    private var pots: [String: Double] = [:]
    private var holdings: [String: [String: PaperPosition]] = [:]
    private(set) var marks: [String: StoredFeedMark] = [:]
    private var rateDays: [Int] = []
    private var rateValues: [Double] = []
    private var sequence: Int64 = 0
    /// The time of the latest bar seen (a schedule without a start begins after it).
    public private(set) var lastBarTime: Int64?

    /// Loads the brokerage stored in `database`.
    /// - Throws: `StoreError`.
    public init(database: SentioDatabase, configuration: Configuration = Configuration()) throws {
        self.database = database
        self.configuration = configuration
        if let r = configuration.rates {
            for (d, x) in zip(r.dates, r.rates) { setRate(day: d.daysSinceEpoch, x) }
        }
        let rows = try database.loadInvesting()
        for i in rows.investors { investors[i.id] = i; cash[i.id] = 0 }
        for f in rows.fx { setRate(day: f.day, f.rate) }
        for m in rows.marks {
            marks[m.symbol] = m
            lastBarTime = max(lastBarTime ?? m.time, m.time)
        }
        for t in rows.transfers { applyTransfer(t); sequence = max(sequence, t.sequence) }
        for s in rows.schedules { remember(s) }
        for o in rows.orders {
            sequence = max(sequence, o.sequence)
            orders[o.userID, default: []].append(o)
            if let id = o.scheduleID { pots[id, default: 0] += o.amountGBP }
            switch o.status {
            case "new":
                pending[o.symbol, default: []].append(o)
                if o.side == "buy" { reserved[o.userID, default: 0] += o.amountGBP }
            case "filled": applyFill(o)
            default: break
            }
        }
        // The balances as the running brokerage had them (the history summed again could round differently).
        for b in rows.balances { cash[b.userID] = b.cashGBP }
    }

    // MARK: Reading

    public func investor(_ id: String) -> StoredInvestor? { investors[id] }
    /// The investor's free cash in GBP (deposits less purchases; reserved budgets of pending orders included).
    public func cashGBP(_ id: String) -> Double { cash[id] ?? 0 }
    /// Cash not reserved by a pending order: what the next order may use.
    public func buyingPowerGBP(_ id: String) -> Double { max(0, (cash[id] ?? 0) - (reserved[id] ?? 0)) }
    /// The latest GBPUSD rate (USD per GBP), `nil` before the first.
    public var latestRate: Double? { rateValues.last }
    public func positions(_ id: String) -> [PaperPosition] {
        (holdings[id] ?? [:]).values.sorted { $0.symbol < $1.symbol }.map { p in
            var p = p
            p.lastPriceUSD = marks[p.symbol]?.close
            return p
        }
    }
    public func orders(_ id: String) -> [StoredPaperOrder] { orders[id] ?? [] }
    public func transfers(_ id: String) -> [StoredPaperTransfer] { transfers[id] ?? [] }
    public func schedules(_ id: String) -> [StoredDCASchedule] {
        schedules.values.filter { $0.userID == id && $0.active }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }
    /// The last bar the brokerage saw of `symbol`.
    public func mark(_ symbol: String) -> StoredFeedMark? { marks[symbol] }

    /// The rate of UTC day `day`, or of the last day before it.
    public func rate(onDay day: Int) -> Double? {
        var lo = 0, hi = rateDays.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rateDays[mid] <= day { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : rateValues[lo - 1]
    }

    // MARK: Operations

    /// Signs an investor in: creates the investor and their `ACTIVE` paper account on the first sign-in (keeping
    /// that sign-in's name); later sign-ins change nothing. Returns the investor and whether it was created.
    /// - Throws: `StoreError`.
    public func signIn(id: String, email: String?, firstName: String?, lastName: String?, now: Int64) throws -> (StoredInvestor, created: Bool) {
        if let known = investors[id] { return (known, false) }
        let investor = StoredInvestor(id: id, email: email, firstName: firstName, lastName: lastName, status: "ACTIVE", createdAt: now)
        var rows = InvestingRows()
        rows.investors = [investor]
        try database.saveInvesting(rows)
        investors[id] = investor
        cash[id] = 0
        return (investor, true)
    }

    /// The free cash a new withdrawal may take: ``buyingPowerGBP(_:)`` less the withdrawals already pending.
    public func withdrawableGBP(_ id: String) -> Double {
        max(0, buyingPowerGBP(id) - pendingWithdrawals.filter { $0.userID == id }.reduce(0) { $0 + $1.amount })
    }

    /// A transfer of `amount` GBP (`currency` must be GBP):
    /// - `INCOMING`, a deposit: completed at once (`transfer_complete`, `cash_changed`);
    /// - `OUTGOING`, a withdrawal: refused at once when it exceeds ``withdrawableGBP(_:)``; otherwise `PENDING` (no
    ///   event yet), settled after the bars of the next timestamp processed (see ``stage(_:)``).
    /// - Throws: ``PaperBrokerageError`` for an unknown investor or an invalid transfer; `StoreError`.
    public func transfer(userID: String, id: String, direction: String, amount: Double, currency: String, now: Int64) throws -> (StoredPaperTransfer, [PaperEvent]) {
        guard investors[userID] != nil else { throw PaperBrokerageError(.notFound, "no investor \(userID)") }
        guard direction == "INCOMING" || direction == "OUTGOING" else {
            throw PaperBrokerageError(.invalid, "direction must be INCOMING (a deposit) or OUTGOING (a withdrawal), got '\(direction)'")
        }
        guard currency == "GBP" else { throw PaperBrokerageError(.invalid, "currency must be GBP, got '\(currency)'") }
        guard amount.isFinite, amount > 0, amount < 1e12 else {
            throw PaperBrokerageError(.invalid, "amount must be a positive number below 10^12, got \(amount)")
        }
        let outgoing = direction == "OUTGOING"
        if outgoing {
            let available = withdrawableGBP(userID)
            guard amount <= available else {
                throw PaperBrokerageError(.invalid, "insufficient cash: \(Self.money(available)) GBP can be withdrawn (cash not reserved by pending orders, less pending withdrawals), \(Self.money(amount)) GBP requested")
            }
        }
        let t = StoredPaperTransfer(id: id, userID: userID, direction: direction, amount: amount, currency: currency,
                                    status: outgoing ? "PENDING" : "COMPLETE", createdAt: now, sequence: sequence + 1,
                                    resolvedAt: outgoing ? nil : now)
        var rows = InvestingRows()
        rows.transfers = [t]
        if !outgoing { rows.balances = [StoredCashBalance(userID: userID, cashGBP: (cash[userID] ?? 0) + amount)] }
        try database.saveInvesting(rows)
        sequence += 1
        applyTransfer(t)
        guard !outgoing else { return (t, []) }
        return (t, [PaperEvent(userID: userID, kind: .transferComplete(t)),
                    PaperEvent(userID: userID, kind: .cashChanged(cashGBP: cash[userID] ?? 0, rate: latestRate)),
                    powerChanged(userID, rate: latestRate)])
    }

    /// Places a market sale of the investor's `symbol` shares (Alpaca's close position): `quantity` shares, or
    /// `percentage` % of the position, or (both `nil`) the whole position as it is at the fill. It fills at the
    /// next bar of `symbol` (see the type's rules); returns the order (`new`) and its `order_created` event.
    /// - Throws: ``PaperBrokerageError``: `.notFound` without a position in `symbol`; `.invalid` for both or an
    ///   invalid `quantity`/`percentage`, or more shares than the position holds beyond the sales already pending;
    ///   `StoreError`.
    public func closePosition(userID: String, id: String, symbol: String, quantity: Double?, percentage: Double?, now: Int64) throws -> (StoredPaperOrder, [PaperEvent]) {
        guard investors[userID] != nil else { throw PaperBrokerageError(.notFound, "no investor \(userID)") }
        guard let held = holdings[userID]?[symbol]?.quantity, held > 0 else {
            throw PaperBrokerageError(.notFound, "no position in \(symbol)")
        }
        if quantity != nil && percentage != nil { throw PaperBrokerageError(.invalid, "give qty or percentage, not both") }
        let selling = (pending[symbol] ?? []).filter { $0.userID == userID && $0.side == "sell" }
        if selling.contains(where: { $0.requestedQuantity == nil }) {
            throw PaperBrokerageError(.invalid, "a sale of the whole \(symbol) position is already pending")
        }
        let available = held - selling.reduce(0) { $0 + ($1.requestedQuantity ?? 0) }
        var requested: Double?
        if let quantity {
            guard quantity.isFinite, quantity > 0 else { throw PaperBrokerageError(.invalid, "qty must be a positive number of shares, got \(quantity)") }
            requested = quantity
        } else if let percentage {
            guard percentage.isFinite, percentage > 0, percentage <= 100 else {
                throw PaperBrokerageError(.invalid, "percentage must be in (0, 100], got \(percentage)")
            }
            requested = percentage == 100 && selling.isEmpty ? nil : held * percentage / 100
        }
        if let requested, requested > available {
            throw PaperBrokerageError(.invalid, "qty \(Self.shares(requested)) exceeds the \(Self.shares(max(0, available))) \(symbol) shares held beyond the sales already pending")
        }
        let order = StoredPaperOrder(id: id, userID: userID, scheduleID: nil, symbol: symbol, side: "sell", amountGBP: 0, status: "new",
                                     placedAt: now, sequence: sequence + 1, requestedQuantity: requested)
        var rows = InvestingRows()
        rows.orders = [order]
        try database.saveInvesting(rows)
        sequence += 1
        orders[userID, default: []].append(order)
        pending[symbol, default: []].append(order)
        return (order, [PaperEvent(userID: userID, kind: .orderCreated(order))])
    }

    /// Creates a DCA schedule. `start`: `nil` is the next bar (just after the latest bar seen).
    /// - Throws: ``PaperBrokerageError`` for an unknown investor or invalid fields; `StoreError`.
    public func createSchedule(userID: String, id: String, symbol: String, amountGBP: Double, every: String, start: Int64?, now: Int64) throws -> StoredDCASchedule {
        guard investors[userID] != nil else { throw PaperBrokerageError(.notFound, "no investor \(userID)") }
        guard ContributionPeriod(rawValue: every) != nil else {
            throw PaperBrokerageError(.invalid, "every must be week or month, got '\(every)'")
        }
        guard !symbol.isEmpty, symbol == symbol.uppercased(), symbol != configuration.fxSymbol else {
            throw PaperBrokerageError(.invalid, "symbol must be an uppercase ticker (not \(configuration.fxSymbol)), got '\(symbol)'")
        }
        guard amountGBP.isFinite, amountGBP > 0, amountGBP < 1e12 else {
            throw PaperBrokerageError(.invalid, "amount_gbp must be a positive number below 10^12, got \(amountGBP)")
        }
        let s = StoredDCASchedule(id: id, userID: userID, symbol: symbol, amountGBP: amountGBP, every: every,
                                  start: start ?? ((lastBarTime ?? (now - 1)) + 1), lastPeriod: nil, active: true, createdAt: now)
        var rows = InvestingRows()
        rows.schedules = [s]
        try database.saveInvesting(rows)
        remember(s)
        return s
    }

    /// Deactivates a schedule of the investor and cancels its pending order, if any (its reserved cash is freed).
    /// Returns `nil` when the investor has no such active schedule, else the events (`order_cancelled`).
    /// - Throws: `StoreError`.
    public func deleteSchedule(userID: String, id: String) throws -> [PaperEvent]? {
        guard var s = schedules[id], s.userID == userID, s.active else { return nil }
        s.active = false
        var rows = InvestingRows()
        rows.schedules = [s]
        let cancelled = (pending[s.symbol] ?? []).filter { $0.scheduleID == id }.map { o -> StoredPaperOrder in
            var o = o
            o.status = "canceled"
            return o
        }
        rows.orders = cancelled
        try database.saveInvesting(rows)
        schedules[id] = s
        schedulesBySymbol[s.symbol]?.removeAll { $0 == id }
        pending[s.symbol]?.removeAll { $0.scheduleID == id }
        for o in cancelled {
            reserved[o.userID, default: 0] -= o.amountGBP
            replace(o)
        }
        return cancelled.map { PaperEvent(userID: userID, kind: .orderCancelled($0)) } + (cancelled.isEmpty ? [] : [powerChanged(userID, rate: latestRate)])
    }

    /// The changes of one ingestion batch (``stage(_:)``): applied to the brokerage in memory, not yet written.
    public struct StagedBatch: Sendable {
        /// The rows to write, in one transaction (alone, or with the live journal's batch of the same bars).
        public var rows: InvestingRows
        /// The events to publish once `rows` are durable.
        public var events: [PaperEvent]
    }

    /// Processes feed bars: GBPUSD bars set the day's rate; every other symbol's bar fills its pending orders,
    /// publishes its quote and runs its due schedules. Within a batch, bars go in time order, a timestamp's GBPUSD
    /// bar first. Bars at or before a symbol's last seen bar are skipped. The batch's changes are one transaction.
    /// - Throws: `StoreError` (then nothing of the batch counts: the state is reloaded from the store).
    public func ingest(_ bars: [FeedBar]) throws -> [PaperEvent] {
        let staged = stage(bars)
        do {
            try database.saveInvesting(staged.rows)
        } catch {
            try discardStaged()
            throw error
        }
        return staged.events
    }

    /// ``ingest(_:)`` without the write: the batch's changes are applied in memory and returned as rows to write
    /// and events to publish after. The caller writes the rows in one transaction before anything else changes the
    /// brokerage (`sentio serve` writes them in the live journal's commit of the same bars:
    /// `JournaledLiveSession.commit(forceSnapshot:alongside:)`), and calls ``discardStaged()`` if that fails.
    public func stage(_ bars: [FeedBar]) -> StagedBatch {
        let fx = configuration.fxSymbol
        let ordered = bars.enumerated().sorted { a, b in
            let ka = (a.element.bar.timestamp, a.element.symbol == fx ? 0 : 1, a.offset)
            let kb = (b.element.bar.timestamp, b.element.symbol == fx ? 0 : 1, b.offset)
            return ka < kb
        }.map(\.element)
        var batch = Batch()
        var settleAt: Int64?
        for (k, feed) in ordered.enumerated() {
            let b = feed.bar
            // Withdrawals settle after every bar of the timestamp processed (their DCA executions done).
            if let t = settleAt, b.timestamp != t {
                settleWithdrawals(time: t, into: &batch)
                settleAt = nil
            }
            defer { if k == ordered.count - 1, let t = settleAt { settleWithdrawals(time: t, into: &batch) } }
            if let m = marks[feed.symbol], b.timestamp <= m.time { continue }
            guard b.close.isFinite, b.close > 0, b.open.isFinite, b.open > 0 else { continue }
            if !pendingWithdrawals.isEmpty { settleAt = b.timestamp }
            let mark = StoredFeedMark(symbol: feed.symbol, time: b.timestamp, open: b.open, close: b.close, previousClose: marks[feed.symbol]?.close)
            marks[feed.symbol] = mark
            batch.marks[feed.symbol] = mark
            lastBarTime = max(lastBarTime ?? b.timestamp, b.timestamp)
            if feed.symbol == fx {
                let day = CivilDate(epochSeconds: b.timestamp).daysSinceEpoch
                setRate(day: day, b.close)
                batch.fx[day] = StoredFXDay(day: day, rate: b.close)
                batch.events.append(PaperEvent(userID: nil, kind: .fxRate(rate: b.close, time: b.timestamp)))
                continue
            }
            let day = CivilDate(epochSeconds: b.timestamp).daysSinceEpoch
            // Orders placed before this bar: purchases (next-open timing only) at its open, sales at the fill
            // timing's price of this bar.
            if let waiting = pending.removeValue(forKey: feed.symbol) {
                for o in waiting {
                    if o.side == "sell" {
                        sell(o, priceUSD: configuration.fill == .close ? b.close : b.open, time: b.timestamp, day: day, into: &batch)
                    } else {
                        fill(o, priceUSD: b.open, time: b.timestamp, day: day, into: &batch)
                    }
                }
            }
            batch.events.append(PaperEvent(userID: nil, kind: .quote(
                symbol: feed.symbol, time: b.timestamp, close: b.close, previousClose: mark.previousClose, rate: rate(onDay: day))))
            for id in schedulesBySymbol[feed.symbol] ?? [] {
                guard var s = schedules[id], s.active, b.timestamp >= s.start,
                      let period = ContributionPeriod(rawValue: s.every) else { continue }
                let key = period.periodKey(epochSeconds: b.timestamp)
                guard key != s.lastPeriod else { continue }
                s.lastPeriod = key
                schedules[id] = s
                batch.schedules[id] = s
                let free = buyingPowerGBP(s.userID)
                guard free >= s.amountGBP else {
                    batch.events.append(PaperEvent(userID: s.userID, kind: .dcaFailed(
                        scheduleID: s.id, symbol: s.symbol, amountGBP: s.amountGBP, time: b.timestamp,
                        reason: "insufficient cash: \(Self.money(free)) GBP available, \(Self.money(s.amountGBP)) GBP needed")))
                    continue
                }
                sequence += 1
                let order = StoredPaperOrder(
                    id: "\(s.id)-\(key)", userID: s.userID, scheduleID: s.id, symbol: s.symbol, side: "buy",
                    amountGBP: s.amountGBP, status: "new", placedAt: b.timestamp, sequence: sequence)
                reserved[s.userID, default: 0] += s.amountGBP
                pots[s.id, default: 0] += s.amountGBP
                orders[s.userID, default: []].append(order)
                batch.orders[order.id] = order
                batch.events.append(PaperEvent(userID: s.userID, kind: .orderCreated(order)))
                batch.events.append(powerChanged(s.userID, rate: rate(onDay: day)))
                if configuration.fill == .close {
                    fill(order, priceUSD: b.close, time: b.timestamp, day: day, into: &batch)
                } else {
                    pending[s.symbol, default: []].append(order)
                }
            }
        }
        var rows = InvestingRows()
        rows.marks = Array(batch.marks.values)
        rows.fx = Array(batch.fx.values)
        rows.schedules = Array(batch.schedules.values)
        rows.orders = batch.orders.values.sorted { $0.sequence < $1.sequence }
        rows.transfers = batch.transfers.values.sorted { $0.sequence < $1.sequence }
        rows.balances = batch.cashChanged.sorted().map { StoredCashBalance(userID: $0, cashGBP: cash[$0] ?? 0) }
        return StagedBatch(rows: rows, events: batch.events)
    }

    /// After a failed write of a ``stage(_:)``'s rows: back to the state as stored.
    /// - Throws: `StoreError` when the store cannot be read.
    public func discardStaged() throws { try reload() }

    // MARK: Internals

    private struct Batch {
        var marks: [String: StoredFeedMark] = [:]
        var fx: [Int: StoredFXDay] = [:]
        var schedules: [String: StoredDCASchedule] = [:]
        var orders: [String: StoredPaperOrder] = [:]
        var transfers: [String: StoredPaperTransfer] = [:]
        /// Investors whose cash changed.
        var cashChanged: Set<String> = []
        var events: [PaperEvent] = []
    }

    /// Settles the pending withdrawals in order at the bar time `time`: each completes when the investor's free
    /// cash covers it, else fails with the reason.
    private func settleWithdrawals(time: Int64, into batch: inout Batch) {
        let waiting = pendingWithdrawals
        pendingWithdrawals.removeAll()
        for var t in waiting {
            let free = buyingPowerGBP(t.userID)
            t.resolvedAt = time
            if t.amount <= free {
                t.status = "COMPLETE"
                cash[t.userID, default: 0] -= t.amount
                batch.cashChanged.insert(t.userID)
                batch.events.append(PaperEvent(userID: t.userID, kind: .transferComplete(t)))
                batch.events.append(PaperEvent(userID: t.userID, kind: .cashChanged(cashGBP: cash[t.userID] ?? 0, rate: latestRate)))
                batch.events.append(powerChanged(t.userID, rate: latestRate))
            } else {
                t.status = "FAILED"
                t.reason = "insufficient cash: \(Self.money(free)) GBP free at settlement (after the DCA executions of \(CivilDate(epochSeconds: time))), \(Self.money(t.amount)) GBP requested"
                batch.events.append(PaperEvent(userID: t.userID, kind: .transferFailed(t)))
            }
            replace(t)
            batch.transfers[t.id] = t
        }
    }

    /// Fills (or rejects) pending sale `o` at USD reference price `priceUSD` of the bar at `time`, by `SellFill`.
    private func sell(_ o: StoredPaperOrder, priceUSD: Double, time: Int64, day: Int, into batch: inout Batch) {
        var o = o
        o.resolvedAt = time
        o.priceUSD = priceUSD
        let held = holdings[o.userID]?[o.symbol]?.quantity ?? 0
        // The whole position (no quantity asked), or what was asked (never more than is held).
        let quantity = min(o.requestedQuantity ?? held, held)
        var failure: String?
        if !(quantity > 0) {
            failure = "no \(o.symbol) shares left to sell"
        } else if let rate = rate(onDay: day) {
            let sale = SellFill.fill(quantity: quantity, price: priceUSD / rate, costs: configuration.costs)
            if (cash[o.userID] ?? 0) + sale.net < 0 {
                failure = "the sale's commission and fee (\(Self.money(sale.commission)) GBP) exceed its proceeds and the cash"
            } else {
                o.fill(quantity: sale.quantity, priceGBP: sale.fillPrice, commissionGBP: sale.commission, rate: rate)
            }
        } else {
            failure = "no \(configuration.fxSymbol) rate on or before \(CivilDate(daysSinceEpoch: day)) to convert the sale"
        }
        if let failure {
            o.status = "rejected"
            o.reason = failure
            replace(o)
            batch.orders[o.id] = o
            batch.events.append(PaperEvent(userID: o.userID, kind: .orderRejected(o)))
            return
        }
        replace(o)
        batch.orders[o.id] = o
        applyFill(o)
        batch.cashChanged.insert(o.userID)
        var position = holdings[o.userID]?[o.symbol] ?? PaperPosition(symbol: o.symbol, quantity: 0, costGBP: 0, lastPriceUSD: nil)
        position.lastPriceUSD = marks[o.symbol]?.close
        batch.events.append(PaperEvent(userID: o.userID, kind: .orderFilled(o)))
        batch.events.append(PaperEvent(userID: o.userID, kind: .position(position, created: false)))
        batch.events.append(PaperEvent(userID: o.userID, kind: .cashChanged(cashGBP: cash[o.userID] ?? 0, rate: o.fxRate)))
        batch.events.append(powerChanged(o.userID, rate: o.fxRate))
    }

    /// The investor's buying power now, as an event.
    private func powerChanged(_ userID: String, rate: Double?) -> PaperEvent {
        PaperEvent(userID: userID, kind: .buyingPowerChanged(buyingPowerGBP: buyingPowerGBP(userID), rate: rate))
    }

    /// Fills (or rejects) pending order `o` at USD reference price `priceUSD` of the bar at `time`.
    private func fill(_ o: StoredPaperOrder, priceUSD: Double, time: Int64, day: Int, into batch: inout Batch) {
        var o = o
        reserved[o.userID, default: 0] -= o.amountGBP
        o.resolvedAt = time
        o.priceUSD = priceUSD
        var failure: String?
        if let rate = rate(onDay: day) {
            // The investor-currency price as InvestorCurrencyMarket translates it, then the one sizing rule.
            let priceGBP = priceUSD / rate
            // The cash of the purchase: the schedule's pot, as in the backtest's DCA account (never more than the
            // investor's cash).
            let available = min(cash[o.userID] ?? 0, o.scheduleID.flatMap { pots[$0] } ?? .infinity)
            switch BuyFill.size(budget: o.amountGBP, cash: available, price: priceGBP, costs: configuration.costs, fractionalShares: true) {
            case .filled(let f):
                o.fill(quantity: f.quantity, priceGBP: f.fillPrice, commissionGBP: f.commission, rate: rate)
            case .rejected(let reason):
                failure = "the order could not be filled: \(reason.rawValue)"
            }
        } else {
            failure = "no \(configuration.fxSymbol) rate on or before \(CivilDate(daysSinceEpoch: day)) to convert the purchase"
        }
        replace(o)
        batch.orders[o.id] = o
        guard failure == nil else {
            o.status = "rejected"
            o.reason = failure
            replace(o)
            batch.orders[o.id] = o
            batch.events.append(PaperEvent(userID: o.userID, kind: .orderRejected(o)))
            batch.events.append(powerChanged(o.userID, rate: rate(onDay: day)))
            batch.events.append(PaperEvent(userID: o.userID, kind: .dcaFailed(
                scheduleID: o.scheduleID ?? "", symbol: o.symbol, amountGBP: o.amountGBP, time: time, reason: failure!)))
            return
        }
        let created = (holdings[o.userID]?[o.symbol]?.quantity ?? 0) == 0
        applyFill(o)
        batch.cashChanged.insert(o.userID)
        var position = holdings[o.userID]![o.symbol]!
        position.lastPriceUSD = marks[o.symbol]?.close
        batch.events.append(PaperEvent(userID: o.userID, kind: .orderFilled(o)))
        batch.events.append(PaperEvent(userID: o.userID, kind: .position(position, created: created)))
        batch.events.append(PaperEvent(userID: o.userID, kind: .cashChanged(cashGBP: cash[o.userID] ?? 0, rate: o.fxRate)))
        batch.events.append(powerChanged(o.userID, rate: o.fxRate))
        batch.events.append(PaperEvent(userID: o.userID, kind: .dcaExecuted(o)))
    }

    private func replace(_ o: StoredPaperOrder) {
        guard let i = orders[o.userID]?.firstIndex(where: { $0.id == o.id }) else { return }
        orders[o.userID]![i] = o
    }

    private func applyFill(_ o: StoredPaperOrder) {
        if o.side == "sell" {
            // The same proceeds as `SellFill.net`, and the position's cost reduced in proportion to the shares sold.
            cash[o.userID, default: 0] += o.quantity * o.fillPriceGBP - o.commissionGBP
            guard var p = holdings[o.userID]?[o.symbol] else { return }
            let remaining = p.quantity - o.quantity
            if remaining > 0 {
                p.costGBP = p.costGBP * (remaining / p.quantity)
                p.quantity = remaining
                holdings[o.userID]![o.symbol] = p
            } else {
                holdings[o.userID]![o.symbol] = nil
            }
            return
        }
        let spent = o.quantity * o.fillPriceGBP + o.commissionGBP
        cash[o.userID, default: 0] -= spent
        if let id = o.scheduleID { pots[id, default: 0] -= spent }
        var p = holdings[o.userID]?[o.symbol] ?? PaperPosition(symbol: o.symbol, quantity: 0, costGBP: 0, lastPriceUSD: nil)
        p.quantity += o.quantity
        p.costGBP += spent
        holdings[o.userID, default: [:]][o.symbol] = p
    }

    private func applyTransfer(_ t: StoredPaperTransfer) {
        transfers[t.userID, default: []].append(t)
        if t.status == "PENDING" { pendingWithdrawals.append(t) }
        guard t.status == "COMPLETE" else { return }
        cash[t.userID, default: 0] += t.direction == "INCOMING" ? t.amount : -t.amount
    }

    private func replace(_ t: StoredPaperTransfer) {
        guard let i = transfers[t.userID]?.firstIndex(where: { $0.id == t.id }) else { return }
        transfers[t.userID]![i] = t
    }

    private func remember(_ s: StoredDCASchedule) {
        schedules[s.id] = s
        if s.active { schedulesBySymbol[s.symbol, default: []].append(s.id) }
    }

    private func setRate(day: Int, _ rate: Double) {
        if let last = rateDays.last, day > last {
            rateDays.append(day)
            rateValues.append(rate)
            return
        }
        var lo = 0, hi = rateDays.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rateDays[mid] < day { lo = mid + 1 } else { hi = mid }
        }
        if lo < rateDays.count, rateDays[lo] == day { rateValues[lo] = rate } else {
            rateDays.insert(day, at: lo)
            rateValues.insert(rate, at: lo)
        }
    }

    /// After a failed write: the state as stored.
    private func reload() throws {
        let fresh = try PaperBrokerage(database: database, configuration: configuration)
        investors = fresh.investors
        transfers = fresh.transfers
        schedules = fresh.schedules
        schedulesBySymbol = fresh.schedulesBySymbol
        orders = fresh.orders
        pending = fresh.pending
        pots = fresh.pots
        cash = fresh.cash
        reserved = fresh.reserved
        pendingWithdrawals = fresh.pendingWithdrawals
        holdings = fresh.holdings
        marks = fresh.marks
        rateDays = fresh.rateDays
        rateValues = fresh.rateValues
        sequence = fresh.sequence
        lastBarTime = fresh.lastBarTime
    }

    static func money(_ x: Double) -> String { String(format: "%.2f", x) }
    static func shares(_ x: Double) -> String { String(format: "%.8f", x) }
}

extension StoredPaperOrder {
    /// Marks the order filled: `quantity` at `priceGBP` (after slippage; in USD `priceGBP × rate`), `commissionGBP`.
    mutating func fill(quantity: Double, priceGBP: Double, commissionGBP: Double, rate: Double) {
        status = "filled"
        self.quantity = quantity
        fillPriceGBP = priceGBP
        fillPriceUSD = priceGBP * rate
        fxRate = rate
        self.commissionGBP = commissionGBP
    }
}
