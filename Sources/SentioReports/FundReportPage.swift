import SentioCore

/// Everything the fund report shows, in plain values. Built from SentioFunds' report by
/// `FundReportContent(report:events:index:)`, or directly.
public struct FundReportContent: Sendable {
    /// A capital call and its payment status.
    public struct Call: Sendable, Equatable {
        public var id: String
        public var callDate: CivilDate
        public var dueDate: CivilDate?
        public var amount: Double
        /// `PAID`, `PENDING`, `LATE`, `OVERDUE`.
        public var status: String
        public init(id: String, callDate: CivilDate, dueDate: CivilDate?, amount: Double, status: String) {
            self.id = id; self.callDate = callDate; self.dueDate = dueDate; self.amount = amount; self.status = status
        }
    }

    /// Dated values (one chart series).
    public struct DatedSeries: Sendable, Equatable {
        public var dates: [CivilDate]
        public var values: [Double]
        public init(dates: [CivilDate], values: [Double]) {
            precondition(dates.count == values.count, "dates and values differ in length")
            self.dates = dates; self.values = values
        }
        var times: [Int64] { dates.map(\.epochSeconds) }
    }

    public struct Fund: Sendable {
        public var id: String
        public var name: String
        /// Manager, domicile, vintage, as of.
        public var details: String
        public var headline: [Statistic]
        /// PME figures (empty without an index).
        public var pme: [Statistic]
        public var pmeNotes: [String]
        public var nav: DatedSeries
        /// Cumulative paid-in (calls) and cumulative distributions at each cash-flow date.
        public var cumulativeCalls: DatedSeries
        public var cumulativeDistributions: DatedSeries
        /// Multiples recomputed as of each reporting date.
        public var tvpi: DatedSeries
        public var dpi: DatedSeries
        /// Kaplan–Schoar PME as of each reporting date (nil without an index).
        public var ksPME: DatedSeries?
        public var calls: [Call]

        public init(id: String, name: String, details: String, headline: [Statistic], pme: [Statistic], pmeNotes: [String],
                    nav: DatedSeries, cumulativeCalls: DatedSeries, cumulativeDistributions: DatedSeries,
                    tvpi: DatedSeries, dpi: DatedSeries, ksPME: DatedSeries?, calls: [Call]) {
            self.id = id; self.name = name; self.details = details; self.headline = headline; self.pme = pme
            self.pmeNotes = pmeNotes; self.nav = nav; self.cumulativeCalls = cumulativeCalls
            self.cumulativeDistributions = cumulativeDistributions; self.tvpi = tvpi; self.dpi = dpi
            self.ksPME = ksPME; self.calls = calls
        }
    }

    public var title: String
    public var subtitle: String
    public var portfolio: [Statistic]
    public var funds: [Fund]
    /// Conventions and sources (day count, index file).
    public var notes: [String]

    public init(title: String, subtitle: String, portfolio: [Statistic], funds: [Fund], notes: [String]) {
        self.title = title; self.subtitle = subtitle; self.portfolio = portfolio; self.funds = funds; self.notes = notes
    }
}

/// Renders the fund report: portfolio summary on top, then per fund its figures, NAV history, J-curve,
/// multiples over time, PME against the index, and capital calls with status.
public struct FundReportRenderer: Sendable {
    public var maxPointsPerSeries: Int = 1000
    public init() {}

