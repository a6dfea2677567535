import Foundation
import SentioTestSupport
import Testing


/// Writes `text` to a fresh temporary file and returns its path.
func temporaryFile(_ name: String, _ text: String) throws -> String {
    let url = try temporaryDirectory("sentio-cli").appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

let excelFlowsCSV = """
    date,amount
    2008-01-01,-10000
    2008-03-01,2750
    2008-10-30,4250
    2009-02-15,3250
    2009-04-01,2750

    """

@Suite("sentio xirr")
struct XirrCLITests {
    @Test("text output is the rate at full precision (Excel example; pyxirr 0.37336253351883136)")
    func text() async throws {
        let output = try await runSentio(["xirr", try temporaryFile("excel.csv", excelFlowsCSV)])
        #expect(output.status == 0)
        let line = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!line.contains("\n"))
        let rate = try #require(Double(line))
        #expect(abs(rate - 0.37336253351883136) < 1e-13)
        #expect(line.count >= 17)  // "0.3733625335188..." full precision, not rounded for display
    }

    @Test("JSON output fields; --npv-at; --day-count")
    func json() async throws {
        let file = try temporaryFile("excel.csv", excelFlowsCSV)
        let output = try await runSentio(["xirr", file, "--format", "json", "--day-count", "act360", "--guess", "0.2"])
        #expect(output.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["xirr", "certificate", "bracket", "otherRoots", "method", "iterations", "dayCount", "guess", "flows", "firstDate", "lastDate"])
        #expect(object["dayCount"] as? String == "act360" && object["flows"] as? Int == 5)
        // A well-conditioned series: the residual certificate, no bracket.
        #expect(object["certificate"] as? String == "residual" && object["bracket"] is NSNull)
        // Actual/360: (1 + r360)^(365/360) = 1 + r365.
        let r360 = try #require(object["xirr"] as? Double)
        #expect(abs(pow(1 + r360, 365.0 / 360) - 1.37336253351883136) < 1e-12)
        let npv = try await runSentio(["xirr", file, "--npv-at", "0.09"])
        #expect(npv.status == 0)
        // Excel's XNPV documentation example: 2086.647602.
        #expect(abs(try #require(Double(npv.stdout.trimmingCharacters(in: .whitespacesAndNewlines))) - 2086.647602) < 1e-6)
    }

    @Test("several roots: the one nearest the guess, the others on stderr")
    func multipleRoots() async throws {
        let file = try temporaryFile("two.csv", "date,amount\n2021-01-01,-1\n2022-01-01,2.3\n2023-01-01,-1.32\n")
        let output = try await runSentio(["xirr", file, "--guess", "0.25"])
        #expect(output.status == 0)
        #expect(abs(try #require(Double(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines))) - 0.2) < 1e-12)
        #expect(output.stderr.contains("other IRRs"))
        // A negative guess is a value, not an option; -0.5 is nearer 10 % than 20 %.
        let negative = try await runSentio(["xirr", file, "--guess", "-0.5"])
        #expect(negative.status == 0, "\(negative.stderr)")
        #expect(abs(try #require(Double(negative.stdout.trimmingCharacters(in: .whitespacesAndNewlines))) - 0.1) < 1e-12)
        let outOfDomain = try await runSentio(["xirr", file, "--guess", "-1"])
        #expect(outOfDomain.status == 2 && outOfDomain.stderr.contains("--guess must be a finite rate greater than -1"))
    }

    @Test("bad input exits 2 naming file, line and field")
    func badInput() async throws {
        let badDate = try temporaryFile("bad.csv", "date,amount\n2020-01-01,-5\n2020-02-30,7\n")
        let output = try await runSentio(["xirr", badDate])
        #expect(output.status == 2)
        #expect(output.stderr.contains("bad.csv line 3, field 'date': '2020-02-30' is not a date"))
        let positive = try temporaryFile("pos.csv", "date,amount\n2020-01-01,5\n2021-01-01,7\n")
        let sameSign = try await runSentio(["xirr", positive])
        #expect(sameSign.status == 2 && sameSign.stderr.contains("pos.csv: all cash flows are positive"))
        let missing = try await runSentio(["xirr", "/nonexistent/flows.csv"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read cash-flow file /nonexistent/flows.csv"))
        let badOption = try await runSentio(["xirr", positive, "--day-count", "act999"])
        #expect(badOption.status == 2)
    }
}

/// Issue 11, class 1: the exact files of the report.
@Suite("sentio xirr: no non-root is ever printed (issue 11)")
struct XirrNonRootRegressionTests {
    @Test("1, -3, 3 a year apart plus a zero row dated 2600: no rate (exit 2), the same answer as without the row")
    func farZeroRowChangesNothing() async throws {
        let rows = "date,amount\n2020-01-01,1\n2021-01-01,-3\n2022-01-01,3\n"
        let plain = try await runSentio(["xirr", try temporaryFile("plain.csv", rows)])
        let padded = try await runSentio(["xirr", try temporaryFile("padded.csv", rows + "2600-01-01,0\n")])
        // Before the fix: exit 0, -0.725... and about 1,000 "other roots".
        #expect(padded.status == 2, "stdout: \(padded.stdout)")
        #expect(padded.stdout.isEmpty)
        #expect(!padded.stderr.contains("other IRRs"))
        #expect(padded.stderr.contains("padded.csv: no rate between"))
        #expect(plain.status == 2)
        // The same message, after the file name.
        func message(_ text: String, _ name: String) -> Substring { text[(text.range(of: name)?.upperBound ?? text.startIndex)...] }
        #expect(message(padded.stderr, "padded.csv") == message(plain.stderr, "plain.csv"))
        let json = try await runSentio(["xirr", try temporaryFile("padded.csv", rows + "2600-01-01,0\n"), "--format", "json"])
        #expect(json.status == 2 && json.stdout.isEmpty)
    }

    @Test("a fund whose last NAV is 0, dated 2080: the IRR is that of its calls and distributions, not -100%")
    func zeroNAVFarAway() async throws {
        let base = """
            fund_id,date,type,amount
            F,2020-01-01,commitment,1000
            F,2020-01-15,call,600
            F,2020-07-01,call,400
            F,2021-03-01,distribution,500
            F,2022-06-30,distribution,700

            """
        let withNAV = try await runSentio(["fund", try temporaryFile("nav0.csv", base + "F,2080-01-01,nav,0\n"), "--format", "json"])
        let withoutNAV = try await runSentio(["fund", try temporaryFile("nonav.csv", base), "--format", "json"])
        #expect(withNAV.status == 0 && withoutNAV.status == 0, "\(withNAV.stderr) \(withoutNAV.stderr)")
        func fund(_ text: String) throws -> [String: Any] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            return try #require((object["funds"] as? [[String: Any]])?.first)
        }
        let zeroNAV = try fund(withNAV.stdout), noNAV = try fund(withoutNAV.stdout)
        let irr = try #require(zeroNAV["irr"] as? Double)
        #expect(irr > -0.99, "IRR \(irr)")
        #expect(irr == noNAV["irr"] as? Double)
        // The same rate as `sentio xirr` on the flows themselves.
        let flows = try temporaryFile("flows.csv", "date,amount\n2020-01-15,-600\n2020-07-01,-400\n2021-03-01,500\n2022-06-30,700\n2080-01-01,0\n")
        let direct = try await runSentio(["xirr", flows])
        #expect(direct.status == 0)
        // Compared as printed (Foundation's JSON parser does not round every number correctly).
        let printedIRR = withNAV.stdout.split(separator: "\n").first { $0.contains("\"irr\":") }?
            .split(separator: ":").last?.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))
        #expect(printedIRR == direct.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(direct.stdout) vs \(irr)")
        // The zero NAV still dates the valuation.
        // Dates are midnight UTC timestamps since the report is written by the contract encoder (issue 12).
        #expect(zeroNAV["lastReportDate"] as? String == "2080-01-01T00:00:00Z")
        #expect(zeroNAV["nav"] as? Double == 0)
        let table = try await runSentio(["fund", try temporaryFile("nav0.csv", base + "F,2080-01-01,nav,0\n")])
        #expect(table.status == 0 && !table.stdout.contains("-100.00%"))
    }

    @Test("a fund with no IRR (call 100, distribution 300, call 300) and a 0 NAV in 2080: IRR n/a with the reason, not -100%")
    func zeroNAVFarAwayWithoutRoot() async throws {
        // -100 + 300x - 300x² < 0 for every x = 1/(1+r): no rate. Before the fix the table printed -100.00 %.
        let events = try temporaryFile("norate.csv", """
            fund_id,date,type,amount
            F,2020-01-01,commitment,1000
            F,2020-01-01,call,100
            F,2021-01-01,distribution,300
            F,2022-01-01,call,300
            F,2080-01-01,nav,0

            """)
        let table = try await runSentio(["fund", events])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(!table.stdout.contains("-100.00%"))
        #expect(table.stdout.contains("note: F IRR: no rate between"))
        let json = try await runSentio(["fund", events, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let fund = try #require((object["funds"] as? [[String: Any]])?.first)
        #expect(fund["irr"] is NSNull)
        #expect((fund["irrNote"] as? String)?.contains("no rate between") == true)
    }
}

@Suite("sentio fund")
struct FundCLITests {
    @Test("JSON on the bundled sample has every field the issue names")
    func sampleJSON() async throws {
        let output = try await runSentio([
            "fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.json", "--index", "Data/funds/index.csv", "--format", "json",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["asOf", "conventions", "funds", "portfolioSummary"])
        let funds = try #require(object["funds"] as? [[String: Any]])
        #expect(funds.count == 4)
        for fund in funds {
            for key in ["id", "name", "domicile", "vintage", "manager", "commitment", "paidIn", "nav", "irr", "tvpi", "dpi",
                "rvpi", "pic", "unfunded", "distributions", "lastReportDate", "navHistory", "capitalCalls", "pme"] {
                #expect(fund[key] != nil && !(fund[key] is NSNull), "fund \(fund["id"] ?? "?") lacks \(key)")
            }
            let nav = try #require(fund["navHistory"] as? [[String: Any]])
            #expect(!nav.isEmpty && nav.allSatisfy { Set($0.keys) == ["id", "date", "nav", "url"] })  // url: issue 12
            let calls = try #require(fund["capitalCalls"] as? [[String: Any]])
            #expect(!calls.isEmpty && calls.allSatisfy { Set(["id", "dueDate", "callAmount", "paymentStatus"]).isSubset(of: $0.keys) })
            let pme = try #require(fund["pme"] as? [String: Any])
            #expect(Set(["ksPme", "directAlpha", "lnPme", "pmePlus"]).isSubset(of: pme.keys))
            // Multiples are consistent with the money fields: TVPI = DPI + RVPI, DPI = distributions / paid-in.
            let paidIn = try #require(fund["paidIn"] as? Double), dist = try #require(fund["distributions"] as? Double)
            let dpi = try #require(fund["dpi"] as? Double), rvpi = try #require(fund["rvpi"] as? Double)
            let tvpi = try #require(fund["tvpi"] as? Double)
            #expect(abs(dpi - dist / paidIn) < 1e-12 && abs(tvpi - dpi - rvpi) < 1e-12)
        }
        let summary = try #require(object["portfolioSummary"] as? [String: Any])
        for key in ["totalCommitment", "totalNav", "portfolioTvpi", "activeCapitalCalls", "pooledIrr"] {
            #expect(summary[key] != nil && !(summary[key] is NSNull), "portfolioSummary lacks \(key)")
        }
        // The sample's latest calls are PENDING, LATE, PENDING and OVERDUE.
        #expect(summary["activeCapitalCalls"] as? Int == 4)
    }

    @Test("table output and --as-of")
    func table() async throws {
        let output = try await runSentio(["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv", "--as-of", "2019-12-31"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Funds as of 2019-12-31"))
        #expect(output.stdout.contains("Northvale Partners III"))
        #expect(output.stdout.contains("Portfolio:"))
        #expect(output.stdout.contains("active capital calls 0"))  // the unpaid calls are dated 2024-12-16
    }

    @Test("bad input exits 2 naming file, line and field")
    func badInput() async throws {
        let events = try temporaryFile("ev.csv", "fund_id,date,type,amount\nF,2020-01-01,commitment,100\nF,2020-02-01,fee,5\n")
        let unknownType = try await runSentio(["fund", events])
        #expect(unknownType.status == 2)
        #expect(unknownType.stderr.contains("ev.csv line 3, field 'type': unknown event type 'fee'"))
        let good = try temporaryFile("ev.csv", "fund_id,date,type,amount\nF,2020-01-01,commitment,100\nG,2020-01-01,commitment,100\n")
        let meta = try temporaryFile("m.csv", "id,name\nF,Fund F\n")
        let unknownFund = try await runSentio(["fund", good, "--meta", meta])
        #expect(unknownFund.status == 2 && unknownFund.stderr.contains("ev.csv line 3, field 'fund_id': fund 'G' is not in the metadata file"))
        let badAsOf = try await runSentio(["fund", good, "--as-of", "2020-31-01"])
        #expect(badAsOf.status == 2 && badAsOf.stderr.contains("--as-of"))
        let index = try temporaryFile("ix.csv", "date,close\n2021-01-01,100\n")
        let withCall = try temporaryFile("ev.csv", "fund_id,date,type,amount\nF,2020-01-01,commitment,100\nF,2020-02-01,call,50\n")
        let beforeIndex = try await runSentio(["fund", withCall, "--index", index])
        #expect(beforeIndex.status == 2 && beforeIndex.stderr.contains("ev.csv line 3, field 'date': 2020-02-01 is before the first index date"))
    }

    @Test("a due date before its call date is an error naming file, line and field")
    func dueDateBeforeCallDate() async throws {
        let events = try temporaryFile("due.csv", """
            fund_id,date,type,amount,due_date,status
            F,2020-01-01,commitment,100,,
            F,2020-03-01,call,50,2020-03-15,PAID
            F,2020-06-01,call,20,2020-05-31,PENDING

            """)
        let run = try await runSentio(["fund", events])
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains("due.csv line 4, field 'due_date': due date 2020-05-31 is before the call date 2020-06-01"))
        // The same day is fine.
        let sameDay = try temporaryFile("due.csv", "fund_id,date,type,amount,due_date\nF,2020-01-01,commitment,100,\nF,2020-03-01,call,50,2020-03-01\n")
        #expect(try await runSentio(["fund", sameDay]).status == 0)
    }

    @Test("--as-of before the first event is an error naming the option, not a report of zeros")
    func asOfBeforeFirstEvent() async throws {
        let run = try await runSentio(["fund", "Data/funds/events.csv", "--as-of", "2014-04-08"])
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains("--as-of 2014-04-08 is before the first event (Data/funds/events.csv line 2: fund 'NVP-III' on 2014-04-09)"))
        let onFirstDay = try await runSentio(["fund", "Data/funds/events.csv", "--as-of", "2014-04-09", "--format", "json"])
        #expect(onFirstDay.status == 0, "\(onFirstDay.stderr)")
        let report = try await runSentio(["fund", "Data/funds/events.csv", "--as-of", "2014-04-08", "--report", try temporaryFile("r.html", "")])
        #expect(report.status == 2)
    }

    @Test("--view chooses the contract output; options that do not apply are usage errors (exit 2)")
    func views() async throws {
        let base = ["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv"]
        for (extra, words) in [
            (["--view", "fund"], "--view fund needs --fund ID"),
            (["--view", "documents"], "--view documents needs --fund ID"),
            (["--fund", "NVP-III"], "--fund applies to --view fund and --view documents"),
            (["--view", "crypto"], "--view crypto needs --holdings FILE"),
            (["--view", "funds", "--format", "table"], "--format table is not available here"),
            (["--format", "csv"], "--format csv is not available here"),
            (["--view", "dashboard", "--holdings", "Data/funds/holdings.csv"], "--holdings needs prices"),
            (["--holdings", "Data/funds/holdings.csv", "--prices", "Data/crypto"], "--holdings applies to --view crypto and --view dashboard"),
            (["--view", "fund", "--fund", "NOPE"], "unknown fund 'NOPE' in --fund; the events have NVP-III, AEG-VII, KST-II, BRM-I"),
        ] {
            let run = try await runSentio(base + extra)
            #expect(run.status == 2 && run.stdout.isEmpty && run.stderr.contains(words), "\(extra): \(run.stderr)")
        }
        // Without metadata a contract view cannot fill `name`: an error naming the fund and field, not null.
        let noMeta = try await runSentio(["fund", "Data/funds/events.csv", "--view", "funds"])
        #expect(noMeta.status == 2 && noMeta.stderr.contains("NVP-III: name: no metadata for the fund"))
        // The default view is still the report (table, or Sentio's JSON report with --format json).
        let table = try await runSentio(base)
        #expect(table.status == 0 && table.stdout.hasPrefix("Funds as of"))
        let dashboard = try await runSentio(base + ["--view", "dashboard"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(dashboard.stdout.utf8)) as? [String: Any])
        #expect(dashboard.status == 0 && (object["cryptoHoldings"] as? [Any])?.isEmpty == true, "no --holdings: no holdings")
    }

    @Test("bad payment_date and url cells exit 2 naming file, line and field")
    func badDocumentCells() async throws {
        let header = "fund_id,date,type,amount,due_date,status,payment_date,url\nF,2020-01-01,commitment,100,,,,\n"
        let badDate = try await runSentio(["fund", try temporaryFile("pd.csv", header + "F,2020-02-01,call,10,2020-02-15,,15/02/2020,\n")])
        #expect(badDate.status == 2 && badDate.stderr.contains("pd.csv line 3, field 'payment_date': '15/02/2020' is not a date"), "\(badDate.stderr)")
        let badURL = try await runSentio(["fund", try temporaryFile("u.csv", header + "F,2020-02-01,call,10,,,,docs/call.pdf\n")])
        #expect(badURL.status == 2 && badURL.stderr.contains("u.csv line 3, field 'url': 'docs/call.pdf' is not a url"), "\(badURL.stderr)")
        let paidDate = try await runSentio(["fund", try temporaryFile("pn.csv", "fund_id,date,type,amount,paid_date\nF,2020-01-01,commitment,100,\n")])
        #expect(paidDate.status == 2 && paidDate.stderr.contains("pn.csv line 1, field 'paid_date': unknown column"), "\(paidDate.stderr)")
    }

    @Test("payment dates and urls survive --save and --db: the stored funds give the same documents")
    func storeKeepsDocumentFields() async throws {
        let db = try temporaryDirectory("fund-docs").appendingPathComponent("s.sqlite").path
        let saved = try await runSentio(["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv", "--save", "--db", db,
            "--view", "fund", "--fund", "KST-II"])
        #expect(saved.status == 0, "\(saved.stderr)")
        let stored = try await runSentio(["fund", "--db", db, "--view", "fund", "--fund", "KST-II"])
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stdout == saved.stdout)
        #expect(stored.stdout.contains("https://docs.example.com/funds/KST-II/capital-call-001.pdf") && stored.stdout.contains("\"LATE\""))
    }

    @Test("holdings valued from the store's bars (--db) equal those valued from --prices; a symbol without prices is an error naming it")
    func holdingsFromStore() async throws {
        let db = try temporaryDirectory("fund-holdings").appendingPathComponent("s.sqlite").path
        #expect(try await runSentio(["import", "Data/crypto", "--db", db]).status == 0)
        #expect(try await runSentio(["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv", "--save", "--db", db]).status == 0)
        let stored = try await runSentio(["fund", "--db", db, "--view", "crypto", "--holdings", "Data/funds/holdings.csv"])
        let files = try await runSentio(["fund", "Data/funds/events.csv", "--view", "crypto", "--holdings", "Data/funds/holdings.csv",
            "--prices", "Data/crypto/BTCUSD.csv,Data/crypto/ETHUSD.csv"])
        #expect(stored.status == 0 && files.status == 0, "\(stored.stderr) \(files.stderr)")
        #expect(stored.stdout == files.stdout && stored.stdout.contains("\"totalValue\""))
        let holdings = try temporaryFile("h.csv", "symbol,name,amount\nBTCUSD,Bitcoin,1\nSOLUSD,Solana,3\n")
        let missing = try await runSentio(["fund", "Data/funds/events.csv", "--view", "crypto", "--holdings", holdings, "--prices", "Data/crypto"])
        #expect(missing.status == 2 && missing.stdout.isEmpty)
        #expect(missing.stderr.contains("h.csv line 3 (SOLUSD)") && missing.stderr.contains("no market series for SOLUSD"), "\(missing.stderr)")
        let badHoldings = try await runSentio(["fund", "Data/funds/events.csv", "--view", "crypto", "--holdings",
            try temporaryFile("hb.csv", "symbol,name,amount\nBTCUSD,Bitcoin,-2\n"), "--prices", "Data/crypto"])
        #expect(badHoldings.status == 2 && badHoldings.stderr.contains("hb.csv line 2, field 'amount'"), "\(badHoldings.stderr)")
    }
}

