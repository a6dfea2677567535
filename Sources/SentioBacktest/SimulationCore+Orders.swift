import SentioCore

/// A working order of the order model (``OrderRequest``) in the simulation core's book.
struct WorkingOrder: Sendable, Equatable {
    var id: Int
    var symbol: Int
    /// The symbol's position in the canonical order (the book is sorted by `(rank, id)`).
    var rank: Int
    var request: OrderRequest
    /// `signal` for the strategy's orders, `stop-loss` / `take-profit` for a bracket's protective orders.
    var reason: ExitReason
    var parentID: Int?
    var ocoGroup: Int?
    /// The step at whose close it was placed.
    var decidedStep: Int
    /// The first step at which it may fill.
    var liveFromStep: Int
    /// It fills at the close of its bar (`cls`, or a market order with close fills), not at the open or inside it.
    var atClose: Bool
    /// The UTC day of the first bar it was live on; `Int64.min` before that bar.
    var day: Int64 = .min
    /// A trailing stop's best price so far (the highest high for a sell, the lowest low for a buy).
    var extreme: Double
    /// A stop-limit whose stop was reached: from step `limitFromStep` on it is a limit order.
    var triggered = false
    var limitFromStep = Int.max
    /// Filled, rejected, cancelled or expired during the current step (removed from the book after the phase).
    var done = false

    var detail: OrderDetail {
        OrderDetail(type: request.type, timeInForce: request.timeInForce, quantity: request.quantity,
                    parentID: parentID, ocoGroup: ocoGroup)
    }

    /// A trailing stop's level: `extreme · (1 ∓ p/100)` or `extreme ∓ amount` (− for a sell).
    var trailingLevel: Double {
        let sell = request.side == .sell
        switch request.type {
        case .trailingStopPercent(let p): return sell ? extreme * (1 - p / 100) : extreme * (1 + p / 100)
        case .trailingStopAmount(let a): return sell ? extreme - a : extreme + a
        default: return .nan
        }
    }
}

extension SimulationCore {
    // MARK: Placement

    /// Places `request` for symbol `s` at the close of `step` (the decision close is `lastClose[s]`): logs the
    /// placement and either rejects it at once (``OrderRequest/problem(allowShort:)``) or puts it in the book.
    mutating func placeOrder(_ request: OrderRequest, symbol s: Int, step: Int, ocoGroup: Int?,
                             reason: ExitReason = .signal, parentID: Int? = nil, liveFrom: Int? = nil) {
        let id = newOrderID()
        // A bracket's protective orders are not announced as placements (a live session reports them as level
        // orders when they resolve, as the configuration's stop-loss and take-profit exits).
        if logsPlacements && parentID == nil {
            placements.append(OrderPlacement(
                id: id, symbol: s, side: request.side, isContribution: false, amount: 0, step: step,
                ordersResolvedBefore: orders.count))
        }
        var order = WorkingOrder(
            id: id, symbol: s, rank: canonicalRank[s], request: request, reason: reason, parentID: parentID,
            ocoGroup: ocoGroup, decidedStep: step, liveFromStep: step + 1, atClose: false, extreme: lastClose[s])
        if let problem = request.problem(allowShort: allowShort) {
            orders.append(record(order, step: step, rejection: problem))
            return
        }
        let marketAtClose = fillAtClose && request.type == .market && request.timeInForce != .opg
        order.atClose = request.timeInForce == .cls || marketAtClose
        order.liveFromStep = liveFrom ?? (marketAtClose ? step : step + 1)
        if parentID != nil {
            spawned.append(order)
        } else {
            insertIntoBook(order)
        }
    }

    /// Inserts `order` after every order of a symbol ranked at or before its own (the book stays sorted by
    /// `(rank, id)`, ids growing with time).
    mutating func insertIntoBook(_ order: WorkingOrder) {
        var i = book.count
        while i > 0 && book[i - 1].rank > order.rank { i -= 1 }
        book.insert(order, at: i)
    }

