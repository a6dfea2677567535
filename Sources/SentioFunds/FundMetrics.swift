import Foundation
import SentioCore

/// One reported NAV of a fund.
public struct NAVPoint: Sendable, Hashable {
    /// `<fund>-N<n>`, numbered in date order from 1.
    public var id: String
    public var date: CivilDate
    public var nav: Decimal
    /// The report's link from the events file, when given.
    public var url: String? = nil
}

/// One capital call of a fund.
public struct CapitalCall: Sendable, Hashable {
    /// `<fund>-C<n>`, numbered in date order from 1.
    public var id: String
    public var callDate: CivilDate
    public var dueDate: CivilDate?
    public var amount: Decimal
    /// The status as of the metrics' as-of date: the file's status (PAID when the file gives none), except
    /// that a call whose payment date is after the as-of date was not paid yet then: PENDING, or OVERDUE when
    /// its due date is before the as-of date.
    public var status: CapitalCallStatus
    /// The date the call was paid, when the events give it (on or before the as-of date when `status` is PAID).
    public var paymentDate: CivilDate? = nil
    /// The call notice's link from the events file, when given.
    public var url: String? = nil
}

/// A fund's position and performance as of a date, from its events on or before that date.
///
/// - `paidIn` = Σ calls with status PAID (or no status) whose payment date, when the events give one, is on
///   or before `asOf`. Unpaid calls (PENDING, LATE, OVERDUE, or paid only after `asOf`) are not paid in:
///   they count as active capital calls and stay in `unfunded`. A paid call's flow is dated its call date
///   (the payment date says *whether* it was paid by `asOf`, not when the flow counts).
/// - `unfunded` = commitment − paidIn; `distributions` = Σ distributions; `nav` = the latest NAV on or
///   before `asOf` (0 when none).
/// - DPI = distributions / paidIn, RVPI = NAV / paidIn, TVPI = (distributions + NAV) / paidIn,
///   PIC = paidIn / commitment (ILPA / CFA Institute GIPS definitions); `nil` when the denominator is 0.
/// - IRR = XIRR of paid calls (negative, at their call dates), distributions (positive) and the latest
///   NAV as a final positive flow at its report date. A NAV of 0 is no term of the XNPV, so `xirr` drops it
///   and it changes nothing in the IRR (a 0 NAV dated 2080 used to turn a rate-less fund into −100 %); it
///   still is the latest report (`nav` 0, `lastReportDate` its date) and still dates the PME valuation.
///   Without a certified rate, `irr` is `nil` and `irrError` says why.
public struct FundMetrics: Sendable {
    public var id: String
    public var asOf: CivilDate
    public var commitment: Decimal
    public var paidIn: Decimal
    public var unfunded: Decimal
    public var distributions: Decimal
    public var nav: Decimal
    /// Date of the latest NAV on or before `asOf`.
    public var lastReportDate: CivilDate?
    public var navHistory: [NAVPoint]
    public var capitalCalls: [CapitalCall]
    public var dpi: Double?
    public var rvpi: Double?
    public var tvpi: Double?
    public var pic: Double?
    public var irr: XIRRResult?
    public var irrError: XIRRError?
    /// The flows of the IRR without the NAV: paid calls negative, distributions positive, in date order.
    public var cashFlows: [CashFlow]
    /// The source line of each of `cashFlows`.
    public var cashFlowLines: [Int]
    /// The latest NAV as a flow at its report date, and its source line.
    public var navFlow: (flow: CashFlow, line: Int)?
    /// Calls dated on or before `asOf` whose status is PENDING, LATE or OVERDUE.
    public var activeCapitalCalls: Int { capitalCalls.filter { $0.status.isActive }.count }

