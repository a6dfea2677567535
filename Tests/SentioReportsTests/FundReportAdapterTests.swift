import Foundation
import Testing
@testable import SentioReports
import SentioFunds
import SentioCore
import SentioTestSupport

@Suite("Fund report from SentioFunds")
struct FundReportAdapterTests {
    static let eventsText = """
    fund_id,date,type,amount,due_date,status
    F&1,2015-01-10,commitment,1000,,
    F&1,2015-02-01,call,300,2015-02-15,PAID
    F&1,2015-03-31,nav,290,,
    F&1,2015-09-01,call,200,2015-09-15,PAID
    F&1,2015-09-30,nav,520,,
    F&1,2016-03-01,distribution,150,,
    F&1,2016-03-31,nav,480,,
    F&1,2016-06-01,call,100,2016-06-15,LATE
    G<2>,2015-06-01,commitment,500,,
    G<2>,2015-06-15,call,250,,
    G<2>,2015-12-31,nav,240,,
    G<2>,2016-06-30,nav,300,,
    """
    static let indexText = """
    date,close
    2014-12-31,100
    2015-03-31,104
    2015-06-30,101
    2015-09-30,98
    2015-12-31,107
    2016-03-31,110
    2016-06-30,113
    """

    @Test("Portfolio and fund figures equal SentioFunds' metrics; series recomputed as of each NAV date")
    func report() throws {
        let events = try FundEventFile(text: Self.eventsText, file: "events.csv")
        let index = try IndexSeries(text: Self.indexText, file: "index.csv")
        let metadata = try FundMetadataFile(text: "id,name,manager,domicile,vintage\nF&1,\"Fund \"\"One\"\" <A&B>\",M,\"Delaware, US\",2015\nG<2>,G2,N,Ireland,2015\n", file: "meta.csv")
        let report = try FundReport(events: events, metadata: metadata, index: index)
        let content = try FundReportContent(report: report, events: events, index: index)
        let html = FundReportRenderer().render(content)
        preview(html, "fund-adapter.html")
        let root = try expectSelfContained(html)

        func card(_ group: String, _ key: String) throws -> XMLNode {
            let dl = try #require(root.all { $0.attributes["data-stats"] == group }.first, "no group \(group)")
            return try #require(dl.all { $0.attributes["data-stat"] == key }.first, "no \(key) in \(group)")
        }
        let p = report.portfolio
        #expect(try card("portfolio", "totalNav").attributes["data-value"] == NumberText.exact(p.totalNav.doubleValue))
        #expect(try card("portfolio", "portfolioTvpi").attributes["data-value"] == NumberText.exact(p.portfolioTvpi!))
        #expect(try card("portfolio", "pooledIrr").attributes["data-value"] == NumberText.exact(p.pooledIrr!.rate))
        #expect(try card("portfolio", "activeCapitalCalls").text == "1")

        let entry = report.funds.first { $0.metrics.id == "F&1" }!
        let m = entry.metrics
        #expect(try card("fund-F&1", "irr").attributes["data-value"] == NumberText.exact(m.irr!.rate))
        #expect(try card("fund-F&1", "irr").text == NumberText.percent(100 * m.irr!.rate))
        #expect(try card("fund-F&1", "tvpi").attributes["data-value"] == NumberText.exact(m.tvpi!))
        #expect(try card("pme-F&1", "ksPME").attributes["data-value"] == NumberText.exact(entry.pme!.ksPME!))
        #expect(root.all("h2").contains { $0.text == "Fund \"One\" <A&B> (F&1)" })

        // Hand-checked series: paid calls 300 and 200 (the LATE call is not paid-in), one distribution of 150.
        let fund = content.funds.first { $0.id == "F&1" }!
        #expect(fund.cumulativeCalls.values == [300, 500])
        #expect(fund.cumulativeDistributions.values == [150])
        #expect(fund.nav.values == [290, 520, 480])
        // TVPI and DPI as of each NAV date: (dist + NAV) / paid-in.
        expectClose(fund.tvpi.values, [290.0 / 300, 520.0 / 500, (150.0 + 480) / 500], relative: 1e-12)
        expectClose(fund.dpi.values, [0, 0, 150.0 / 500], relative: 1e-12, absolute: 1e-15)
        // The last point is the figure on top.
        #expect(fund.tvpi.values.last == m.tvpi)
        #expect(fund.ksPME?.values.last == entry.pme?.ksPME)
        // KS-PME as of 2015-03-31 by hand: (NAV / I(NAV date)) / (call / I(call date)), level on or before.
        expectClose(fund.ksPME!.values[0], (290.0 / 104) / (300.0 / 100), relative: 1e-12)

        let jCurve = try #require(chart(root, "jcurve-F&1"))
        #expect(seriesPaths(jCurve)["Net cash flow"]?.attributes["data-points"] == "3")
        let calls = try #require(root.all { $0.attributes["data-table"] == "calls-F&1" }.first)
        #expect(calls.all("span").compactMap { $0.attributes["class"] } == ["badge paid", "badge paid", "badge late"])
        let multiples = try #require(chart(root, "multiples-G<2>"))
        #expect(seriesPaths(multiples)["TVPI"]?.attributes["data-points"] == "2")
    }

    @Test("The sample funds render to a well-formed report")
    func sample() throws {
        let dir = repositoryRoot.appendingPathComponent("Data/funds").path + "/"
        let events = try FundEventFile(text: try String(contentsOfFile: dir + "events.csv", encoding: .utf8), file: "events.csv")
        let index = try IndexSeries(text: try String(contentsOfFile: dir + "index.csv", encoding: .utf8), file: "index.csv")
        let report = try FundReport(events: events, index: index)
        let root = try expectSelfContained(FundReportRenderer().render(try FundReportContent(report: report, events: events, index: index)))
        #expect(root.all { $0.name == "svg" }.count == 3 * report.funds.count)
    }
}
