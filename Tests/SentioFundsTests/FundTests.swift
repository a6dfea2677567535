import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

/// Two small funds whose numbers are worked out by hand in the tests below.
let handEvents = """
    fund_id,date,type,amount,due_date,status
    F1,2020-01-01,commitment,1000.00,,
    F1,2020-01-01,call,400.00,2020-01-15,PAID
    F1,2021-01-01,call,200.00,,
    F1,2021-01-01,nav,550.00,,
    F1,2021-07-01,call,100.00,2021-07-15,PENDING
    F1,2022-01-01,distribution,300.00,,
    F1,2022-01-01,nav,600.00,,
    F2,2020-01-01,commitment,500,,
    F2,2020-01-01,call,250,,paid
    F2,2021-01-01,call,100,2021-01-20,OVERDUE
    F2,2021-01-01,distribution,100,,
    F2,2022-01-01,nav,250,,
    """

/// The positive root `x` of `a + b x + c x²` (the discount factor 1/(1+r)), for hand checks with yearly flows.
func positiveRoot(_ a: Double, _ b: Double, _ c: Double) -> Double {
    let disc = (b * b - 4 * a * c).squareRoot()
    return [(-b + disc) / (2 * c), (-b - disc) / (2 * c)].filter { $0 > 0 }.max()!
}

@Suite("Fund metrics")
struct FundMetricsTests {
    let file: FundEventFile

    init() throws { file = try FundEventFile(text: handEvents, file: "hand.csv") }

