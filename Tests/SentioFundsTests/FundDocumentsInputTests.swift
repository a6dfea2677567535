import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

/// Issue 12: the events file's `payment_date` and `url` columns, and the holdings file.
@Suite("Fund events: payment_date and url; holdings file")
struct FundDocumentsInputTests {
    static let header = "fund_id,date,type,amount,due_date,status,payment_date,url\n"
    static let start = "F,2020-01-01,commitment,1000,,,,\n"

    /// The error of parsing `rows` after the header and a commitment (row 3 is the first of `rows`).
    func failure(_ rows: String) -> FundInputError? {
        do {
            _ = try FundEventFile(text: Self.header + Self.start + rows, file: "e.csv")
            return nil
        } catch {
            return error
        }
    }

    @Test("payment dates and urls are read; the optional columns may be absent or in any order")
    func reads() throws {
        let file = try FundEventFile(text: Self.header + Self.start + """
            F,2020-02-01,call,100,2020-02-15,,2020-02-10,https://docs.example.com/f/call-1.pdf
            F,2020-03-31,nav,120,,,,HTTPS://Example.com:8443/r?q=1#p%20a
            F,2020-04-01,call,50,2020-04-15,PENDING,,

            """, file: "e.csv")
        let events = file.eventsByFund["F"]!
        #expect(events[1].paymentDate == CivilDate(year: 2020, month: 2, day: 10))
        #expect(events[1].url == "https://docs.example.com/f/call-1.pdf")
        #expect(events[2].url == "HTTPS://Example.com:8443/r?q=1#p%20a" && events[2].paymentDate == nil)
        #expect(events[3].url == nil && events[3].paymentDate == nil)
        let reordered = try FundEventFile(text: "url,amount,type,date,fund_id\n,10,commitment,2020-01-01,G\nhttp://a.b/c,5,call,2020-01-02,G\n", file: "r.csv")
        #expect(reordered.eventsByFund["G"]![1].url == "http://a.b/c")
    }

    @Test("bad payment_date cells are rejected with file, line and field")
    func badPaymentDates() {
        for (cell, words) in [("2020-02-30", "is not a date"), ("02/10/2020", "is not a date"), ("10/02/2020", "is not a date"),
                              ("2020-2-10", "is not a date"), ("20200210", "is not a date"), ("2020-02-10T00:00:00Z", "is not a date")] {
            let error = failure("F,2020-02-01,call,100,2020-02-15,,\(cell),\n")
            #expect(error?.line == 3 && error?.field == "payment_date" && error?.description.contains(words) == true, "\(cell): \(String(describing: error))")
        }
        let early = failure("F,2020-02-01,call,100,2020-02-15,,2020-01-31,\n")
        #expect(early?.line == 3 && early?.field == "payment_date" && early?.message.contains("before the call date") == true)
        let onNAV = failure("F,2020-02-01,call,100,,,,\nF,2020-03-31,nav,100,,,2020-03-31,\n")
        #expect(onNAV?.line == 4 && onNAV?.field == "payment_date")
        for status in ["PENDING", "LATE", "OVERDUE"] {
            let unpaid = failure("F,2020-02-01,call,100,2020-02-15,\(status),2020-02-10,\n")
            #expect(unpaid?.line == 3 && unpaid?.field == "payment_date" && unpaid?.message.contains(status) == true, "\(status)")
        }
        #expect(failure("F,2020-02-01,call,100,2020-02-15,PAID,2020-02-20,\n") == nil, "paid late is a payment, not an error")
    }

