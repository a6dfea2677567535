import Foundation
import Testing
@testable import SentioReports
import SentioTestSupport

@Suite("Markup: escaping and number text")
struct MarkupTests {
    @Test("The five XML specials become entities; forbidden control characters become U+FFFD")
    func escaping() {
        #expect(escapeMarkup(#"AT&T <"x"> 'y'"#) == "AT&amp;T &lt;&quot;x&quot;&gt; &#39;y&#39;")
        #expect(escapeMarkup("a\u{0}b\u{1B}c\td\ne") == "a\u{FFFD}b\u{FFFD}c&#9;d&#10;e")
        #expect(escapeMarkup("Fonds Ærø — 日本") == "Fonds Ærø — 日本")
    }

    @Test("Hostile names survive a round trip through an XML parser unchanged")
    func escapingRoundTrip() throws {
        let names = [#"<script>alert("x")</script>"#, "A&B ]]> <!-- --> 'q'", "Ünïcødé & €", "tab\there", "line\nbreak"]
        for name in names {
            var chart = TimeSeriesChart(id: "c", title: name,
                                        series: [ChartSeries(name: name, times: [0, 86_400], values: [1, 2])], valueFormat: .plain)
            chart.markers = [ChartMarker(kind: .entry, time: 0, value: 1, tone: .accent, label: name)]
            let root = try parseXML(chart.svg().svg)
            let title = root.all("text").first { $0.attributes["class"] == "title" }
            #expect(title?.text == name)
            #expect(root.all("path").contains { $0.attributes["data-series"] == name })
            #expect(root.all("title").contains { $0.text == name && $0.parent?.name == "path" })
        }
    }

    @Test("Fixed-point text: grouping, rounding, no negative zero, dash for non-finite")
    func numbers() {
        #expect(NumberText.fixed(1234567.891, decimals: 2) == "1,234,567.89")
        #expect(NumberText.fixed(-1234.5, decimals: 0) == "-1,234")  // %.0f rounds half to even
        #expect(NumberText.fixed(999.999, decimals: 2) == "1,000.00")
        #expect(NumberText.fixed(-0.0001, decimals: 2) == "0.00")
        #expect(NumberText.fixed(12, decimals: 1, grouping: false) == "12.0")
        #expect(NumberText.fixed(.nan, decimals: 2) == "—")
        #expect(NumberText.percent(-12.345) == "-12.35%" || NumberText.percent(-12.345) == "-12.34%")
        #expect(NumberText.compact(1_500_000) == "1.5M")
        #expect(NumberText.compact(250_000) == "250K")
        #expect(NumberText.compact(-2_000_000_000) == "-2B")
        #expect(NumberText.compact(950) == "950")
    }
}