    public func render(_ content: FundReportContent) -> String {
        var page = HTMLPage(title: content.title, subtitle: content.subtitle)
        page.heading("Portfolio", id: "portfolio")
        page.cards(content.portfolio, group: "portfolio")
        for n in content.notes { page.note(n) }

        // One line per fund.
        let keys = ["commitment", "paidIn", "distributions", "nav", "irr", "tvpi", "dpi", "ksPME"]
        let headers = [TableCell.text("Fund"), .text("Name")] + ["Commitment", "Paid-in", "Distributions", "NAV", "IRR", "TVPI", "DPI", "KS-PME"].map { TableCell($0) }
        let rows: [[TableCell]] = content.funds.map { f in
            let all = f.headline + f.pme
            return [.text(f.id), .text(f.name)] + keys.map { key in
                guard let s = all.first(where: { $0.key == key }) else { return TableCell("—") }
                return s.signed ? TableCell(s.text, .signedNumber(s.value ?? 0)) : TableCell(s.text)
            }
        }
        page.table(id: "funds", headers: headers, rows: rows)

        for f in content.funds {
            page.heading("\(f.name) (\(f.id))", id: "fund-\(f.id)")
            page.note(f.details)
            page.cards(f.headline, group: "fund-\(f.id)")

            var nav = TimeSeriesChart(id: "nav-\(f.id)", title: "\(f.name): net asset value",
                                      series: [ChartSeries(name: "NAV", times: f.nav.times, values: f.nav.values, tone: .accent, style: .area)],
                                      valueFormat: .amount)
            nav.height = 260
            nav.includesZero = true
            nav.maxPointsPerSeries = maxPointsPerSeries
            page.chart(nav)

            let flows = cumulativeFlows(calls: f.cumulativeCalls, distributions: f.cumulativeDistributions)
            var jCurve = TimeSeriesChart(id: "jcurve-\(f.id)", title: "\(f.name): cumulative calls and distributions (J-curve)", series: [
                ChartSeries(name: "Net cash flow", times: flows.net.times, values: flows.net.values, tone: .accent, style: .area),
                ChartSeries(name: "Paid-in", times: flows.calls.times, values: flows.calls.values.map { -$0 }, tone: .negative),
                ChartSeries(name: "Distributions", times: flows.distributions.times, values: flows.distributions.values, tone: .positive),
            ], valueFormat: .amount)
            jCurve.height = 280
            jCurve.includesZero = true
            jCurve.maxPointsPerSeries = maxPointsPerSeries
            page.chart(jCurve)
            page.note("Paid-in is drawn below zero (money out of the LP's pocket); net cash flow = distributions − paid-in.")

            var multiples = [
                ChartSeries(name: "TVPI", times: f.tvpi.times, values: f.tvpi.values, tone: .accent),
                ChartSeries(name: "DPI", times: f.dpi.times, values: f.dpi.values, tone: .positive),
            ]
            if let ks = f.ksPME {
                multiples.append(ChartSeries(name: "KS-PME", times: ks.times, values: ks.values, tone: .neutral, style: .dashed))
            }
            var multiplesChart = TimeSeriesChart(id: "multiples-\(f.id)", title: "\(f.name): multiples over time", series: multiples, valueFormat: .multiple)
            multiplesChart.height = 260
            multiplesChart.includesZero = true
            multiplesChart.maxPointsPerSeries = maxPointsPerSeries
            page.chart(multiplesChart)

            if !f.pme.isEmpty {
                page.heading("Against the index", level: 3)
                page.cards(f.pme, group: "pme-\(f.id)")
                for n in f.pmeNotes { page.note(n) }
            }

            page.heading("Capital calls", level: 3)
            let callRows: [[TableCell]] = f.calls.map { c in
                [.text(c.id), .text(c.callDate.description), .text(c.dueDate?.description ?? "—"),
                 TableCell(NumberText.fixed(c.amount, decimals: 2)), TableCell(c.status, .badge(c.status.lowercased()))]
            }
            page.table(id: "calls-\(f.id)", headers: [.text("Call"), .text("Date"), .text("Due"), TableCell("Amount"), .text("Status")], rows: callRows)
        }
        return page.document()
    }

    /// Cumulative paid-in, cumulative distributions and their difference (distributions − paid-in), each on
    /// the union of both series' dates with the last value carried forward (0 before the first), so that
    /// all three lines span the fund's whole history.
    func cumulativeFlows(calls: FundReportContent.DatedSeries, distributions: FundReportContent.DatedSeries)
        -> (calls: FundReportContent.DatedSeries, distributions: FundReportContent.DatedSeries, net: FundReportContent.DatedSeries) {
        let dates = Array(Set(calls.dates).union(distributions.dates)).sorted()
        var i = -1, j = -1
        var paid: [Double] = [], distributed: [Double] = [], net: [Double] = []
        for d in dates {
            while i + 1 < calls.dates.count, calls.dates[i + 1] <= d { i += 1 }
            while j + 1 < distributions.dates.count, distributions.dates[j + 1] <= d { j += 1 }
            paid.append(i < 0 ? 0 : calls.values[i])
            distributed.append(j < 0 ? 0 : distributions.values[j])
            net.append(distributed.last! - paid.last!)
        }
        return (.init(dates: dates, values: paid), .init(dates: dates, values: distributed), .init(dates: dates, values: net))
    }
}