    /// Moves the bracket orders placed during a phase into the book.
    mutating func insertSpawned() {
        for o in spawned { insertIntoBook(o) }
        spawned.removeAll(keepingCapacity: true)
    }

    /// Drops the orders resolved during a phase (keeping the book's capacity).
    mutating func compactBook() {
        book.removeAll { $0.done }
    }

    func record(_ o: WorkingOrder, step: Int, rejection: RejectionReason? = nil, cancellation: CancelReason? = nil) -> OrderRecord {
        OrderRecord(
            id: o.id, symbol: o.symbol, side: o.request.side, reason: o.reason, decidedStep: o.decidedStep,
            resolvedStep: step, rejection: rejection, fillPrice: .nan, shares: 0, commission: 0, detail: o.detail,
            cancellation: cancellation)
    }

    /// Ends book order `i` without a fill.
    mutating func endOrder(_ i: Int, step: Int, rejection: RejectionReason? = nil, cancellation: CancelReason? = nil) {
        book[i].done = true
        orders.append(record(book[i], step: step, rejection: rejection, cancellation: cancellation))
    }

    /// Cancels every working order of symbol `s` (`onlyBrackets`: only a bracket's protective orders).
    mutating func cancelWorkingOrders(symbol s: Int, step: Int, reason: CancelReason, onlyBrackets: Bool = false) {
        for i in book.indices where book[i].symbol == s && !book[i].done && (!onlyBrackets || book[i].parentID != nil) {
            endOrder(i, step: step, cancellation: reason)
        }
        for i in spawned.indices where spawned[i].symbol == s && !spawned[i].done {
            spawned[i].done = true
            orders.append(record(spawned[i], step: step, cancellation: reason))
        }
        spawned.removeAll { $0.done }
    }

    // MARK: The phases of a step

    /// Marks the start of the order's first live bar, and expires a `day` order at the first bar of a later UTC
    /// day; returns whether the order is still working.
    mutating func startBar(_ i: Int) -> Bool {
        let today = floorDivide(currentTime, 86_400)
        if book[i].day == .min {
            book[i].day = today
        } else if book[i].request.timeInForce == .day && today != book[i].day {
            endOrder(i, step: currentStep, cancellation: .dayEnded)
            return false
        }
        return true
    }

    /// The open: sells, then buys, each in canonical symbol order and placement order; what the open satisfies
    /// fills at the open; `ioc` and `opg` orders that did not fill end. Returns whether anything filled.
    mutating func bookAtOpen<B: StepBars>(step: Int, bars: B) -> Bool {
        var filled = false
        for pass in 0..<2 {
            let side: OrderSide = pass == 0 ? .sell : .buy
            var i = 0
            while i < book.count {
                defer { i += 1 }
                let o = book[i]
                guard !o.done, o.request.side == side, !o.atClose, o.liveFromStep <= step, hasBar[o.symbol] else { continue }
                guard startBar(i) else { continue }
                let open = bars.open(o.symbol, cursor[o.symbol])
                if let price = openFill(i, open: open) {
                    filled = execute(i, step: step, price: price, atOpen: true) || filled
                } else if o.request.timeInForce == .ioc {
                    endOrder(i, step: step, cancellation: .immediateOrCancel)
                } else if o.request.timeInForce == .opg {
                    endOrder(i, step: step, cancellation: .notFilledAtOpen)
                }
            }
        }
        compactBook()
        insertSpawned()
        return filled
    }

