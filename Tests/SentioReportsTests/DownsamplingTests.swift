import Foundation
import Testing
@testable import SentioReports
import SentioTestSupport

@Suite("Downsampling keeps extremes within the point limit")
struct DownsamplingTests {
    @Test("Short series are untouched")
    func short() {
        #expect(downsampleIndices([3, 1, 2], limit: 4) == [0, 1, 2])
        #expect(downsampleIndices([], limit: 10) == [])
    }

    @Test("Random walks: count <= limit, increasing, first/last/global extremes and every bucket's extremes kept")
    func randomWalks() {
        var rng = SplitMix64(seed: 42)
        for trial in 0..<30 {
            let n = Int.random(in: 1_001...60_000, using: &rng)
            let limit = [4, 5, 100, 999, 1000, 1500][trial % 6]
            var v = 100.0
            var values = [Double](repeating: 0, count: n)
            for i in 0..<n { v += rng.nextGaussian(); values[i] = v }
            if trial % 5 == 0 { values[n / 3] = .nan }  // a gap is never chosen
            let kept = downsampleIndices(values, limit: limit)
            #expect(kept.count <= limit)
            #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 })
            #expect(kept.first == 0 && kept.last == n - 1)
            let finite = values.indices.filter { values[$0].isFinite }
            let argmin = finite.min { values[$0] < values[$1] }!
            let argmax = finite.max { values[$0] < values[$1] }!
            #expect(kept.contains(argmin) && kept.contains(argmax))
            #expect(kept.allSatisfy { values[$0].isFinite || $0 == 0 || $0 == n - 1 })
            // Independent check of the rule: the extremes of each bucket.
            let buckets = (limit - 2) / 2
            let keptSet = Set(kept)
            for b in stride(from: 0, to: buckets, by: max(1, buckets / 7)) {
                let lower = 1 + b * (n - 2) / buckets, upper = 1 + (b + 1) * (n - 2) / buckets
                let bucket = (lower..<upper).filter { values[$0].isFinite }
                guard let lo = bucket.map({ values[$0] }).min(), let hi = bucket.map({ values[$0] }).max() else { continue }
                #expect(bucket.contains { keptSet.contains($0) && values[$0] == lo })
                #expect(bucket.contains { keptSet.contains($0) && values[$0] == hi })
            }
        }
    }

    @Test("A long series is drawn with at most the limit and the figure says so")
    func chartNote() throws {
        let n = 50_000
        var rng = SplitMix64(seed: 3)
        var values: [Double] = []
        var v = 0.0
        for _ in 0..<n { v += rng.nextGaussian(); values.append(v) }
        let times = (0..<n).map { Int64($0) * 60 }
        var chart = TimeSeriesChart(id: "long", title: "Long", series: [ChartSeries(name: "walk", times: times, values: values)], valueFormat: .plain)
        chart.maxPointsPerSeries = 800
        let root = try parseXML(chart.html())
        let path = try #require(root.all("path").first { $0.attributes["data-series"] == "walk" })
        let drawn = vertexCount(ofPath: path.attributes["d"]!)
        #expect(drawn <= 800 && drawn > 700)
        #expect(path.attributes["data-points"] == "\(drawn)")
        #expect(path.attributes["data-source-points"] == "\(n)")
        let caption = try #require(root.all("figcaption").first)
        #expect(caption.attributes["data-downsampled"] == "true")
        #expect(caption.text.contains("50,000 points drawn as \(drawn)"))
        // The drawn extremes are the data's extremes: invert the value axis from two tick labels.
        let ticks = root.all { $0.name == "text" && $0.parent?.attributes["class"] == "y-axis" }
        let (v0, y0) = (Double(ticks[0].attributes["data-value"]!)!, Double(ticks[0].attributes["y"]!)! - 4)
        let (v1, y1) = (Double(ticks.last!.attributes["data-value"]!)!, Double(ticks.last!.attributes["y"]!)! - 4)
        func value(atY y: Double) -> Double { v0 + (y - y0) * (v1 - v0) / (y1 - y0) }
        let ys = vertices(ofPath: path.attributes["d"]!).map(\.y)
        let pixel = abs((v1 - v0) / (y1 - y0))
        #expect(abs(value(atY: ys.min()!) - values.max()!) <= 0.1 * pixel)
        #expect(abs(value(atY: ys.max()!) - values.min()!) <= 0.1 * pixel)
        // A short series has no caption.
        chart.series[0] = ChartSeries(name: "walk", times: Array(times.prefix(500)), values: Array(values.prefix(500)))
        #expect(try parseXML(chart.html()).all("figcaption").isEmpty)
    }
}
