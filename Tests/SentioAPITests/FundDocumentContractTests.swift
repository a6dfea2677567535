import SentioContractDecoders
import Foundation
import SentioAPI
import SentioCore
import SentioFunds
import SentioTestSupport
import Testing

/// The payment-status rule written independently of `FundContracts` (from issue 12's wording): a call is
/// settled as of `asOf` when it was paid on or before `asOf`; settled on or before its due date → PAID,
/// after it → LATE; not settled and `asOf` on or before the due date (or no due date) → PENDING, after it →
/// OVERDUE.
private func expectedStatus(due: CivilDate?, paid: CivilDate?, asOf: CivilDate) -> String {
    if let paid, paid <= asOf {
        guard let due else { return "PAID" }
        return paid <= due ? "PAID" : "LATE"
    }
    guard let due else { return "PENDING" }
    return asOf <= due ? "PENDING" : "OVERDUE"
}

/// `100 × part / whole` rounded half up to hundredths, trailing zeros dropped, from integer cents.
private func expectedPercent(partCents: Int, wholeCents: Int) -> String {
    let hundredths = (2 * partCents * 10_000 + wholeCents) / (2 * wholeCents)  // round half up
    let whole = hundredths / 100, fraction = hundredths % 100
    if fraction == 0 { return "\(whole)%" }
    if fraction % 10 == 0 { return "\(whole).\(fraction / 10)%" }
    return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)%"
}

@Suite("Fund documents and crypto holdings (issue 12)")
struct FundDocumentContractTests {
    @Test("payment status over 20,000 random (due, paid, asOf) triples, through the events file and FundMetrics")
    func paymentStatusProperty() throws {
        var rng = SplitMix64(seed: 0x12_0301)
        var seen: [String: Int] = [:]
        for k in 0..<20_000 {
            let call = CivilDate(year: 2021, month: 1, day: 1)!.daysSinceEpoch + Int.random(in: 0...30, using: &rng)
            let due: Int? = Int.random(in: 0..<6, using: &rng) == 0 ? nil : call + Int.random(in: 0...30, using: &rng)
            // 0: paid with a payment date, 1: paid, no payment date (paid at the call date), 2: unpaid.
            let kind = Int.random(in: 0..<3, using: &rng)
            let paid: Int? = kind == 0 ? call + Int.random(in: 0...60, using: &rng) : kind == 1 ? call : nil
            let asOf = call + Int.random(in: 0...70, using: &rng)
            let status = kind == 2 ? ["PENDING", "LATE", "OVERDUE"][Int.random(in: 0..<3, using: &rng)] : (kind == 1 && Bool.random(using: &rng) ? "PAID" : "")
            func day(_ n: Int?) -> String { n.map { CivilDate(daysSinceEpoch: $0).description } ?? "" }
            let text = "fund_id,date,type,amount,due_date,status,payment_date\nF,2020-12-01,commitment,1000,,,\n"
                + "F,\(day(call)),call,50,\(day(due)),\(status),\(kind == 0 ? day(paid) : "")\n"
            let events = try FundEventFile(text: text, file: "e.csv")
            let metrics = FundMetrics(id: "F", events: events.eventsByFund["F"]!, asOf: CivilDate(daysSinceEpoch: asOf))
            let document = try #require(FundContracts.documents(metrics).first)
            let expected = expectedStatus(due: due.map(CivilDate.init(daysSinceEpoch:)), paid: paid.map(CivilDate.init(daysSinceEpoch:)),
                asOf: CivilDate(daysSinceEpoch: asOf))
            #expect(document.paymentStatus?.rawValue == expected, "case \(k): \(text) as of \(day(asOf))")
            // The document agrees with the figures: PAID/LATE exactly when the call is in paid-in.
            #expect((expected == "PAID" || expected == "LATE") == (metrics.paidIn == 50), "case \(k)")
            #expect(metrics.activeCapitalCalls == (metrics.paidIn == 50 ? 0 : 1), "case \(k)")
            // The rule on its own, from the dates.
            let direct = FundContracts.paymentStatus(isPaid: kind != 2, callDate: CivilDate(daysSinceEpoch: call),
                dueDate: due.map(CivilDate.init(daysSinceEpoch:)), paymentDate: paid.map(CivilDate.init(daysSinceEpoch:)),
                asOf: CivilDate(daysSinceEpoch: asOf))
            #expect(direct.rawValue == expected, "case \(k)")
            seen[expected, default: 0] += 1
        }
        #expect(seen.count == 4 && seen.values.allSatisfy { $0 > 1000 }, "\(seen)")
    }

