import Foundation
import SentioCore
import SentioCSV
import SentioData
import SentioTestSupport
import Testing

@Suite("Lenient mode: one bad row never costs more than itself")
struct LenientTests {
    /// O(n²) reference: the length of a longest strictly increasing subsequence.
    static func referenceLength(_ v: [Int64]) -> Int {
        guard !v.isEmpty else { return 0 }
        var best = [Int](repeating: 1, count: v.count)
        for i in 0..<v.count { for j in 0..<i where v[j] < v[i] { best[i] = max(best[i], best[j] + 1) } }
        return best.max()!
    }

    /// Brute force over all subsets: the lexicographically smallest index list among the longest increasing ones.
    static func bruteForceChoice(_ v: [Int64]) -> [Int] {
        var best: [Int] = []
        for mask in 0..<(1 << v.count) {
            let indices = (0..<v.count).filter { mask & (1 << $0) != 0 }
            guard zip(indices, indices.dropFirst()).allSatisfy({ v[$0] < v[$1] }) else { continue }
            if indices.count > best.count || (indices.count == best.count && indices.lexicographicallyPrecedes(best)) {
                best = indices
            }
        }
        return best
    }

    @Test("LIS: optimal length against the O(n²) reference (3,000 cases) and the documented tie-break by brute force")
    func longestIncreasingSubsequence() {
        var rng = SplitMix64(seed: 0x115_0001)
        for k in 0..<3_000 {
            let n = k % 5 == 0 ? Int.random(in: 0...10, using: &rng) : Int.random(in: 0...200, using: &rng)
            let range = Int64.random(in: 1...50, using: &rng)
            let values = (0..<n).map { _ in Int64.random(in: 0...range, using: &rng) }
            let kept = LongestIncreasingSubsequence.indices(values)
            #expect(kept.count == Self.referenceLength(values), "\(values)")
            #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 && values[$0] < values[$1] }, "\(values)")
            if n <= 10 { #expect(kept == Self.bruteForceChoice(values), "\(values)") }
        }
    }

    static func row(_ t: Int64, _ close: Double = 10) -> String {
        "\(t),\(close),\(close + 1),\(close - 1),\(close),100"
    }

    @Test("k displaced or corrupted rows among increasing ones: at most k rows lost, the report is exactly the skipped set (1,000 cases)")
    func displacedRows() throws {
        var rng = SplitMix64(seed: 0x115_0002)
        for _ in 0..<1_000 {
            let n = Int.random(in: 2...150, using: &rng)
            var times: [Int64] = []
            var t: Int64 = 1_672_617_600
            for _ in 0..<n { t += Int64.random(in: 1...86_400, using: &rng); times.append(t) }
            var rows = times.map { Self.row($0) }
            let k = Int.random(in: 1...max(1, n / 5), using: &rng)
            var damaged = Set<Int>()
            for _ in 0..<k {
                let i = Int.random(in: 0..<n, using: &rng)
                damaged.insert(i)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: rows[i] = Self.row(times[i] + 10 * 365 * 86_400)  // far future (the 2033 row)
                case 1: rows[i] = Self.row(times[i] - 10 * 365 * 86_400)  // far past
                case 2: rows[i] = Self.row(times[Int.random(in: 0..<n, using: &rng)])  // a copy of another row's time
                case 3: rows[i] = "\"\(times[i])\"x,1,2,1,1.5,10"  // text after a closing quote
                case 4: rows[i] = "\(times[i]),0,1,0,1,10"  // zero price
                default:  // swap with a neighbour
                    let j = i + 1 < n ? i + 1 : i - 1
                    rows.swapAt(i, j)
                    damaged.insert(j)
                }
            }
            let text = ohlcvHeader + rows.joined(separator: "\n") + "\n"
            let result = try OHLCVReader.parse(text: text, file: "l.csv", options: ReadOptions(lenient: true))
            let lost = n - result.series.count
            // A swap damages two rows but costs at most one.
            #expect(lost <= damaged.count, "lost \(lost) rows for \(damaged.count) damaged")
            #expect(zip(result.series.timestamps, result.series.timestamps.dropFirst()).allSatisfy { $0 < $1 })
            // Every line is either kept or reported, never both; reported lines are in order and unique.
            let reported = result.skipped.map(\.line)
            #expect(reported == reported.sorted() && Set(reported).count == reported.count)
            #expect(reported.count == lost)
            #expect(reported.allSatisfy { $0 >= 2 && $0 <= n + 1 })
            // The kept rows are exactly the rows not reported, in order.
            let keptLines = (2...(n + 1)).filter { !Set(reported).contains($0) }
            #expect(keptLines.count == result.series.count)
            for (index, line) in keptLines.enumerated() {
                let cell = rows[line - 2].split(separator: ",")[0]
                #expect(Int64(cell) == result.series.timestamps[index], "line \(line)")
            }
        }
    }

    @Test("issue 11: one row dated 2033 among 504 rows of 2023 costs one row; the reason names both values")
    func issueExample() throws {
        let generator = try MarketGenerator(config: MarketConfig(symbols: ["TQQQ"], bars: 504, seed: 7))
        let text = String(decoding: OHLCVWriter.encode(generator.generate()[0]), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[1] = "2033" + lines[1].dropFirst(4)
        let result = try OHLCVReader.parse(text: lines.joined(separator: "\n"), file: "t.csv", options: ReadOptions(lenient: true))
        #expect(result.series.count == 503)
        #expect(result.skipped.map(\.line) == [2])
        #expect(result.skipped[0].description.contains("'2033-"))
        #expect(result.skipped[0].description.contains("line 3's '2023-"))
        // Strict mode names the previous line's value as well.
        lines[1] = "2023" + lines[1].dropFirst(4)
        lines.swapAt(5, 6)
        do {
            _ = try OHLCVReader.parse(text: lines.joined(separator: "\n"), file: "t.csv")
            Issue.record("accepted out-of-order rows")
        } catch {
            #expect(error.description.hasPrefix("t.csv:7: field 'timestamp': timestamp '"))
            #expect(error.description.contains("is not after line 6's '"))
        }
    }
}