    @Test("hand-checked fund: commitment, paid-in, unfunded, multiples, IRR")
    func handChecked() throws {
        // 30/360 US makes the dates exactly 0, 1 and 2 years apart, so the IRR solves a quadratic.
        let m = FundMetrics(id: "F1", events: file.eventsByFund["F1"]!, dayCount: .thirty360US)
        #expect(m.asOf == date("2022-01-01"))
        #expect(m.commitment == 1000)
        #expect(m.paidIn == 600)  // 400 PAID + 200 without status; the 100 PENDING call is unpaid
        #expect(m.unfunded == 400)
        #expect(m.distributions == 300)
        #expect(m.nav == 600)
        #expect(m.lastReportDate == date("2022-01-01"))
        #expect(m.dpi == 0.5)  // 300 / 600
        #expect(m.rvpi == 1.0)  // 600 / 600
        #expect(m.tvpi == 1.5)  // 900 / 600
        #expect(m.pic == 0.6)  // 600 / 1000
        // -400 - 200x + 900x² = 0 with x = 1/(1+r).
        let x = positiveRoot(-400, -200, 900)
        expectClose(try #require(m.irr).rate, 1 / x - 1, relative: 1e-12)
        #expect(m.navHistory.map(\.id) == ["F1-N001", "F1-N002"])
        #expect(m.navHistory.map(\.nav) == [550, 600])
        #expect(m.capitalCalls.map(\.id) == ["F1-C001", "F1-C002", "F1-C003"])
        #expect(m.capitalCalls.map(\.status) == [.paid, .paid, .pending])
        #expect(m.capitalCalls[0].dueDate == date("2020-01-15"))
        #expect(m.capitalCalls[1].dueDate == nil)
        #expect(m.activeCapitalCalls == 1)
    }

    @Test("as-of date cuts later events")
    func asOf() throws {
        let m = FundMetrics(id: "F1", events: file.eventsByFund["F1"]!, asOf: date("2021-06-30"), dayCount: .thirty360US)
        #expect(m.paidIn == 600 && m.distributions == 0 && m.nav == 550)
        #expect(m.lastReportDate == date("2021-01-01"))
        #expect(m.activeCapitalCalls == 0)  // the PENDING call is dated 2021-07-01
        #expect(m.tvpi == 550.0 / 600)
        // -400 - 200x + 550x = -400 + 350x: x = 400/350.
        expectClose(try #require(m.irr).rate, 350.0 / 400 - 1, relative: 1e-12)
    }

    @Test("portfolio summary: totals, TVPI, pooled IRR, active calls")
    func portfolio() throws {
        let funds = file.fundIDs.map { FundMetrics(id: $0, events: file.eventsByFund[$0]!, dayCount: .thirty360US) }
        let p = PortfolioSummary(funds: funds, dayCount: .thirty360US)
        #expect(p.totalCommitment == 1500)
        #expect(p.totalPaidIn == 850)  // 600 + 250
        #expect(p.totalDistributions == 400)
        #expect(p.totalNav == 850)
        expectClose(try #require(p.portfolioTvpi), 1250.0 / 850, relative: 1e-15)
        #expect(p.activeCapitalCalls == 2)  // F1 PENDING, F2 OVERDUE
        // Pooled by date: -650 at year 0, -200 + 100 = -100 at year 1, 300 + 600 + 250 = 1150 at year 2.
        let x = positiveRoot(-650, -100, 1150)
        expectClose(try #require(p.pooledIrr).rate, 1 / x - 1, relative: 1e-12)
    }

    @Test("money is summed exactly in Decimal")
    func exactMoney() throws {
        let text = """
            fund_id,date,type,amount
            X,2020-01-01,commitment,0.3
            X,2020-01-01,call,0.1
            X,2020-02-01,call,0.2
            X,2021-01-01,distribution,0.1
            X,2021-02-01,distribution,0.2
            """
        let f = try FundEventFile(text: text, file: "x.csv")
        let m = FundMetrics(id: "X", events: f.eventsByFund["X"]!)
        #expect(m.paidIn == Decimal(string: "0.3")!)
        #expect(m.unfunded == 0)
        #expect(m.distributions == m.commitment)
        #expect(m.pic == 1)
        #expect(m.dpi == 1)
    }
}

@Suite("Fund input errors")
struct FundInputTests {
    func error(_ body: String, header: String = "fund_id,date,type,amount,due_date,status") -> FundInputError? {
        do {
            _ = try FundEventFile(text: header + "\n" + body, file: "ev.csv")
            return nil
        } catch { return error }
    }

    @Test("each bad event names file, line and field")
    func eventErrors() throws {
        let start = "F,2020-01-01,commitment,100,,\n"
        let unknown = try #require(error(start + "F,2020-02-01,fee,5,,"))
        #expect(unknown.description == "ev.csv line 3, field 'type': unknown event type 'fee' (expected commitment, call, distribution or nav)")
        let negative = try #require(error(start + "F,2020-02-01,call,-5,,"))
        #expect(negative.line == 3 && negative.field == "amount" && negative.message.contains("negative amount -5"))
        // One number grammar in every reader (DecimalParser): exponents are numbers, hexadecimal is not.
        let badAmount = try #require(error(start + "F,2020-02-01,call,0x10,,"))
        #expect(badAmount.field == "amount" && badAmount.message.contains("'0x10' is not a decimal amount"))
        let badDate = try #require(error(start + "F,2020-02-30,call,5,,"))
        #expect(badDate.description == "ev.csv line 3, field 'date': '2020-02-30' is not a date (expected YYYY-MM-DD)")
        let before = try #require(error(start + "F,2019-12-31,call,5,,"))
        #expect(before.line == 3 && before.field == "date")
        #expect(before.message == "2019-12-31 is before fund 'F''s first event, its commitment on 2020-01-01")
        let navFirst = try #require(error(start + "F,2020-03-31,nav,5,,\nF,2020-04-01,call,5,,"))
        #expect(navFirst.line == 3 && navFirst.field == "type" && navFirst.message.contains("NAV on 2020-03-31 for fund 'F' without any capital call"))
        // Two NAV reports on one date with different amounts: an error naming both (the same amount twice is fine).
        let call = "F,2020-02-01,call,50,,\n"
        let twoNAVs = try #require(error(start + call + "F,2021-01-01,nav,80,,\nF,2021-01-01,nav,60,,"))
        #expect(twoNAVs.line == 5 && twoNAVs.field == "amount", "\(twoNAVs)")
        #expect(twoNAVs.message.contains("a second NAV for fund 'F' on 2021-01-01, 60, differs from the first, 80 (line 4)"), "\(twoNAVs)")
        #expect(error(start + call + "F,2021-01-01,nav,80,,\nF,2021-01-01,nav,80,,") == nil)
        let status = try #require(error(start + "F,2020-02-01,call,5,,MAYBE"))
        #expect(status.field == "status" && status.message.contains("unknown status 'MAYBE'"))
        let statusOnNAV = try #require(error(start + "F,2020-02-01,distribution,5,,PAID"))
        #expect(statusOnNAV.field == "status" && statusOnNAV.line == 3)
        let due = try #require(error(start + "F,2020-02-01,call,5,2020-13-01,"))
        #expect(due.field == "due_date")
        let noCommitment = try #require(error("G,2020-01-01,call,5,,"))
        #expect(noCommitment.line == 2 && noCommitment.message.contains("no commitment"))
        #expect(error("") == FundInputError(file: "ev.csv", line: nil, field: nil, message: "no events after the header"))
        let missing = try #require(error("", header: "fund_id,date,amount"))
        #expect(missing.line == 1 && missing.field == "type" && missing.message.contains("missing column"))
        let extra = try #require(error("", header: "fund_id,date,type,amount,fee"))
        #expect(extra.field == "fee" && extra.message.contains("unknown column"))
        let tooMany = try #require(error(start + "F,2020-02-01,call,5,,,9"))
        #expect(tooMany.line == 3 && tooMany.message.contains("7 cells"))
        // A truncated last row (its amount possibly cut short too) is not read as a row without a due date.
        let truncated = try #require(error(start + "F,2020-02-01,call,93003.7"))
        #expect(truncated.line == 3 && truncated.message == "4 cells but the header has 6 columns")
        let metadata = #expect(throws: FundInputError.self) { try FundMetadataFile(text: "id,name,vintage\nF1,Fund\n", file: "m.csv") }
        #expect(metadata?.line == 2 && metadata?.message == "2 cells but the header has 3 columns")
    }

    @Test("unknown fund in the metadata names the events line")
    func unknownFund() throws {
        let events = try FundEventFile(text: handEvents, file: "ev.csv")
        let meta = try FundMetadataFile(text: "id,name,manager,domicile,vintage\nF1,Fund One,M,US,2020\n", file: "meta.csv")
        #expect(meta.funds["F1"]?.vintage == 2020)
        #expect(throws: FundInputError(file: "ev.csv", line: 9, field: "fund_id", message: "fund 'F2' is not in the metadata file meta.csv")) {
            try events.validate(against: meta)
        }
        #expect(throws: FundInputError.self) { try FundReport(events: events, metadata: meta) }
    }

    @Test("metadata from JSON and from quoted CSV; bad vintage and duplicates rejected")
    func metadata() throws {
        let json = try FundMetadataFile(text: #"[{"id":"F1","name":"One","manager":"M","domicile":"LU","vintage":2019},{"id":"F2"}]"#, file: "m.json")
        #expect(json.funds["F1"] == FundMetadata(id: "F1", name: "One", manager: "M", domicile: "LU", vintage: 2019))
        #expect(json.funds["F2"]?.name == nil)
        let wrapped = try FundMetadataFile(text: #"{"funds":[{"id":"F1"}]}"#, file: "m.json")
        #expect(wrapped.funds.count == 1)
        let csv = try FundMetadataFile(text: "id,name,domicile\nF1,\"One, \"\"the\"\" fund\",\"Delaware, US\"\n", file: "m.csv")
        #expect(csv.funds["F1"]?.name == "One, \"the\" fund" && csv.funds["F1"]?.domicile == "Delaware, US")
        #expect(throws: FundInputError(file: "m.csv", line: 2, field: "vintage", message: "'20x9' is not a year")) {
            try FundMetadataFile(text: "id,vintage\nF1,20x9\n", file: "m.csv")
        }
        #expect(throws: FundInputError.self) { try FundMetadataFile(text: "id\nF1\nF1\n", file: "m.csv") }
        #expect(throws: FundInputError.self) { try FundMetadataFile(text: #"[{"name":"no id"}]"#, file: "m.json") }
    }

    @Test("index: lookup on or before a date; errors name the line")
    func index() throws {
        let index = try IndexSeries(text: "date,close\n2020-01-31,100\n2020-02-29,110\n2020-03-31,90\n", file: "ix.csv")
        #expect(index.level(onOrBefore: date("2020-01-30")) == nil)
        #expect(index.level(onOrBefore: date("2020-01-31")) == 100)
        #expect(index.level(onOrBefore: date("2020-03-30")) == 110)
        #expect(index.level(onOrBefore: date("2030-01-01")) == 90)
        #expect(throws: FundInputError(file: "ix.csv", line: 3, field: "date", message: "2020-01-31 does not come after 2020-01-31: dates must increase")) {
            try IndexSeries(text: "date,close\n2020-01-31,100\n2020-01-31,110\n", file: "ix.csv")
        }
        #expect(throws: FundInputError(file: "ix.csv", line: 3, field: nil, message: "1 cells but the header has 2 columns")) {
            try IndexSeries(text: "close,date\n100,2020-01-31\n110\n", file: "ix.csv")
        }
        #expect(throws: FundInputError(file: "ix.csv", line: 2, field: "close", message: "'-3' is not a positive number")) {
            try IndexSeries(text: "date,close\n2020-01-31,-3\n", file: "ix.csv")
        }
        // F1's first flow (2020-01-01, line 3 of handEvents) is before the index starts.
        let events = try FundEventFile(text: handEvents, file: "ev.csv")
        #expect(throws: FundInputError(file: "ev.csv", line: 3, field: "date",
            message: "2020-01-01 is before the first index date 2020-01-31 in ix.csv (line 2)")) {
            try FundReport(events: events, index: index)
        }
    }

    @Test("cash-flow files for sentio xirr")
    func cashFlowFile() throws {
        let flows = try readCashFlows(text: "date,amount\n2020-01-01,-100.5\n\n2021-01-01,+120\n", file: "f.csv")
        #expect(flows == [CashFlow(date: date("2020-01-01"), amount: -100.5), CashFlow(date: date("2021-01-01"), amount: 120)])
        #expect(throws: FundInputError(file: "f.csv", line: 3, field: "amount",
            message: "'12,5' is not a decimal amount (expected an optional sign, digits, an optional '.' fraction and an optional exponent, as in -1250.50 or 1.5e6)")) {
            try readCashFlows(text: "date,amount\n2020-01-01,-100\n2021-01-01,\"12,5\"\n", file: "f.csv")
        }
    }
}