    /// The reference price at which the open fills book order `i`, or `nil` (a stop-limit the open triggers is
    /// marked triggered).
    mutating func openFill(_ i: Int, open: Double) -> Double? {
        let buy = book[i].request.side == .buy
        switch book[i].request.type {
        case .market:
            return open
        case .limit(let p):
            return (buy ? open <= p : open >= p) ? open : nil
        case .stop(let stop):
            return (buy ? open >= stop : open <= stop) ? open : nil
        case .stopLimit(let stop, let limit):
            if !book[i].triggered {
                guard buy ? open >= stop : open <= stop else { return nil }
                book[i].triggered = true
                book[i].limitFromStep = currentStep
            }
            return (buy ? open <= limit : open >= limit) ? open : nil
        case .trailingStopPercent, .trailingStopAmount:
            let level = book[i].trailingLevel
            return (buy ? open >= level : open <= level) ? open : nil
        }
    }

    /// Inside the bar, symbol by symbol in canonical order: stop-like orders, then limit orders, each in placement
    /// order; trailing stops that did not fire then trail the bar's high (low). Returns whether anything filled.
    mutating func bookIntrabar<B: StepBars>(step: Int, bars: B) -> Bool {
        var filled = false
        var start = 0
        while start < book.count {
            let s = book[start].symbol
            var end = start
            while end < book.count && book[end].symbol == s { end += 1 }
            defer { start = end }
            guard hasBar[s] else { continue }
            let b = cursor[s]
            let open = bars.open(s, b), high = bars.high(s, b), low = bars.low(s, b)
            for pass in 0..<2 {
                for i in start..<end {
                    let o = book[i]
                    guard !o.done, !o.atClose, o.liveFromStep <= step else { continue }
                    let buy = o.request.side == .buy
                    var price: Double?
                    switch (pass, o.request.type) {
                    case (0, .stop(let stop)):
                        if buy ? high >= stop : low <= stop { price = buy ? Swift.max(open, stop) : Swift.min(open, stop) }
                    case (0, .stopLimit(let stop, let limit)) where !o.triggered:
                        if buy ? high >= stop : low <= stop {
                            book[i].triggered = true
                            // Marketable at the trigger: fills there; else the limit waits for the next bar.
                            if buy ? limit > stop : limit < stop {
                                price = buy ? Swift.min(Swift.max(open, stop), limit) : Swift.max(Swift.min(open, stop), limit)
                            } else {
                                book[i].limitFromStep = step + 1
                            }
                        }
                    case (0, .trailingStopPercent), (0, .trailingStopAmount):
                        let level = o.trailingLevel
                        if buy ? high >= level : low <= level {
                            price = buy ? Swift.max(open, level) : Swift.min(open, level)
                        } else {
                            book[i].extreme = buy ? Swift.min(o.extreme, low) : Swift.max(o.extreme, high)
                        }
                    case (1, .limit(let limit)):
                        if buy ? low <= limit : high >= limit { price = buy ? Swift.min(open, limit) : Swift.max(open, limit) }
                    case (1, .stopLimit(_, let limit)) where o.triggered && o.limitFromStep <= step:
                        if buy ? low <= limit : high >= limit { price = buy ? Swift.min(open, limit) : Swift.max(open, limit) }
                    default:
                        break
                    }
                    if let price { filled = execute(i, step: step, price: price, atOpen: false) || filled }
                }
            }
        }
        compactBook()
        insertSpawned()
        return filled
    }

    /// The close: orders that fill at the close (`cls`; market orders with close fills) fill at `lastClose`, a
    /// limit only when the close is at or better than it; a `cls` order that does not fill expires.
    mutating func bookAtClose(step: Int) -> Bool {
        var filled = false
        for pass in 0..<2 {
            let side: OrderSide = pass == 0 ? .sell : .buy
            for i in book.indices {
                let o = book[i]
                guard !o.done, o.request.side == side, o.atClose, o.liveFromStep <= step, hasBar[o.symbol] else { continue }
                guard startBar(i) else { continue }
                let close = lastClose[o.symbol]
                var price: Double? = close
                if case .limit(let p) = o.request.type, side == .buy ? close > p : close < p { price = nil }
                if let price {
                    filled = execute(i, step: step, price: price, atOpen: false) || filled
                } else {
                    endOrder(i, step: step, cancellation: o.request.timeInForce == .ioc ? .immediateOrCancel : .notFilledAtClose)
                }
            }
        }
        compactBook()
        insertSpawned()
        return filled
    }