    /// Computes the metrics of one fund.
    /// - Parameters:
    ///   - id: the fund id (it prefixes the ids of the calls and NAV points).
    ///   - events: the fund's events (any order); only those dated on or before `asOf` count.
    ///   - asOf: the as-of date; default the fund's last event.
    ///   - dayCount: for the IRR (default Actual/365 Fixed).
    public init(id: String, events: [FundEvent], asOf: CivilDate? = nil, dayCount: DayCount = .actual365Fixed) {
        self.id = id
        let sorted = events.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        let asOf = asOf ?? sorted.last?.date ?? CivilDate(daysSinceEpoch: 0)
        self.asOf = asOf
        var commitment = Decimal(0), paidIn = Decimal(0), distributions = Decimal(0)
        var navHistory: [NAVPoint] = [], calls: [CapitalCall] = []
        var flows: [CashFlow] = [], lines: [Int] = []
        var latestNAV: (flow: CashFlow, line: Int)? = nil
        for e in sorted where e.date <= asOf {
            switch e.type {
            case .commitment:
                commitment += e.amount.decimal
            case .call:
                var status = e.status ?? .paid
                if let paid = e.paymentDate, paid > asOf, !status.isActive {
                    status = e.dueDate.map { $0 < asOf } == true ? .overdue : .pending
                }
                calls.append(CapitalCall(
                    id: "\(id)-C\(Self.ordinal(calls.count + 1))", callDate: e.date, dueDate: e.dueDate,
                    amount: e.amount.decimal, status: status, paymentDate: e.paymentDate, url: e.url))
                if !status.isActive {
                    paidIn += e.amount.decimal
                    flows.append(CashFlow(date: e.date, amount: -e.amount.double))
                    lines.append(e.line)
                }
            case .distribution:
                distributions += e.amount.decimal
                flows.append(CashFlow(date: e.date, amount: e.amount.double))
                lines.append(e.line)
            case .nav:
                navHistory.append(NAVPoint(
                    id: "\(id)-N\(Self.ordinal(navHistory.count + 1))", date: e.date, nav: e.amount.decimal, url: e.url))
                latestNAV = (CashFlow(date: e.date, amount: e.amount.double), e.line)
            }
        }
        let nav = navHistory.last?.nav ?? 0
        self.commitment = commitment
        self.paidIn = paidIn
        self.unfunded = commitment - paidIn
        self.distributions = distributions
        self.nav = nav
        self.lastReportDate = navHistory.last?.date
        self.navHistory = navHistory
        self.capitalCalls = calls
        let paid = paidIn.doubleValue
        self.dpi = paid > 0 ? distributions.doubleValue / paid : nil
        self.rvpi = paid > 0 ? nav.doubleValue / paid : nil
        self.tvpi = paid > 0 ? (distributions + nav).doubleValue / paid : nil
        self.pic = commitment > 0 ? paid / commitment.doubleValue : nil
        self.cashFlows = flows
        self.cashFlowLines = lines
        self.navFlow = latestNAV
        do {
            self.irr = try xirr(flows: flows + [latestNAV?.flow].compactMap { $0 }, dayCount: dayCount)
            self.irrError = nil
        } catch {
            self.irr = nil
            self.irrError = error
        }
    }

    /// The PME measures of this fund against `index`.
    /// - Throws: `FundInputError` naming `eventsFile` and the line of the first flow dated before the
    ///   index's first date.
    public func publicMarketEquivalent(
        index: IndexSeries, eventsFile: String, dayCount: DayCount = .actual365Fixed
    ) throws(FundInputError) -> PMEResult? {
        guard !cashFlows.isEmpty || navFlow != nil else { return nil }
        for (f, line) in zip(cashFlows, cashFlowLines) + [navFlow].compactMap({ $0 }).map({ ($0.flow, $0.line) })
        where index.level(onOrBefore: f.date) == nil {
            throw FundInputError(file: eventsFile, line: line, field: "date",
                message: "\(f.date) is before the first index date \(index.dates[0]) in \(index.file) (line \(index.lines[0]))")
        }
        return SentioFunds.publicMarketEquivalent(flows: cashFlows, nav: navFlow?.flow, dayCount: dayCount) {
            index.level(onOrBefore: $0)!
        }
    }