    @Test("bad url cells are rejected with file, line and field")
    func badURLs() {
        for cell in ["www.example.com/a.pdf", "ftp://example.com/a", "javascript:alert(1)", "/docs/a.pdf", "https://",
                     "https:///a", "https://exa mple.com", "\"https://example.com/a b\"", "https://example.com/é", "https://example.com/%zz",
                     "https://example.com:port/", "https://-example.com/", "https://example.com/<x>", "mailto:a@example.com"] {
            let error = failure("F,2020-02-01,call,100,,,,\(cell)\n")
            #expect(error?.line == 3 && error?.field == "url", "\(cell) accepted or wrong location: \(String(describing: error))")
        }
        let onDistribution = failure("F,2020-02-01,call,100,,,,\nF,2020-05-01,distribution,10,,,,https://example.com/d.pdf\n")
        #expect(onDistribution?.line == 4 && onDistribution?.field == "url")
        let onCommitment = failure("G,2020-01-01,commitment,5,,,,https://example.com/c.pdf\n")
        #expect(onCommitment?.line == 3 && onCommitment?.field == "url")
        #expect(FundDocumentURL.problem(String(repeating: "a", count: 2040).prefixed("https://x/")) != nil)
        #expect(FundDocumentURL.problem("https://example.com") == nil && FundDocumentURL.problem("http://10.0.0.1:80/x?y=%41") == nil)
    }

    @Test("paid-in as of a date counts a call only once paid (payment date on or before the as-of date)")
    func paidAsOf() throws {
        let events = try FundEventFile(text: Self.header + Self.start + """
            F,2020-02-01,call,100,2020-02-15,,2020-03-10,
            F,2020-02-28,nav,90,,,,
            F,2020-03-31,nav,120,,,,

            """, file: "e.csv").eventsByFund["F"]!
        let before = FundMetrics(id: "F", events: events, asOf: CivilDate(year: 2020, month: 2, day: 10)!)
        #expect(before.paidIn == 0 && before.activeCapitalCalls == 1 && before.capitalCalls[0].status == .pending)
        let overdue = FundMetrics(id: "F", events: events, asOf: CivilDate(year: 2020, month: 2, day: 28)!)
        #expect(overdue.paidIn == 0 && overdue.capitalCalls[0].status == .overdue && overdue.tvpi == nil)
        let after = FundMetrics(id: "F", events: events, asOf: CivilDate(year: 2020, month: 3, day: 31)!)
        #expect(after.paidIn == 100 && after.activeCapitalCalls == 0 && after.capitalCalls[0].status == .paid)
        #expect(after.cashFlows.first?.date == CivilDate(year: 2020, month: 2, day: 1), "the flow stays at the call date")
        let history = FundMetrics.multiplesAtNAVDates(events: events)
        #expect(history.map(\.tvpi) == [nil, 1.2])
    }

