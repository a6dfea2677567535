import Foundation
import SentioTestSupport
import Testing

@testable import Sentio

/// Issue 11's reader examples through the built `sentio` binary: exit code 2 and a message naming file, line and
/// field (or the file and the problem in words).
@Suite("Reader rules at the command line")
struct ReaderRulesCLITests {
    let header = "timestamp,open,high,low,close,volume\n"

    func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test("text after a closing quote: xirr, indicators and signals stop with exit 2 naming line and field")
    func quotes() async throws {
        let directory = try temporaryDirectory("cli-quotes")
        let flows = try write("date,amount\n2020-01-01,-100\n2021-01-01,\"50\"0\n", "q.csv", in: directory)
        let xirr = try await runSentio(["xirr", flows])
        #expect(xirr.status == 2 && xirr.stdout.isEmpty)
        #expect(xirr.stderr.contains("q.csv line 3, field 'amount': text after a closing quote"), "\(xirr.stderr)")
        let bars = try write(header + "2023-01-02,\"1.\"5,2,1,1.5,10\n", "O.csv", in: directory)
        for command in ["indicators", "signals"] {
            let run = try await runSentio([command, bars])
            #expect(run.status == 2, "\(command)")
            #expect(run.stderr.contains("O.csv:2: field 'open': text after a closing quote"), "\(command): \(run.stderr)")
        }
    }