    // MARK: Execution

    /// Fills book order `i` at reference price `price` (before slippage), or rejects it: sizes it, cancels its OCO
    /// siblings, trades, logs it and places its bracket. Returns whether it filled.
    mutating func execute(_ i: Int, step: Int, price: Double, atOpen: Bool) -> Bool {
        let o = book[i]
        let s = o.symbol
        let fractional = configuration.fractionalShares
        book[i].done = true
        switch o.request.side {
        case .buy where shares[s] < 0:
            // Covers (part of) a short position; never more than it (an order does not reverse a position).
            let fillPrice = price * (1 + slippage)
            let held = -shares[s]
            var quantity = quantity(of: o.request.quantity, at: fillPrice, whole: held)
            if !fractional && quantity < held { quantity.round(.down) }
            quantity = Swift.min(quantity, held)
            guard quantity > 0 else {
                orders.append(record(o, step: step, rejection: .zeroSize))
                return false
            }
            cancelSiblings(of: o, step: step)
            coverShort(symbol: s, step: step, quantity: quantity, referencePrice: price, reason: o.reason,
                       decidedStep: o.decidedStep, orderID: o.id, detail: o.detail)
            return true
        case .buy:
            let fill: BuyFill
            // Longs are paid in cash; with short selling allowed, not with the cash the shorts' collateral holds:
            // at most `(equity − margin × gross value) / margin`.
            let cash = allowShort ? Swift.min(self.cash, (markedEquity() - configuration.margin * grossMarketValue()) / configuration.margin) : self.cash
            if case .shares(let n) = o.request.quantity {
                let quantity = fractional ? n : n.rounded(.down)
                let fillPrice = price * (1 + slippage)
                let notional = quantity * fillPrice
                let commission = notional * commissionRate + fee
                guard quantity > 0 else {
                    orders.append(record(o, step: step, rejection: .zeroSize))
                    return false
                }
                guard notional + commission <= cash else {
                    orders.append(record(o, step: step, rejection: .insufficientCash))
                    return false
                }
                fill = BuyFill(fillPrice: fillPrice, quantity: quantity, notional: notional, commission: commission)
            } else {
                let budget: Double
                switch o.request.quantity {
                case .notional(let v): budget = v
                case .percentOfEquity(let p): budget = markedEquity() * p / 100
                case .targetPercent(let p): budget = Swift.max(0, markedEquity() * p / 100 - shares[s] * price)
                default: budget = cash
                }
                switch BuyFill.size(budget: budget, cash: cash, price: price, costs: configuration.costs, fractionalShares: fractional) {
                case .filled(let f): fill = f
                case .rejected(let reason):
                    orders.append(record(o, step: step, rejection: reason))
                    return false
                }
            }
            cancelSiblings(of: o, step: step)
            _ = addLot(symbol: s, step: step, fillPrice: fill.fillPrice, quantity: fill.quantity, notional: fill.notional,
                       commission: fill.commission)
            var filledRecord = record(o, step: step)
            filledRecord.fillPrice = fill.fillPrice
            filledRecord.shares = fill.quantity
            filledRecord.commission = fill.commission
            orders.append(filledRecord)
            placeBracket(of: o, quantity: fill.quantity, step: step, atOpen: atOpen)
            return true
        case .sell where shares[s] <= 0:
            guard allowShort else {
                orders.append(record(o, step: step, rejection: .noOpenPosition))
                return false
            }
            return sellShort(i, step: step, price: price, atOpen: atOpen)
        case .sell:
            let fillPrice = price * (1 - slippage)
            var quantity = quantity(of: o.request.quantity, at: fillPrice, whole: shares[s])
            if !fractional && quantity < shares[s] { quantity.round(.down) }
            quantity = Swift.min(quantity, shares[s])
            guard quantity > 0 else {
                orders.append(record(o, step: step, rejection: .zeroSize))
                return false
            }
            cancelSiblings(of: o, step: step)
            reducePosition(symbol: s, step: step, quantity: quantity, referencePrice: price, reason: o.reason,
                           decidedStep: o.decidedStep, orderID: o.id, detail: o.detail)
            return true
        }
    }