    /// TVPI, DPI and (with an index) the Kaplan–Schoar PME as of each NAV report date, in one pass.
    ///
    /// Element `k` is what `FundMetrics(id:events:asOf: navHistory[k].date)` and its
    /// ``publicMarketEquivalent(index:eventsFile:dayCount:)`` give — the multiples of every event on or
    /// before that date — without recomputing the fund (and its IRR and PME rates) per date: the events are
    /// sorted once and the sums carried forward, O(n log n) for n events (index levels by binary search).
    /// TVPI and DPI use the same exact decimal sums, so they are equal to the bit. KS-PME is computed as
    /// `(Σ_D aₖ/Iₖ + NAV/I_d) / Σ_C |aₖ|/Iₖ`, which is the definition's `(FV(D) + NAV_T)/FV(C)` with the
    /// common factor `I_T` (T = d, the NAV's date) cancelled: equal to rounding (a few ulps).
    /// A value is `nil` where the metrics' is (no paid-in capital; no paid call for KS-PME; a flow or the
    /// NAV dated before the index's first date).
    /// - Parameters:
    ///   - events: the fund's events, any order; those after `asOf` are ignored.
    ///   - asOf: the as-of date (default the last event's date), as in `init(id:events:asOf:dayCount:)`.
    ///   - index: the public index for KS-PME, or `nil`.
    /// - Returns: one entry per NAV point of `navHistory`, in its order.
    public static func multiplesAtNAVDates(
        events: [FundEvent], asOf: CivilDate? = nil, index: IndexSeries? = nil
    ) -> [(date: CivilDate, tvpi: Double?, dpi: Double?, ksPME: Double?)] {
        let sorted = events.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        let asOf = asOf ?? sorted.last?.date ?? CivilDate(daysSinceEpoch: 0)
        var paidIn = Decimal(0), distributions = Decimal(0), nav = Decimal(0), navAmount = 0.0
        // Σ |calls| / I and Σ distributions / I at the flows' dates; `indexMissing` once a flow predates the index.
        var calledOverIndex = 0.0, distributedOverIndex = 0.0, indexMissing = false
        var out: [(date: CivilDate, tvpi: Double?, dpi: Double?, ksPME: Double?)] = []
        // Paid calls count from their payment date (dated, for KS-PME, at their call date): the calls paid after
        // the day they were made are applied, in payment-date order, on the first day on or after that date.
        let paidLater = sorted.filter { e in
            e.type == .call && !(e.status ?? .paid).isActive && e.paymentDate.map { $0 > e.date } == true
        }.enumerated().sorted { ($0.element.paymentDate!, $0.offset) < ($1.element.paymentDate!, $1.offset) }.map(\.element)
        var nextPaidLater = 0
        func payCall(_ e: FundEvent) {
            paidIn += e.amount.decimal
            if let index {
                if let level = index.level(onOrBefore: e.date) {
                    calledOverIndex += e.amount.double / level
                } else {
                    indexMissing = true
                }
            }
        }
        var i = 0
        while i < sorted.count && sorted[i].date <= asOf {
            let day = sorted[i].date
            var navsToday = 0
            while nextPaidLater < paidLater.count && paidLater[nextPaidLater].paymentDate! <= day {
                payCall(paidLater[nextPaidLater])
                nextPaidLater += 1
            }
            while i < sorted.count && sorted[i].date == day {
                let e = sorted[i]
                i += 1
                switch e.type {
                case .commitment: break
                case .call:
                    guard !(e.status ?? .paid).isActive else { break }
                    if e.paymentDate.map({ $0 > e.date }) != true { payCall(e) }  // else in `paidLater`
                case .distribution:
                    distributions += e.amount.decimal
                    if let index {
                        if let level = index.level(onOrBefore: day) {
                            distributedOverIndex += e.amount.double / level
                        } else {
                            indexMissing = true
                        }
                    }
                case .nav:
                    nav = e.amount.decimal
                    navAmount = e.amount.double
                    navsToday += 1
                }
            }
            guard navsToday > 0 else { continue }
            let paid = paidIn.doubleValue
            let tvpi = paid > 0 ? (distributions + nav).doubleValue / paid : nil
            let dpi = paid > 0 ? distributions.doubleValue / paid : nil
            var ks: Double? = nil
            if let index, !indexMissing, let level = index.level(onOrBefore: day), calledOverIndex > 0 {
                ks = (distributedOverIndex + navAmount / level) / calledOverIndex
            }
            for _ in 0..<navsToday { out.append((day, tvpi, dpi, ks)) }
        }
        return out
    }

    private static func ordinal(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 3 - s.count)) + s
    }
}

/// Totals over several funds.
///
/// Portfolio TVPI = (Σ distributions + Σ NAV) / Σ paid-in; pooled IRR = XIRR of all funds' IRR flows
/// together (each fund's latest NAV as a final flow at its report date); active capital calls = calls
/// dated on or before each fund's as-of date with status PENDING, LATE or OVERDUE.
public struct PortfolioSummary: Sendable {
    public var totalCommitment: Decimal
    public var totalPaidIn: Decimal
    public var totalDistributions: Decimal
    public var totalNav: Decimal
    public var portfolioTvpi: Double?
    public var activeCapitalCalls: Int
    public var pooledIrr: XIRRResult?
    public var pooledIrrError: XIRRError?

    public init(funds: [FundMetrics], dayCount: DayCount = .actual365Fixed) {
        totalCommitment = funds.reduce(0) { $0 + $1.commitment }
        totalPaidIn = funds.reduce(0) { $0 + $1.paidIn }
        totalDistributions = funds.reduce(0) { $0 + $1.distributions }
        totalNav = funds.reduce(0) { $0 + $1.nav }
        portfolioTvpi = totalPaidIn > 0 ? (totalDistributions + totalNav).doubleValue / totalPaidIn.doubleValue : nil
        activeCapitalCalls = funds.reduce(0) { $0 + $1.activeCapitalCalls }
        let pooled = funds.flatMap { $0.cashFlows + [$0.navFlow?.flow].compactMap { $0 } }
        do {
            pooledIrr = try xirr(flows: pooled, dayCount: dayCount)
            pooledIrrError = nil
        } catch {
            pooledIrr = nil
            pooledIrrError = error
        }
    }
}