@Suite("Public market equivalents")
struct PMETests {
    @Test("hand-checked PME with yearly flows")
    func handChecked() throws {
        // -100 at year 0 (index 100), +50 at year 1 (index 120), NAV 80 at year 2 (index 150); 30/360 US.
        let levels = [date("2020-01-01"): 100.0, date("2021-01-01"): 120, date("2022-01-01"): 150]
        let result = publicMarketEquivalent(
            flows: [CashFlow(date: date("2020-01-01"), amount: -100), CashFlow(date: date("2021-01-01"), amount: 50)],
            nav: CashFlow(date: date("2022-01-01"), amount: 80), dayCount: .thirty360US) { levels[$0]! }
        // FV(C) = 100·150/100 = 150, FV(D) = 50·150/120 = 62.5.
        #expect(result.valuationDate == date("2022-01-01"))
        expectClose(try #require(result.ksPME), (62.5 + 80) / 150, relative: 1e-15)  // 0.95
        // Direct Alpha: -150 + 62.5x + 80x² = 0.
        expectClose(try #require(result.directAlpha), 1 / positiveRoot(-150, 62.5, 80) - 1, relative: 1e-12)
        // LN-PME: NAV_LN = 150 - 62.5 = 87.5; -100 + 50x + 87.5x² = 0.
        #expect(result.lnPMENAV == 87.5)
        expectClose(try #require(result.lnPME), 1 / positiveRoot(-100, 50, 87.5) - 1, relative: 1e-12)
        // PME+: λ = (150 - 80) / 62.5 = 1.12; -100 + 56x + 80x² = 0.
        expectClose(try #require(result.pmePlusLambda), 1.12, relative: 1e-15)
        expectClose(try #require(result.pmePlus), 1 / positiveRoot(-100, 56, 80) - 1, relative: 1e-12)
        #expect(result.notes.isEmpty)
    }

    @Test("a flat index makes KS-PME the TVPI and PME+ the IRR")
    func flatIndex() throws {
        let f = flows([("2020-01-01", -100), ("2020-09-15", -40), ("2021-05-01", 60), ("2022-03-01", 30)])
        let nav = CashFlow(date: date("2022-12-31"), amount: 90)
        let result = publicMarketEquivalent(flows: f, nav: nav) { _ in 250 }
        expectClose(try #require(result.ksPME), (60 + 30 + 90) / 140.0, relative: 1e-15)
        // λ = (140 - 90) / 90; with a flat index the index investment earns 0 %: Direct Alpha = IRR.
        let irr = try xirr(flows: f + [nav]).rate
        expectClose(try #require(result.directAlpha), irr, relative: 1e-12)
        expectClose(try #require(result.pmePlusLambda), 50.0 / 90, relative: 1e-15)
        // LN NAV = 140 - 90 = 50: the fund's flows with final value 50 instead of 90.
        #expect(result.lnPMENAV == 50)
    }

    @Test("agrees with pyxirr.pe (KS-PME, λ, LN NAV) and pyxirr.xirr on its re-scaled flows")
    func pyxirrFixtures() throws {
        var cases: [Int: [(date: CivilDate, amount: Double, index: Double)]] = [:]
        for row in try loadTextRows("funds/pme_flows.csv") {
            cases[Int(row["case_id"]!)!, default: []].append((date(row["date"]!), Double(row["amount"]!)!, Double(row["index"]!)!))
        }
        let results = try loadTextRows("funds/pme_results.csv")
        #expect(results.count == 40)
        var rateChecks = 0
        for row in results {
            let rows = cases[Int(row["case_id"]!)!]!
            let levels = Dictionary(uniqueKeysWithValues: rows.map { ($0.date, $0.index) })
            let navAmount = Double(row["nav"]!)!
            // The last row is the valuation date T (amount 0); the NAV is at T.
            let f = rows.dropLast().map { CashFlow(date: $0.date, amount: $0.amount) }
            let result = publicMarketEquivalent(flows: f, nav: CashFlow(date: rows.last!.date, amount: navAmount)) { levels[$0]! }
            expectClose(try #require(result.ksPME), Double(row["ks_pme"]!)!, relative: 1e-12, "case \(row["case_id"]!) ks")
            expectClose(try #require(result.pmePlusLambda), Double(row["pme_plus_lambda"]!)!, relative: 1e-12, "λ")
            expectClose(result.lnPMENAV, Double(row["ln_pme_nav"]!)!, relative: 1e-12, absolute: 1e-6, "LN NAV")
            let measures = [("direct_alpha_dated", "directAlpha", result.directAlpha), ("ln_pme_dated", "lnPme", result.lnPME),
                ("pme_plus_dated", "pmePlus", result.pmePlus)]
            for (column, name, value) in measures {
                guard let expected = Double(row[column]!) else { continue }
                let actual = try #require(value, "\(column) case \(row["case_id"]!)")
                let note = result.notes.first { $0.hasPrefix("\(name): other roots") }
                if let note, abs(actual - expected) > 1e-6 {
                    // Several roots: Sentio reports the one nearest 0.1, pyxirr another; pyxirr's must be listed.
                    let listed = note.dropFirst("\(name): other roots ".count).split(separator: ";")[0]
                        .split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                    #expect(listed.contains { relativeDifference($0, expected) < 1e-9 || abs($0 - expected) < 5e-11 }, "\(note) vs \(expected)")
                } else {
                    // 1e-9 relative, or 5e-11 absolute near zero: in cases 2 and 29 (PME+, r ≈ 0.01) pyxirr stops
                    // 2e-11 from the root (60-digit decimal NPV 2.7e-4 at pyxirr's rate, 7.8e-10 at ours).
                    expectClose(actual, expected, relative: 1e-9, absolute: 5e-11, "\(column) case \(row["case_id"]!)")
                }
                rateChecks += 1
            }
        }
        #expect(rateChecks >= 110)
    }
}

@Suite("Fund report JSON")
struct FundReportTests {
    // The report's JSON is SentioAPI's FundReportResponse: its shape test is in SentioAPITests
    // (FundReportResponseTests). Here: the table.
    @Test("the table lists every fund and the portfolio")
    func table() throws {
        let plain = try FundReport(events: try FundEventFile(text: handEvents, file: "hand.csv"))
        #expect(plain.table().contains("F1") && plain.table().contains("F2") && plain.table().contains("Portfolio"))
    }

    @Test("the sample data in Data/funds produces a full report")
    func sampleData() throws {
        let dir = repositoryRoot.appendingPathComponent("Data/funds")
        func text(_ name: String) throws -> String { try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) }
        let events = try FundEventFile(text: try text("events.csv"), file: "events.csv")
        let report = try FundReport(
            events: events, metadata: try FundMetadataFile(text: try text("funds.json"), file: "funds.json"),
            index: try IndexSeries(text: try text("index.csv"), file: "index.csv"))
        #expect(report.funds.count >= 3)
        #expect(report.portfolio.activeCapitalCalls >= 3)
        for entry in report.funds {
            #expect(entry.metrics.irr != nil && entry.pme?.ksPME != nil)
            #expect(entry.metrics.navHistory.count >= 20)
        }
        // CSV metadata gives the same names as JSON.
        let csvMeta = try FundMetadataFile(text: try text("funds.csv"), file: "funds.csv")
        let jsonMeta = try FundMetadataFile(text: try text("funds.json"), file: "funds.json")
        #expect(csvMeta.funds == jsonMeta.funds)
    }
}