    /// The shares an order's quantity asks for at `fillPrice` when it reduces a position of `whole` shares:
    /// `n`, `notional / fillPrice`, `equity × percent / 100 / fillPrice`, or `whole` for ``OrderQuantity/all``.
    func quantity(of q: OrderQuantity, at fillPrice: Double, whole: Double) -> Double {
        switch q {
        case .shares(let n): n
        case .notional(let v): v / fillPrice
        case .percentOfEquity(let p): markedEquity() * p / 100 / fillPrice
        case .all: whole
        case .targetPercent(let p): Swift.max(0, whole - markedEquity() * p / 100 / fillPrice)
        }
    }

    /// Σ |shares| × last close of the short positions.
    func shortMarketValue() -> Double {
        var v = 0.0
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            if shares[s] < 0 { v -= shares[s] * lastClose[s] }
        }
        return v
    }

    /// Σ |shares| × last close of every position.
    func grossMarketValue() -> Double {
        var v = 0.0
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            if shares[s] != 0 { v += Swift.abs(shares[s]) * lastClose[s] }
        }
        return v
    }

    /// Opens or adds to a short position with book order `i` at reference price `price` (the symbol is flat or
    /// short): sized by the quantity (``OrderQuantity/all``: all the margin available), then checked against the
    /// initial margin (``BacktestConfiguration/margin``). Returns whether it filled.
    mutating func sellShort(_ i: Int, step: Int, price: Double, atOpen: Bool) -> Bool {
        let o = book[i]
        let s = o.symbol
        let margin = configuration.margin
        let fillPrice = price * (1 - slippage)
        let equity = markedEquity()
        // The margin the other positions use, this symbol's short valued at the fill price.
        let gross = grossMarketValue() - Swift.abs(shares[s]) * lastClose[s] + Swift.abs(shares[s]) * fillPrice
        let available = equity - margin * gross
        var quantity: Double
        if case .all = o.request.quantity {
            quantity = (available / margin - fee) / (fillPrice * (1 + commissionRate))
        } else {
            quantity = self.quantity(of: o.request.quantity, at: fillPrice, whole: 0)
        }
        guard quantity != .infinity else {
            orders.append(record(o, step: step, rejection: .quantityOverflow))
            return false
        }
        if !configuration.fractionalShares { quantity.round(.down) }
        guard quantity > 0 else {
            orders.append(record(o, step: step, rejection: available > 0 ? .zeroSize : .insufficientMargin))
            return false
        }
        let proceeds = quantity * fillPrice
        let commission = proceeds * commissionRate + fee
        guard margin * proceeds + commission <= available else {
            orders.append(record(o, step: step, rejection: .insufficientMargin))
            return false
        }
        cancelSiblings(of: o, step: step)
        cash += proceeds - commission
        commissionsPaid += commission
        if shares[s] == 0 { openPosition(symbol: s, step: step) }
        shares[s] -= quantity
        costBasis[s] -= proceeds
        entryPrice[s] = costBasis[s] / shares[s]
        entryCommission[s] += commission
        var filled = record(o, step: step)
        filled.fillPrice = fillPrice
        filled.shares = quantity
        filled.commission = commission
        orders.append(filled)
        placeBracket(of: o, quantity: quantity, step: step, atOpen: atOpen)
        return true
    }

    /// Buys back `quantity` (≤ the short) shares of `s` at `referencePrice` (before slippage), logged as a closed
    /// short trade of `−quantity` shares: `pnl = entry proceeds × q / |shares| − q · fill − entry commissions ×
    /// q / |shares| − exit commission`, its percent of the entry proceeds. Covering is never refused for cash (it
    /// reduces risk): the cash may go below zero only when the equity already has. Closing the whole short cancels
    /// the symbol's bracket orders.
    mutating func coverShort(symbol s: Int, step: Int, quantity: Double, referencePrice: Double, reason: ExitReason,
                             decidedStep: Int, orderID: Int, detail: OrderDetail?) {
        let held = -shares[s]
        let whole = quantity >= held
        let fillPrice = referencePrice * (1 + slippage)
        let cost = quantity * fillPrice
        let commission = cost * commissionRate + fee
        cash -= cost + commission
        commissionsPaid += commission
        let entryProceeds = whole ? -costBasis[s] : -costBasis[s] * quantity / held
        let entryCosts = whole ? entryCommission[s] : entryCommission[s] * quantity / held
        let pnl = entryProceeds - cost - entryCosts - commission
        trades.append(ClosedTrade(
            symbol: symbols[s], symbolIndex: s, entryStep: entryStep[s], exitStep: step, entryBar: entryBar[s],
            exitBar: cursor[s], entryTime: entryTime[s], exitTime: currentTime, entryPrice: entryPrice[s],
            exitPrice: fillPrice, shares: -quantity, pnl: pnl, pnlPercent: pnl / entryProceeds * 100,
            commission: entryCosts + commission, signalType: "SELL", exitReason: reason))
        orders.append(OrderRecord(
            id: orderID, symbol: s, side: .buy, reason: reason, decidedStep: decidedStep, resolvedStep: step,
            rejection: nil, fillPrice: fillPrice, shares: quantity, commission: commission, detail: detail))
        if whole {
            shares[s] = 0
            costBasis[s] = 0
            entryCommission[s] = 0
            openCount -= 1
            if !book.isEmpty || !spawned.isEmpty {
                cancelWorkingOrders(symbol: s, step: step, reason: .positionClosed, onlyBrackets: true)
            }
        } else {
            shares[s] += quantity
            costBasis[s] += entryProceeds
            entryCommission[s] -= entryCosts
        }
    }

    /// The borrow fee for the time since the previous step on the shorts held at its close:
    /// `Σ |shares| × close × borrowRate × Δt / (365 × 86,400 s)`, taken from cash.
    mutating func chargeBorrowFees(time: Int64) {
        guard configuration.borrowRate > 0, previousTime != .min, openCount > 0 else { return }
        let value = shortMarketValue()
        guard value > 0 else { return }
        let fee = value * configuration.borrowRate * Double(time - previousTime) / (365 * 86_400)
        cash -= fee
        borrowFeesPaid += fee
    }

    /// The maintenance-margin rule at a step's close: when `equity ≤ maintenanceMargin × gross value`, closes every
    /// position at its last close (`liquidation`, canonical order). Returns whether it did.
    mutating func liquidateIfBelowMaintenance(step: Int) -> Bool {
        guard markedEquity() <= configuration.maintenanceMargin * grossMarketValue() else { return false }
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            if shares[s] > 0 {
                closePosition(symbol: s, step: step, referencePrice: lastClose[s], reason: .liquidation, decidedStep: step,
                              orderID: newOrderID())
            } else if shares[s] < 0 {
                coverShort(symbol: s, step: step, quantity: -shares[s], referencePrice: lastClose[s], reason: .liquidation,
                           decidedStep: step, orderID: newOrderID(), detail: nil)
            }
        }
        return true
    }

    /// Cancels the other working orders of `o`'s OCO group (`oco`).
    mutating func cancelSiblings(of o: WorkingOrder, step: Int) {
        guard let group = o.ocoGroup else { return }
        for j in book.indices where book[j].ocoGroup == group && !book[j].done && book[j].id != o.id {
            endOrder(j, step: step, cancellation: .oco)
        }
    }

    /// The bracket of filled entry `o`: a stop at its stop-loss and a limit at its take-profit, the other side,
    /// `quantity` shares, good till cancelled, one OCO group; live on this bar after a market fill at the open.
    mutating func placeBracket(of o: WorkingOrder, quantity: Double, step: Int, atOpen: Bool) {
        guard o.request.stopLoss != nil || o.request.takeProfit != nil else { return }
        let side: OrderSide = o.request.side == .buy ? .sell : .buy
        let liveFrom = atOpen && o.request.type == .market ? step : step + 1
        let group = o.request.stopLoss != nil && o.request.takeProfit != nil ? nextOrderID + 1 : nil
        if let stop = o.request.stopLoss {
            placeOrder(OrderRequest(side: side, type: .stop(stop), quantity: .shares(quantity), timeInForce: .gtc),
                       symbol: o.symbol, step: step, ocoGroup: group, reason: .stopLoss, parentID: o.id, liveFrom: liveFrom)
        }
        if let target = o.request.takeProfit {
            placeOrder(OrderRequest(side: side, type: .limit(target), quantity: .shares(quantity), timeInForce: .gtc),
                       symbol: o.symbol, step: step, ocoGroup: group, reason: .takeProfit, parentID: o.id, liveFrom: liveFrom)
        }
    }

    /// Sells `quantity` (≤ the position) of `s` at `referencePrice` (before slippage): the whole position through
    /// ``closePosition(symbol:step:referencePrice:reason:decidedStep:orderID:detail:)``, else a part of it, logged as a
    /// closed trade of `q = quantity` shares that takes the fraction `q / shares` of the position's cost basis and
    /// entry commissions: `pnl = q · fill − basis · q / shares − entry commissions · q / shares − exit commission`.
    mutating func reducePosition(symbol s: Int, step: Int, quantity: Double, referencePrice: Double, reason: ExitReason,
                                 decidedStep: Int, orderID: Int, detail: OrderDetail?) {
        if quantity >= shares[s] {
            closePosition(symbol: s, step: step, referencePrice: referencePrice, reason: reason, decidedStep: decidedStep,
                          orderID: orderID, detail: detail)
            return
        }
        let fillPrice = referencePrice * (1 - slippage)
        let proceeds = quantity * fillPrice
        let commission = proceeds * commissionRate + fee
        cash += proceeds - commission
        commissionsPaid += commission
        let basis = costBasis[s] * quantity / shares[s], entryCosts = entryCommission[s] * quantity / shares[s]
        let pnl = proceeds - basis - entryCosts - commission
        trades.append(ClosedTrade(
            symbol: symbols[s], symbolIndex: s, entryStep: entryStep[s], exitStep: step, entryBar: entryBar[s],
            exitBar: cursor[s], entryTime: entryTime[s], exitTime: currentTime, entryPrice: entryPrice[s],
            exitPrice: fillPrice, shares: quantity, pnl: pnl, pnlPercent: pnl / basis * 100,
            commission: entryCosts + commission, signalType: "BUY", exitReason: reason))
        orders.append(OrderRecord(
            id: orderID, symbol: s, side: .sell, reason: reason, decidedStep: decidedStep, resolvedStep: step,
            rejection: nil, fillPrice: fillPrice, shares: quantity, commission: commission, detail: detail))
        shares[s] -= quantity
        costBasis[s] -= basis
        entryCommission[s] -= entryCosts
    }

    /// The records of the book's orders at the end of the data (`lastStep`): an order that was live on a bar
    /// expires (`end-of-data`), one that never had a bar to be live on is rejected `no-bar-for-symbol` (as a
    /// built-in decision's pending order).
    func bookEndRecords(lastStep: Int) -> [OrderRecord] {
        book.filter { !$0.done }.map {
            $0.day == .min ? record($0, step: lastStep, rejection: .noBarForSymbol) : record($0, step: lastStep, cancellation: .endOfData)
        }
    }
}

