import Foundation
import SentioAPI
import SentioCore
import SentioFunds
import Testing

/// `sentio fund --format json` (Sentio's own report shape), moved here from SentioFundsTests when the report's
/// JSON became a Codable type written by APIJSON.
@Suite("Fund report JSON (FundReportResponse)")
struct FundReportResponseTests {
    static let events = """
        fund_id,date,type,amount,due_date,status,payment_date,url
        F1,2020-01-01,commitment,1000.00,,,,
        F1,2020-01-01,call,400.00,2020-01-15,PAID,2020-01-10,https://docs.example.com/F1/call-1.pdf
        F1,2021-01-01,call,200.00,,,,
        F1,2021-01-01,nav,550.00,,,,
        F1,2021-07-01,call,100.00,2021-07-15,PENDING,,
        F1,2022-01-01,distribution,300.00,,,,
        F1,2022-01-01,nav,600.00,,,,
        F2,2020-01-01,commitment,500,,,,
        F2,2020-01-01,call,250,,paid,,
        F2,2021-01-01,call,100,2021-01-20,OVERDUE,,
        F2,2021-01-01,distribution,100,,,,
        F2,2022-01-01,nav,250,,,,
        """

    @Test("every field, in order, with the hand-checked values; pme only with an index")
    func shape() throws {
        let events = try FundEventFile(text: Self.events, file: "hand.csv")
        let meta = try FundMetadataFile(text: #"[{"id":"F1","name":"One","manager":"M1","domicile":"LU","vintage":2020},{"id":"F2","name":"Two"}]"#, file: "m.json")
        let index = try IndexSeries(text: "date,close\n2019-12-31,100\n2021-01-01,120\n2022-01-01,150\n", file: "ix.csv")
        let report = try FundReport(events: events, metadata: meta, index: index, dayCount: .thirty360US)
        let text = try APIJSON.encode(FundReportResponse(report))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        guard case .object(let top) = try RawJSON.parse(text) else { Issue.record("not an object"); return }
        #expect(top.map(\.0) == ["asOf", "conventions", "funds", "portfolioSummary"], "key order")
        #expect(object["asOf"] as? String == "2022-01-01T00:00:00Z")
        let funds = try #require(object["funds"] as? [[String: Any]])
        #expect(funds.count == 2)
        let f1 = funds[0]
        let keys = ["id", "name", "domicile", "vintage", "manager", "asOf", "commitment", "paidIn", "unfunded", "distributions",
                    "nav", "lastReportDate", "dpi", "rvpi", "tvpi", "pic", "irr", "irrNote", "navHistory", "capitalCalls", "pme"]
        #expect(Set(f1.keys) == Set(keys))
        #expect(f1["id"] as? String == "F1" && f1["name"] as? String == "One" && f1["vintage"] as? Int == 2020)
        // Paid-in 400 + 200 (the PENDING call is not), NAV 600, distributions 300: TVPI (300 + 600) / 600.
        #expect(f1["paidIn"] as? Double == 600 && f1["tvpi"] as? Double == 1.5 && f1["lastReportDate"] as? String == "2022-01-01T00:00:00Z")
        let nav = try #require(f1["navHistory"] as? [[String: Any]])
        #expect(Set(nav[0].keys) == ["id", "date", "nav", "url"])
        let calls = try #require(f1["capitalCalls"] as? [[String: Any]])
        #expect(Set(calls[0].keys) == ["id", "callDate", "dueDate", "callAmount", "paymentStatus", "paymentDate", "url"])
        #expect(calls[0]["paymentDate"] as? String == "2020-01-10T00:00:00Z" && calls[0]["url"] as? String == "https://docs.example.com/F1/call-1.pdf")
        #expect(calls[2]["paymentStatus"] as? String == "PENDING" && calls[2]["callAmount"] as? Double == 100)
        #expect(calls[1]["dueDate"] is NSNull && calls[1]["paymentDate"] is NSNull)
        let pme = try #require(f1["pme"] as? [String: Any])
        for key in ["ksPme", "directAlpha", "lnPme", "pmePlus", "pmePlusLambda", "valuationDate"] { #expect(pme[key] != nil, "missing \(key)") }
        #expect(funds[1]["domicile"] is NSNull && funds[1]["vintage"] is NSNull)
        let summary = try #require(object["portfolioSummary"] as? [String: Any])
        #expect(Set(summary.keys) == ["totalCommitment", "totalPaidIn", "totalDistributions", "totalNav", "portfolioTvpi",
                                      "activeCapitalCalls", "pooledIrr", "pooledIrrNote"])
        #expect(summary["activeCapitalCalls"] as? Int == 2 && summary["totalCommitment"] as? Double == 1500)
        let conventions = try #require(object["conventions"] as? [String: Any])
        #expect(conventions["dayCount"] as? String == "30-360" && conventions["index"] as? String == "ix.csv")
        // Without an index there is no pme key at all.
        let plain = try APIJSON.encode(FundReportResponse(try FundReport(events: events)))
        #expect(!plain.contains("\"pme\""))
    }

    @Test("a fund without paid-in capital: multiples null, never NaN or a plausible number")
    func undefinedFigures() throws {
        let events = try FundEventFile(text: "fund_id,date,type,amount,status\nF,2020-01-01,commitment,100,\nF,2020-02-01,call,10,PENDING\n", file: "e.csv")
        let text = try APIJSON.encode(FundReportResponse(try FundReport(events: events)))
        let fund = try #require(((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["funds"] as? [[String: Any]])?.first)
        for key in ["dpi", "rvpi", "tvpi", "irr", "lastReportDate"] { #expect(fund[key] is NSNull, "\(key)") }
        #expect(fund["irrNote"] is String && fund["pic"] as? Double == 0)
    }
}