    @Test("call documents: title, number, amount, url and percentage of commitment (2,000 random funds)")
    func callDocuments() throws {
        var rng = SplitMix64(seed: 0x12_0302)
        for k in 0..<2000 {
            let commitmentCents = Int.random(in: 100_000...5_000_000_000, using: &rng)
            var rows = "fund_id,date,type,amount,url\nF,2020-01-01,commitment,\(Decimal(commitmentCents) / 100),\n"
            var amounts: [Int] = [], urls: [String?] = []
            for n in 0..<Int.random(in: 1...8, using: &rng) {
                let cents = Int.random(in: 1...(commitmentCents / 4), using: &rng)
                let url: String? = Bool.random(using: &rng) ? "https://docs.example.com/F/call-\(n + 1).pdf" : nil
                amounts.append(cents)
                urls.append(url)
                rows += "F,2020-02-\(String(format: "%02d", n + 1)),call,\(Decimal(cents) / 100),\(url ?? "")\n"
            }
            let events = try FundEventFile(text: rows, file: "e.csv")
            let documents = FundContracts.documents(FundMetrics(id: "F", events: events.eventsByFund["F"]!))
            #expect(documents.count == amounts.count)
            for (n, doc) in documents.enumerated() {
                #expect(doc.type == .capitalCall && doc.title == "Capital Call #\(n + 1)" && doc.parsedData["callNumber"] == "\(n + 1)")
                #expect(doc.callAmount == Double("\(Decimal(amounts[n]) / 100)") && doc.url == urls[n], "fund \(k) call \(n + 1)")
                #expect(doc.parsedData["percentage"] == expectedPercent(partCents: amounts[n], wholeCents: commitmentCents),
                    "fund \(k) call \(n + 1): \(amounts[n]) of \(commitmentCents) cents")
            }
        }
        #expect(FundContracts.percentText(5, of: 100) == "5%" && FundContracts.percentText(6875, of: 100_000) == "6.88%")
    }

    @Test("NAV reports: ANNUAL_REPORT in December, QUARTERLY_REPORT otherwise, url from the NAV row")
    func reportDocuments() throws {
        let events = try FundEventFile(text: """
            fund_id,date,type,amount,url
            F,2020-01-01,commitment,1000,
            F,2020-01-02,call,100,
            F,2020-03-31,nav,110,
            F,2020-11-30,nav,115,
            F,2020-12-31,nav,120,https://docs.example.com/F/annual-2020.pdf

            """, file: "e.csv")
        let documents = FundContracts.documents(FundMetrics(id: "F", events: events.eventsByFund["F"]!)).filter { $0.type != .capitalCall }
        #expect(documents.map(\.type) == [.quarterlyReport, .quarterlyReport, .annualReport])
        #expect(documents.map(\.title) == ["Q1 2020 Quarterly Report", "Q4 2020 Quarterly Report", "Annual Report 2020"])
        #expect(documents.map(\.url) == [nil, nil, "https://docs.example.com/F/annual-2020.pdf"])
        #expect(documents.allSatisfy { $0.callAmount == nil && $0.dueDate == nil && $0.paymentStatus == nil })
    }

    @Test("holdings are valued at the latest close at or before the valuation date (3,000 random cases)")
    func holdingsValuation() throws {
        var rng = SplitMix64(seed: 0x12_0303)
        var errors = 0
        for k in 0..<3000 {
            var series = OHLCVSeries(symbol: "BTCUSD")
            var t = CivilDate(year: 2024, month: 1, day: 1)!.epochSeconds + Int64(Int.random(in: 0...3, using: &rng)) * 86_400
            let intraday = Bool.random(using: &rng)
            for _ in 0..<Int.random(in: 1...30, using: &rng) {
                t += intraday ? Int64(Int.random(in: 1...50_000, using: &rng)) : 86_400 * Int64(Int.random(in: 1...3, using: &rng))
                let close = Double(Int.random(in: 1...10_000_000, using: &rng)) / 100
                series.append(timestamp: t, open: close, high: close, low: close, close: close, volume: 1)
            }
            let valuation = CivilDate(daysSinceEpoch: Int(series.timestamps[0] / 86_400) + Int.random(in: -3...40, using: &rng))
            let amount = Double(Int.random(in: 0...1_000_000, using: &rng)) / 1000
            let inputs = [CryptoHoldingInput(symbol: "btcusd", name: "Bitcoin", amount: amount)]
            // Independent: scan for the last bar dated on or before the valuation date (UTC calendar day).
            let eligible = (0..<series.count).filter { series.timestamps[$0] / 86_400 <= Int64(valuation.daysSinceEpoch) }
            if let last = eligible.last {
                let response = try CryptoContracts.holdings(inputs, series: [series], valuationDate: valuation)
                #expect(response.holdings[0].valueUsd == amount * series.close[last], "case \(k)")
                #expect(response.totalValue == amount * series.close[last])
            } else {
                errors += 1
                do {
                    _ = try CryptoContracts.holdings(inputs, series: [series], valuationDate: valuation)
                    Issue.record("case \(k): valued with no price at or before \(valuation)")
                } catch {
                    #expect(error.description.contains("btcusd") && error.description.contains("no price"), "\(error)")
                }
            }
        }
        #expect(errors > 50)
    }

    @Test("a holding without prices is an error naming the symbol and the file line, never a value of 0")
    func missingPrice() throws {
        let file = try HoldingsFile(text: "symbol,name,amount\nBTCUSD,Bitcoin,1\nSOLUSD,Solana,3\n", file: "h.csv")
        do {
            _ = try CryptoContracts.holdings(of: file, series: EngineFixtures.cryptoMarket(), valuationDate: CivilDate(year: 2024, month: 12, day: 31)!)
            Issue.record("SOLUSD valued without a series")
        } catch {
            #expect(error.description.contains("h.csv line 3 (SOLUSD)") && error.description.contains("no market series for SOLUSD"), "\(error)")
        }
    }
}