// MARK: Snapshot form

/// An ``OrderDetail`` in a ``SteppedSimulationState``: prices and amounts as IEEE-754 bit patterns.
struct OrderDetailState: Sendable, Codable, Equatable {
    var type: String, first: UInt64, second: UInt64
    var timeInForce: TimeInForce
    var quantity: String, amount: UInt64
    var parentID: Int?, ocoGroup: Int?

    init(_ d: OrderDetail) {
        type = d.type.name
        switch d.type {
        case .market: (first, second) = (0, 0)
        case .limit(let p), .stop(let p), .trailingStopPercent(let p), .trailingStopAmount(let p): (first, second) = (p.bitPattern, 0)
        case .stopLimit(let s, let l): (first, second) = (s.bitPattern, l.bitPattern)
        }
        timeInForce = d.timeInForce
        quantity = d.quantity.kind
        switch d.quantity {
        case .shares(let x), .notional(let x), .percentOfEquity(let x), .targetPercent(let x): amount = x.bitPattern
        case .all: amount = 0
        }
        parentID = d.parentID
        ocoGroup = d.ocoGroup
    }

    func detail() throws -> OrderDetail {
        let a = Double(bitPattern: first), b = Double(bitPattern: second), x = Double(bitPattern: amount)
        let t: OrderType
        switch type {
        case "market": t = .market
        case "limit": t = .limit(a)
        case "stop": t = .stop(a)
        case "stop-limit": t = .stopLimit(stop: a, limit: b)
        case "trailing-stop-percent": t = .trailingStopPercent(a)
        case "trailing-stop-amount": t = .trailingStopAmount(a)
        default: throw BacktestError("unknown order type \(type) in the simulation state")
        }
        let q: OrderQuantity
        switch quantity {
        case "shares": q = .shares(x)
        case "notional": q = .notional(x)
        case "percent": q = .percentOfEquity(x)
        case "all": q = .all
        case "target-percent": q = .targetPercent(x)
        default: throw BacktestError("unknown order quantity \(quantity) in the simulation state")
        }
        return OrderDetail(type: t, timeInForce: timeInForce, quantity: q, parentID: parentID, ocoGroup: ocoGroup)
    }
}

