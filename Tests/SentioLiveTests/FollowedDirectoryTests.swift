import Foundation
import SentioCore
import SentioData
import SentioLive
import SentioTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `FollowedDirectory`: the tailing of per-symbol CSV files behind `sentio live --follow` and `sentio serve --follow`.
@Suite struct FollowedDirectoryTests {
    /// Appends `text` to the file at `url` (creating it), as a downloader does.
    func append(_ text: some Collection<UInt8>, to url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text))
        try handle.close()
    }

    /// The bars a whole-file read gives (the oracle): the OHLCV reader on the file's complete lines.
    func wholeFileBars(_ bytes: [UInt8], symbol: String) throws -> [FeedBar] {
        // The header alone (or less) is no bar yet (the whole-file reader calls it an error: no data rows).
        guard let lastNewline = bytes.lastIndex(of: 0x0A), bytes[...lastNewline].filter({ $0 == 0x0A }).count >= 2 else { return [] }
        let text = String(decoding: bytes[...lastNewline], as: UTF8.self)
        let series = try OHLCVReader.parse(text: text, symbol: symbol).series
        return (0..<series.count).map { FeedBar(symbol: symbol, bar: series[bar: $0]) }
    }

    /// Random markets written to the files in random chunks cut at any byte (mid-line, mid-number, between the
    /// `\r` and `\n` of CRLF files), polled after each chunk: after every poll, the bars read so far of each
    /// symbol are exactly the whole-file reader's bars of that file's complete lines (a partial last line is never
    /// consumed, nothing is read twice or lost); each poll's bars are in timeline order. 12 seeds.
    @Test(arguments: 0..<12)
    func randomChunksMatchTheWholeFileReader(caseIndex: Int) throws {
        var rng = SplitMix64(seed: 0xF011_0000 &+ UInt64(caseIndex) &* 0x9E37_79B9_7F4A_7C15)
        let symbols = 1 + Int(rng.next() % 3)
        let series = randomMarket(&rng, symbols: symbols, steps: 20 + Int(rng.next() % 40), gapProbability: 0.15)
        let crlf = rng.next() % 3 == 0
        let dir = try temporaryDirectory("follow-chunks")
        defer { try? FileManager.default.removeItem(at: dir) }
        let texts: [[UInt8]] = series.map { s in
            var bytes = OHLCVWriter.encode(s, options: .init(datesWhenMidnight: rng.next() % 2 == 0))
            if crlf { bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8) }
            return bytes
        }
        let universe = series.map(\.symbol)
        var followed = try FollowedDirectory(directory: dir.path, universe: universe)
        var written = Array(repeating: 0, count: symbols)
        var received: [String: [FeedBar]] = [:]
        while written.enumerated().contains(where: { $0.element < texts[$0.offset].count }) {
            // A few chunks to random files, then a poll.
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let k = Int(rng.next() % UInt64(symbols))
                let left = texts[k].count - written[k]
                guard left > 0 else { continue }
                let n = min(left, 1 + Int(rng.next() % 90))
                try append(texts[k][written[k]..<(written[k] + n)], to: dir.appendingPathComponent("\(universe[k]).csv"))
                written[k] += n
            }
            let poll = followed.poll()
            #expect(poll.rowErrors.isEmpty && poll.notices.isEmpty, "\(poll.rowErrors) \(poll.notices)")
            let times = poll.bars.map(\.bar.timestamp)
            #expect(times == times.sorted(), "a poll's bars are in timeline order")
            for bar in poll.bars { received[bar.symbol, default: []].append(bar) }
            for k in 0..<symbols {
                let expected = try wholeFileBars(Array(texts[k][..<written[k]]), symbol: universe[k])
                #expect(received[universe[k], default: []] == expected, "seed case \(caseIndex), \(universe[k]) after \(written[k]) bytes")
            }
        }
    }

    @Test("a last line without its line feed waits until the writer completes it")
    func partialLastLineWaits() throws {
        let dir = try temporaryDirectory("follow-partial")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("AAA.csv")
        try append(Array("timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10.5,100\n2024-01-03,10.5,12,10,10".utf8), to: file)
        var followed = try FollowedDirectory(directory: dir.path, universe: ["AAA"])
        let first = followed.poll()
        #expect(first.bars.map(\.bar.close) == [10.5])
        #expect(followed.poll().bars.isEmpty, "the incomplete row (a truncated close) is not read as 10")
        try append(Array(".25,200".utf8), to: file)
        #expect(followed.poll().bars.isEmpty, "still no line feed")
        try append(Array("\n".utf8), to: file)
        let completed = followed.poll()
        #expect(completed.bars.map(\.bar.close) == [10.25])
        #expect(completed.bars.map(\.bar.volume) == [200])
    }

    @Test("a row that is not a bar is an error naming file, line and field; the rows after it are read")
    func badRowIsReportedAndReadingGoesOn() throws {
        let dir = try temporaryDirectory("follow-bad-row")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("AAA.csv")
        try append(Array("timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10.5,100\n2024-01-03,10,9,11,10,1\n\n2024-01-04,10,x,9,10,1\n2024-01-05,10,11,9,10.75,1\n".utf8), to: file)
        var followed = try FollowedDirectory(directory: dir.path, universe: ["AAA"])
        let poll = followed.poll()
        #expect(poll.bars.map(\.bar.close) == [10.5, 10.75])
        #expect(poll.rowErrors.map(\.line) == [3, 5])
        #expect(poll.rowErrors.allSatisfy { $0.file == file.path })
        #expect(poll.rowErrors.first?.message.hasPrefix("\(file.path):3: ") == true, "\(poll.rowErrors)")
        #expect(poll.rowErrors.last?.message.hasPrefix("\(file.path):5: ") == true, "\(poll.rowErrors)")
        #expect(poll.rowErrors.last?.message.contains("high") == true, "names the field: \(poll.rowErrors)")
    }

    @Test("a truncated file is read again from its start, with a notice saying so")
    func truncatedFile() throws {
        let dir = try temporaryDirectory("follow-truncated")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("AAA.csv")
        let header = "timestamp,open,high,low,close,volume\n"
        try append(Array((header + "2024-01-02,10,11,9,10.5,100\n2024-01-03,10,11,9,10.25,100\n").utf8), to: file)
        var followed = try FollowedDirectory(directory: dir.path, universe: ["AAA"])
        #expect(followed.poll().bars.count == 2)
        // Truncated in place (same inode) and rewritten shorter.
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.close()
        try append(Array((header + "2024-01-02,10,11,9,10.5,100\n").utf8), to: file)
        let poll = followed.poll()
        #expect(poll.notices.count == 1)
        #expect(poll.notices.first?.contains("\(file.path): the file was truncated") == true, "\(poll.notices)")
        #expect(poll.notices.first?.contains("reading it again from its start") == true)
        #expect(poll.bars.map(\.bar.close) == [10.5], "the rows of the new content, from its start")
        #expect(followed.poll() == FollowedDirectory.Poll(), "nothing new, no second notice")
    }

    @Test("a replaced file (rotated, or rewritten and renamed over) is read again from its start, with a notice")
    func replacedFile() throws {
        let dir = try temporaryDirectory("follow-replaced")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("AAA.csv")
        let header = "timestamp,open,high,low,close,volume\n"
        let rows = ["2024-01-02,10,11,9,10.5,100\n", "2024-01-03,10,11,9,10.25,100\n", "2024-01-04,10,11,9,10.75,100\n"]
        try append(Array((header + rows[0]).utf8), to: file)
        var followed = try FollowedDirectory(directory: dir.path, universe: ["AAA"])
        #expect(followed.poll().bars.count == 1)
        // A longer file renamed over the old one: the size alone would not show it.
        let replacement = dir.appendingPathComponent(".AAA.csv.tmp")
        try Data((header + rows.joined()).utf8).write(to: replacement)
        #expect(rename(replacement.path, file.path) == 0)
        let poll = followed.poll()
        #expect(poll.notices.count == 1)
        #expect(poll.notices.first?.contains("\(file.path): the file was replaced") == true, "\(poll.notices)")
        #expect(poll.bars.map(\.bar.close) == [10.5, 10.25, 10.75])
    }

    @Test("bars of one poll across files: by timestamp, then universe order; other files and hidden files ignored")
    func timelineOrderAcrossFiles() throws {
        let dir = try temporaryDirectory("follow-order")
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = "timestamp,open,high,low,close,volume\n"
        try append(Array((header + "2024-01-02,1,1,1,1,1\n2024-01-03,1,1,1,1,1\n").utf8), to: dir.appendingPathComponent("ZZZ.csv"))
        try append(Array((header + "2024-01-02,2,2,2,2,2\n2024-01-03,2,2,2,2,2\n").utf8), to: dir.appendingPathComponent("aaa.csv"))
        try append(Array((header + "2024-01-02,3,3,3,3,3\n").utf8), to: dir.appendingPathComponent("OTHER.csv"))
        try append(Array((header + "2024-01-02,4,4,4,4,4\n").utf8), to: dir.appendingPathComponent(".AAA.csv"))
        var followed = try FollowedDirectory(directory: dir.path, universe: ["ZZZ", "AAA"])
        let poll = followed.poll()
        #expect(poll.bars.map(\.symbol) == ["ZZZ", "AAA", "ZZZ", "AAA"])
        #expect(poll.bars.map(\.bar.close) == [1, 2, 1, 2])
        #expect(try FollowedDirectory.symbols(in: dir.path) == ["OTHER", "ZZZ", "aaa"])
    }

    @Test("a missing directory is a user error naming it")
    func missingDirectory() throws {
        let missing = "/nonexistent-\(UUID().uuidString)"
        #expect(throws: FollowError.notADirectory(missing)) { try FollowedDirectory(directory: missing, universe: ["A"]) }
        #expect(FollowError.notADirectory(missing).description == "--follow \(missing): no such directory")
    }

    /// `--date-format` and `--timezone` (issue 28) for followed rows: M/D/YYYY rows read with the pattern; without it
    /// a row both readings fit is an error asking for `--date-format` (never a guess); wall-clock times of the
    /// zone are converted to UTC with its DST offset.
    @Test func dateFormatAndTimeZoneOfFollowedRows() throws {
        let dir = try temporaryDirectory("follow-date-format")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = "Date,Open,High,Low,Close,Volume\n1/4/1999,10,11,9,10.5,100\n1/5/1999,10.5,11,10,10.8,120\n"
        try append(Array(rows.utf8), to: dir.appendingPathComponent("AAA.csv"))
        var pattern = try FollowedDirectory(directory: dir.path, universe: ["AAA"], dateFormat: try DateFormat("%m/%d/%Y"))
        let read = pattern.poll()
        #expect(read.rowErrors.isEmpty, "\(read.rowErrors)")
        #expect(read.bars.map { iso8601(epochSeconds: $0.bar.timestamp) } == ["1999-01-04T00:00:00Z", "1999-01-05T00:00:00Z"])
        var guessing = try FollowedDirectory(directory: dir.path, universe: ["AAA"])
        let refused = guessing.poll()
        #expect(refused.bars.isEmpty)
        #expect(refused.rowErrors.count == 2 && refused.rowErrors.allSatisfy { $0.message.contains("--date-format") }, "\(refused.rowErrors)")

        let zoned = try temporaryDirectory("follow-time-zone")
        defer { try? FileManager.default.removeItem(at: zoned) }
        let local = "timestamp,open,high,low,close,volume\n2024-01-02 09:30:00,10,11,9,10.5,100\n2024-07-01 09:30:00,10,11,9,10.5,100\n"
        try append(Array(local.utf8), to: zoned.appendingPathComponent("AAA.csv"))
        var newYork = try FollowedDirectory(
            directory: zoned.path, universe: ["AAA"], timeZone: try LocalTimeZone("America/New_York"))
        let zonedRead = newYork.poll()
        #expect(zonedRead.rowErrors.isEmpty, "\(zonedRead.rowErrors)")
        #expect(zonedRead.bars.map { iso8601(epochSeconds: $0.bar.timestamp) } == ["2024-01-02T14:30:00Z", "2024-07-01T13:30:00Z"])
    }
}