/// The real `sentio fund` output decoded with the strict decoders, and compared with golden files.
@Suite("sentio fund contract views (issue 12)")
struct FundCLIContractTests {
    static let sample = ["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv"]
    static let crypto = ["--holdings", "Data/funds/holdings.csv", "--prices", "Data/crypto"]

    @Test("dashboard, funds, fund, documents and crypto decode strictly; golden bytes")
    func views() async throws {
        let dashboard = try await sentioJSON(Self.sample + ["--view", "dashboard"] + Self.crypto)
        try expectShape(Shapes.dashboard, dashboard)
        let decoded = try Strict.decode(StrictDashboard.self, dashboard)
        #expect(decoded.funds.count == 4 && decoded.cryptoHoldings.map(\.symbol) == ["BTCUSD", "ETHUSD"])
        #expect(decoded.portfolioSummary.activeCapitalCalls == 4)
        try Golden.check("cli-dashboard.json", dashboard)

        let funds = try await sentioJSON(Self.sample + ["--view", "funds"])
        try expectShape(.array(Shapes.fund), funds)
        #expect(try Strict.decode([StrictFund].self, funds).map(\.name) == decoded.funds.map(\.name))

        let detail = try await sentioJSON(Self.sample + ["--view", "fund", "--fund", "AEG-VII"])
        try expectShape(Shapes.fundDetail, detail)
        let fund = try Strict.decode(StrictFundDetail.self, detail)
        let calls = fund.documents.filter { $0.type == .CAPITAL_CALL }
        #expect(fund.name == "Aegir Buyout VII" && !calls.isEmpty && calls.allSatisfy { $0.url != nil })
        #expect(calls.contains { $0.paymentStatus == .LATE }, "the sample has calls paid after their due date")
        try Golden.check("cli-fund-detail-AEG-VII.json", detail)

        let documents = try await sentioJSON(Self.sample + ["--view", "documents", "--fund", "AEG-VII"])
        try expectShape(.array(Shapes.document), documents)
        #expect(try Strict.decode([StrictDocument].self, documents).map(\.id) == fund.documents.map(\.id))

        let holdings = try await sentioJSON(Self.sample + ["--view", "crypto"] + Self.crypto)
        try expectShape(Shapes.cryptoHoldings, holdings)
        let valued = try Strict.decode(StrictCryptoHoldingsResponse.self, holdings)
        // Data/crypto's closes of 2024-12-31, the sample's as-of date.
        func lastClose(_ file: String) throws -> Double {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Data/crypto/\(file)"), encoding: .utf8)
            let last = text.split(separator: "\n").last!.split(separator: ",")
            #expect(last[0] == "2024-12-31")
            return Double(last[4])!
        }
        #expect(valued.holdings.map(\.valueUsd) == [1.25 * (try lastClose("BTCUSD.csv")), 10.5 * (try lastClose("ETHUSD.csv"))])
        #expect(valued.totalValue == valued.holdings.map(\.valueUsd).reduce(0, +))
        try Golden.check("cli-crypto-holdings.json", holdings)
    }

    @Test("valuing before the first price is an error naming the symbol (exit 2), not a zero")
    func noPriceYet() async throws {
        let run = try await runSentio(Self.sample + ["--view", "crypto", "--as-of", "2023-12-31"] + Self.crypto)
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains("Data/funds/holdings.csv line 2 (BTCUSD)") && run.stderr.contains("no price of BTCUSD at or before the valuation date 2023-12-31"), "\(run.stderr)")
    }
}

/// `sentio` JSON output of a successful run.
private func sentioJSON(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    let run = try await runSentio(arguments)
    #expect(run.status == 0, "\(arguments): \(run.stderr)", sourceLocation: sourceLocation)
    return run.stdout
}