/// A ``WorkingOrder`` in a ``SteppedSimulationState``.
struct WorkingOrderState: Sendable, Codable, Equatable {
    var id: Int, symbol: Int, side: OrderSide, order: OrderDetailState
    var stopLoss: UInt64?, takeProfit: UInt64?
    var reason: ExitReason, decidedStep: Int, liveFromStep: Int, atClose: Bool, day: Int64, extreme: UInt64
    var triggered: Bool, limitFromStep: Int

    init(_ o: WorkingOrder) {
        id = o.id
        symbol = o.symbol
        side = o.request.side
        order = OrderDetailState(o.detail)
        stopLoss = o.request.stopLoss?.bitPattern
        takeProfit = o.request.takeProfit?.bitPattern
        reason = o.reason
        decidedStep = o.decidedStep
        liveFromStep = o.liveFromStep
        atClose = o.atClose
        day = o.day
        extreme = o.extreme.bitPattern
        triggered = o.triggered
        limitFromStep = o.limitFromStep
    }

    func working(rank: Int) throws -> WorkingOrder {
        let d = try order.detail()
        let request = OrderRequest(
            side: side, type: d.type, quantity: d.quantity, timeInForce: d.timeInForce,
            stopLoss: stopLoss.map(Double.init(bitPattern:)), takeProfit: takeProfit.map(Double.init(bitPattern:)))
        return WorkingOrder(
            id: id, symbol: symbol, rank: rank, request: request, reason: reason, parentID: d.parentID, ocoGroup: d.ocoGroup,
            decidedStep: decidedStep, liveFromStep: liveFromStep, atClose: atClose, day: day,
            extreme: Double(bitPattern: extreme), triggered: triggered, limitFromStep: limitFromStep)
    }
}