    @Test("periods above the limit are input errors (exit 2), not failed allocations: indicators, signals, backtest, sweep")
    func hugePeriodsAreInputErrors() async throws {
        let file = "Data/market/TQQQ.csv"
        let cases: [([String], String)] = [
            (["indicators", file, "--ma-period", "9223372036854775807"], "--ma-period must be a number of bars from 1 to 1000000"),
            (["indicators", file, "--rsi-period", "1000001"], "--rsi-period must be a number of bars from 1 to 1000000"),
            (["signals", file, "--volume-window", "2305843009213693952"], "'volumeWindow' is 2305843009213693952; it must be at most 1000000 bars"),
            (["signals", file, "--horizon", "1000000000"], "'horizon' is 1000000000; it must be at most 1000000 bars"),
            (["backtest", file, "--strategy", "rsi", "--rsi-period", "9223372036854775807"], "--rsi-period must be at most 1000000 bars"),
            (["sweep", file, "--strategy", "sentio", "--grid", "volume-window=2,4611686018427387904"], "it must be at most 1000000 bars"),
        ]
        for (arguments, message) in cases {
            let run = try await runSentio(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }

    @Test("a zero price is rejected by every command with the file and line, not a 0-based bar")
    func zeroPrice() async throws {
        let directory = try temporaryDirectory("cli-zero")
        var rows = ""
        for day in 0..<40 { rows += "\(1_672_617_600 + day * 86_400),10,11,9,10.5,100\n" }
        rows += "\(1_672_617_600 + 40 * 86_400),0,11,0,10.5,100\n"
        let path = try write(header + rows, "ZERO.csv", in: directory)
        for arguments in [["indicators", path], ["signals", path], ["backtest", path]] {
            let run = try await runSentio(arguments)
            #expect(run.status == 2, "\(arguments[0])")
            #expect(run.stderr.contains("ZERO.csv:42: field 'open': price 0.0 is not positive"), "\(arguments[0]): \(run.stderr)")
        }
    }

    @Test("years outside 0001-9999: epoch seconds rejected, generate refuses a start that runs past 9999-12-31")
    func years() async throws {
        let directory = try temporaryDirectory("cli-years")
        let path = try write(header + "-62135596801,1,2,1,1.5,10\n", "E.csv", in: directory)
        let run = try await runSentio(["indicators", path])
        #expect(run.status == 2 && run.stderr.contains("outside the years 0001-9999"), "\(run.stderr)")
        let generate = try await runSentio(["generate", "--start", "9999-12-30", "--out", directory.appendingPathComponent("g").path])
        #expect(generate.status == 2 && generate.stderr.contains("past 9999-12-31"), "\(generate.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("g").path))
        // What generate accepts, its own reader reads.
        let out = directory.appendingPathComponent("ok").path
        let fits = try await runSentio(["generate", "--start", "9999-12-29", "--bars", "3", "--symbols", "TQQQ", "--out", out])
        #expect(fits.status == 0, "\(fits.stderr)")
        let back = try await runSentio(["indicators", out + "/TQQQ.csv"])
        #expect(back.status == 0 && back.stdout.contains("9999-12-31T00:00:00Z"), "\(back.stderr)")
    }

    @Test("text files: a directory, a non-UTF-8 file and /dev/null are named with the problem in words")
    func textFiles() async throws {
        let directory = try temporaryDirectory("cli-text")
        let asDirectory = try await runSentio(["xirr", directory.path])
        #expect(asDirectory.status == 2 && asDirectory.stderr.contains("\(directory.path): is a directory, not a file"), "\(asDirectory.stderr)")
        #expect(!asDirectory.stderr.contains("NSCocoaErrorDomain"))
        let latin1 = directory.appendingPathComponent("l.csv")
        try Data(Array("date,amount\n2020-01-01,-100\n2021-01-01,5 caf".utf8) + [0xE9, 0x0A]).write(to: latin1)
        let bad = try await runSentio(["xirr", latin1.path])
        #expect(bad.status == 2 && bad.stderr.contains("cannot read cash-flow file \(latin1.path) line 3: not UTF-8 text"), "\(bad.stderr)")
        let empty = try await runSentio(["xirr", "/dev/null"])
        #expect(empty.status == 2 && empty.stderr.contains("/dev/null: empty file"), "\(empty.stderr)")
        #expect(!empty.stderr.contains("permission"))
    }

    @Test("--lenient: one 2033 row among 504 costs one row; --rejects lists every skipped line; summary on stderr")
    func lenient() async throws {
        let directory = try temporaryDirectory("cli-lenient")
        let generator = try MarketGenerator(config: MarketConfig(symbols: ["TQQQ"], bars: 504, seed: 3))
        var lines = String(decoding: OHLCVWriter.encode(generator.generate()[0]), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        lines[1] = "2033" + lines[1].dropFirst(4)
        // Twelve more bad rows (zero volume is fine; negative volume is not).
        for k in 0..<12 { lines[100 + 10 * k] = lines[100 + 10 * k].replacingOccurrences(of: #",[0-9]+$"#, with: ",-1", options: .regularExpression) }
        let path = try write(lines.joined(separator: "\n") + "\n", "TQQQ.csv", in: directory)
        let rejects = directory.appendingPathComponent("rejects.csv").path
        let out = directory.appendingPathComponent("ind.csv").path
        let run = try await runSentio(["indicators", path, "--lenient", "--rejects", rejects, "--output", out])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(written.count == 1 + 504 - 13)
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(rejected.first == "file,line,reason")
        #expect(rejected.count == 1 + 13)
        #expect(rejected.dropFirst().map { Int($0.split(separator: ",")[1])! } == [2] + (0..<12).map { 101 + 10 * $0 })
        #expect(run.stderr.contains("skipped 13 invalid row(s)"))
        #expect(run.stderr.contains("... and 8 more (all listed in \(rejects))"), "\(run.stderr)")
        // The same through import and signals.
        let db = directory.appendingPathComponent("s.sqlite").path
        let imported = try await runSentio(["import", path, "--db", db, "--lenient", "--rejects", rejects + ".2"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try String(contentsOfFile: rejects + ".2", encoding: .utf8) == rejected.joined(separator: "\n") + "\n")
        let signals = try await runSentio(["signals", path, "--lenient", "--rejects", rejects + ".3"])
        #expect(signals.status == 0, "\(signals.stderr)")
        #expect(try String(contentsOfFile: rejects + ".3", encoding: .utf8) == rejected.joined(separator: "\n") + "\n")
        // --rejects needs --lenient.
        let strict = try await runSentio(["indicators", path, "--rejects", rejects])
        #expect(strict.status == 2 && strict.stderr.contains("--rejects needs --lenient"))
    }
}