    @Test("multiples as of each NAV date equal FundMetrics as of that date with random payment dates (1,500 funds)")
    func multiplesWithPaymentDates() throws {
        var rng = SplitMix64(seed: 0x12_0201)
        let index = IndexSeries(
            dates: (0..<20).map { CivilDate(year: 2009 + $0, month: 6, day: 30)! },
            levels: (0..<20).map { 100 * pow(1.06, Double($0)) + Double($0 % 4) }, file: "index.csv")
        var deferred = 0, points = 0
        for k in 0..<1500 {
            let start = CivilDate(year: 2010, month: 1, day: 1)!.daysSinceEpoch
            var events = [FundEvent(fundID: "F", date: CivilDate(daysSinceEpoch: start), type: .commitment, amount: MoneyAmount(Decimal(100_000)), line: 2)]
            var day = start, calls = 0
            for n in 0..<Int.random(in: 1...40, using: &rng) {
                day += Int.random(in: 0...60, using: &rng)
                let amount = MoneyAmount(Decimal(Int.random(in: 1...500_000, using: &rng)) / 100)
                let kind = Int.random(in: 0..<3, using: &rng)
                if kind == 0 || calls == 0 {
                    calls += 1
                    let lag = Int.random(in: 0...4, using: &rng) == 0 ? nil : Int.random(in: 0...90, using: &rng)
                    let status: CapitalCallStatus? = lag == nil && Bool.random(using: &rng) ? .pending : nil
                    events.append(FundEvent(fundID: "F", date: CivilDate(daysSinceEpoch: day), type: .call, amount: amount,
                        dueDate: CivilDate(daysSinceEpoch: day + 14), status: status,
                        paymentDate: lag.map { CivilDate(daysSinceEpoch: day + $0) }, line: n + 3))
                } else {
                    events.append(FundEvent(fundID: "F", date: CivilDate(daysSinceEpoch: day), type: kind == 1 ? .nav : .distribution,
                        amount: amount, line: n + 3))
                }
            }
            let asOf: CivilDate? = k % 2 == 0 ? nil : CivilDate(daysSinceEpoch: day - Int.random(in: 0...200, using: &rng))
            let withIndex = k % 3 == 0 ? index : nil
            let m = FundMetrics(id: "F", events: events.shuffled(using: &rng), asOf: asOf)
            let history = FundMetrics.multiplesAtNAVDates(events: events, asOf: asOf, index: withIndex)
            #expect(history.map(\.date) == m.navHistory.map(\.date), "fund \(k)")
            for (point, nav) in zip(history, m.navHistory) {
                let then = FundMetrics(id: "F", events: events, asOf: nav.date)
                deferred += events.filter { $0.type == .call && $0.date <= nav.date && ($0.paymentDate ?? $0.date) > nav.date }.count
                #expect(point.tvpi?.bitPattern == then.tvpi?.bitPattern && point.dpi?.bitPattern == then.dpi?.bitPattern, "fund \(k) \(nav.date)")
                if let withIndex {
                    let expected = (try? then.publicMarketEquivalent(index: withIndex, eventsFile: "e.csv")) ?? nil
                    if let a = point.ksPME, let b = expected?.ksPME {
                        #expect(abs(a - b) <= 1e-12 * abs(b), "fund \(k) \(nav.date) KS-PME \(a) vs \(b)")
                    } else {
                        #expect(point.ksPME == nil && expected?.ksPME == nil, "fund \(k) \(nav.date) KS-PME")
                    }
                }
                points += 1
            }
        }
        #expect(points > 5_000 && deferred > 500, "\(points) points, \(deferred) calls paid after a NAV date")
    }

    @Test("holdings file: read in order; bad cells rejected with file, line and field")
    func holdingsFile() throws {
        let file = try HoldingsFile(text: "symbol,name,amount\nBTCUSD,Bitcoin,1.25\nETHUSD,Ether,0\n", file: "h.csv")
        #expect(file.holdings.map(\.symbol) == ["BTCUSD", "ETHUSD"] && file.holdings[0].amount.decimal == Decimal(string: "1.25")!)
        #expect(file.holdings.map(\.line) == [2, 3])
        let reordered = try HoldingsFile(text: "Amount,Symbol,Name\n2,SOLUSD,Solana\n", file: "h.csv")
        #expect(reordered.holdings[0].symbol == "SOLUSD" && reordered.holdings[0].name == "Solana")
        func error(_ rows: String) -> FundInputError? {
            do {
                _ = try HoldingsFile(text: "symbol,name,amount\nBTCUSD,Bitcoin,1\n" + rows, file: "h.csv")
                return nil
            } catch { return error }
        }
        for (row, field) in [("ETHUSD,Ether,-1", "amount"), ("ETHUSD,Ether,abc", "amount"), ("ETHUSD,Ether,nan", "amount"),
                             ("ETHUSD,Ether,", "amount"), (",Ether,1", "symbol"), ("ETH USD,Ether,1", "symbol"),
                             ("btcusd,Bitcoin again,1", "symbol"), ("ETHUSD,,1", "name")] {
            let e = error(row + "\n")
            #expect(e?.line == 3 && e?.field == field && e?.file == "h.csv", "\(row): \(String(describing: e))")
        }
        #expect(error("ETHUSD,Ether\n")?.line == 3)
        #expect(throws: FundInputError.self) { try HoldingsFile(text: "symbol,name,amount\n", file: "h.csv") }
        #expect(throws: FundInputError.self) { try HoldingsFile(text: "symbol,name,amount,price\nA,B,1,2\n", file: "h.csv") }
    }
}

private extension String {
    func prefixed(_ prefix: String) -> String { prefix + self }
}
