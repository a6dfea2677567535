import Foundation
import SentioTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// The outputs of one command are all-or-nothing (OutputTransaction): a failed --save writes no file, a crash leaves
// all old files (plus temporary files that the next run removes) or, once recovered, all new ones.

private let goog = repositoryRoot.appendingPathComponent("Tests/Fixtures/backtest/goog_daily.csv").path

/// The four output options of `sentio backtest`, pointed into `folder`.
private func outputArguments(_ folder: URL) -> [String] {
    [
        "--trades", folder.appendingPathComponent("t.csv").path, "--equity", folder.appendingPathComponent("e.csv").path,
        "--report", folder.appendingPathComponent("r.html").path,
        "--portfolio", folder.appendingPathComponent("p.json").path,
    ]
}

private let outputNames = ["t.csv", "e.csv", "r.html", "p.json"]

/// The contents of the four outputs (nil for a missing file).
private func outputs(in folder: URL) -> [String: Data?] {
    Dictionary(uniqueKeysWithValues: outputNames.map { ($0, try? Data(contentsOf: folder.appendingPathComponent($0))) })
}

/// Names in `folder` that are temporary files or commit records of an output transaction.
private func leftovers(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.contains(".sentio-tmp-") || $0.hasPrefix(".sentio-commit-")
    }
}

@Suite("Command outputs are all-or-nothing", .serialized)
struct OutputAtomicityTests {
    /// Runs a backtest writing the four outputs into a fresh folder; returns their contents.
    static func reference(commission: String) async throws -> [String: Data?] {
        let folder = try temporaryDirectory("sentio-reference")
        let run = try await runSentio(["backtest", goog, "--strategy", "rsi", "--commission", commission] + outputArguments(folder))
        #expect(run.status == 0, "\(run.stderr)")
        return outputs(in: folder)
    }

    @Test("a failing --save (the store is not a database) leaves no output file and no temporary file")
    func failingSaveWritesNothing() async throws {
        let folder = try temporaryDirectory("sentio-failing-save")
        let db = folder.appendingPathComponent("not-a-store.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: db)
        let run = try await runSentio(["backtest", goog, "--strategy", "rsi", "--save", "--db", db.path] + outputArguments(folder))
        #expect(run.status == 2)
        #expect(run.stderr.contains("not an SQLite database"))
        #expect(outputs(in: folder).values.allSatisfy { $0 == nil })
        #expect(try leftovers(in: folder).isEmpty)

        // Same with old outputs present: they stay exactly as they were.
        let old = try await Self.reference(commission: "0.002")
        for (name, data) in old { try data!.write(to: folder.appendingPathComponent(name)) }
        let again = try await runSentio(["backtest", goog, "--strategy", "rsi", "--save", "--db", db.path] + outputArguments(folder))
        #expect(again.status == 2)
        #expect(outputs(in: folder) == old)
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test("signals --output with a failing --save writes no file")
    func signalsFailingSave() async throws {
        let folder = try temporaryDirectory("sentio-signals-save")
        let db = folder.appendingPathComponent("dir.sqlite")
        try FileManager.default.createDirectory(at: db, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("signals.json")
        let run = try await runSentio(["signals", goog, "--output", out.path, "--save", "--db", db.path])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test("killed after writing its temporary files: old outputs intact; the next run removes the stale files")
    func crashBeforeCommit() async throws {
        let old = try await Self.reference(commission: "0.002"), new = try await Self.reference(commission: "0.001")
        #expect(old != new)
        let folder = try temporaryDirectory("sentio-crash-staged")
        for (name, data) in old { try data!.write(to: folder.appendingPathComponent(name)) }
        var environment = ProcessInfo.processInfo.environment
        environment["SENTIO_TEST_CRASH_AT"] = "staged"
        let crashed = try await runSentio(
            ["backtest", goog, "--strategy", "rsi", "--commission", "0.001"] + outputArguments(folder), environment: environment)
        #expect(crashed.status != 0)
        #expect(outputs(in: folder) == old)
        #expect(try leftovers(in: folder).count == 4)  // the stale temporary files of the killed process

        // The next command writing into the folder removes them (their process is gone).
        let next = try await runSentio(["signals", goog, "--output", folder.appendingPathComponent("s.json").path])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try leftovers(in: folder).isEmpty)
        #expect(outputs(in: folder) == old)
    }

    @Test("killed between renames: the next run completes the commit, so the outputs are all new")
    func crashDuringRenames() async throws {
        let old = try await Self.reference(commission: "0.002"), new = try await Self.reference(commission: "0.001")
        let folder = try temporaryDirectory("sentio-crash-renamed")
        for (name, data) in old { try data!.write(to: folder.appendingPathComponent(name)) }
        var environment = ProcessInfo.processInfo.environment
        environment["SENTIO_TEST_CRASH_AT"] = "renamed"
        let crashed = try await runSentio(
            ["backtest", goog, "--strategy", "rsi", "--commission", "0.001"] + outputArguments(folder), environment: environment)
        #expect(crashed.status != 0)
        let mixed = outputs(in: folder)
        #expect(mixed != old && mixed != new)  // one file renamed, three not yet
        #expect(try leftovers(in: folder).contains { $0.hasPrefix(".sentio-commit-") })

        let next = try await runSentio(["signals", goog, "--output", folder.appendingPathComponent("s.json").path])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(outputs(in: folder) == new)
        #expect(try leftovers(in: folder).isEmpty)
    }

    @Test("SIGKILL at seeded random moments: after the next run the outputs are all old or all new, no stale files")
    func randomKills() async throws {
        let old = try await Self.reference(commission: "0.002"), new = try await Self.reference(commission: "0.001")
        var rng = SplitMix64(seed: 0x5E57)
        var seen: Set<String> = []
        for round in 0..<8 {
            let folder = try temporaryDirectory("sentio-kill-\(round)")
            for (name, data) in old { try data!.write(to: folder.appendingPathComponent(name)) }
            let (process, _, _) = try startSentio(
                ["backtest", goog, "--strategy", "rsi", "--commission", "0.001"] + outputArguments(folder))
            usleep(UInt32.random(in: 0...1_500_000, using: &rng))
            kill(process.processIdentifier, SIGKILL)
            await exited(process)
            // Recovery is done by the next command writing into the folder.
            let next = try await runSentio(["signals", goog, "--output", folder.appendingPathComponent("s.json").path])
            #expect(next.status == 0, "\(next.stderr)")
            let state = outputs(in: folder)
            #expect(state == old || state == new, "round \(round): a mix of old and new outputs")
            seen.insert(state == old ? "old" : "new")
            #expect(try leftovers(in: folder).isEmpty, "round \(round)")
        }
        print("random kills ended with outputs: \(seen.sorted())")
    }
}

/// What a reader thread got (unchecked: `value` is used only under `lock`).
private final class ReceivedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Data?
    func set(_ data: Data?) { lock.withLock { value = data ?? Data() } }
    func get() -> Data? { lock.withLock { value } }
}

/// What is at an output path is kept: a symbolic link stays a link (the file it names gets the output), a FIFO stays
/// a FIFO (its reader gets the output), `/dev/stdout` is written through the process's own descriptor (a shell's
/// `>>` appends), `/dev/full` stays a device (and its error is reported). Before, the temporary file was renamed
/// over whatever was there.
@Suite("Output paths that are links, FIFOs or devices")
struct OutputTargetKindTests {
    let market = "Data/market/TQQQ.csv"

    /// The bytes `sentio indicators` writes for the market file.
    func expected() async throws -> String {
        let run = try await runSentio(["indicators", market])
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test("a symbolic link is followed: its file is replaced, the link stays (also a link to a file not yet there)")
    func symbolicLink() async throws {
        let folder = try temporaryDirectory("sentio-output-link")
        let target = folder.appendingPathComponent("target.csv"), link = folder.appendingPathComponent("link.csv")
        try "old\n".write(to: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "target.csv")
        let run = try await runSentio(["indicators", market, "--output", link.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "target.csv")
        #expect(try String(contentsOf: target, encoding: .utf8) == (try await expected()))
        // A link whose file does not exist yet: the file is created where the link points.
        let dangling = folder.appendingPathComponent("dangling.csv")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "later.csv")
        let second = try await runSentio(["backtest", market, "--trades", dangling.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling.path) == "later.csv")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("later.csv").path))
        // A loop is an error, not a hang.
        let loop = folder.appendingPathComponent("loop.csv")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: "loop.csv")
        let third = try await runSentio(["indicators", market, "--output", loop.path])
        #expect(third.status == 2 && third.stderr.contains("too many levels of symbolic links"), "\(third.stderr)")
    }

    @Test("a FIFO gets the output and stays a FIFO")
    func fifo() async throws {
        let folder = try temporaryDirectory("sentio-output-fifo")
        let fifo = folder.appendingPathComponent("out.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let received = ReceivedBytes()
        // Opening blocks until the command opens the FIFO for writing; then read to its end.
        let reader = Thread { received.set(FileHandle(forReadingAtPath: fifo.path)?.readDataToEndOfFile()) }
        reader.start()
        let run = try await runSentio(["indicators", market, "--output", fifo.path])
        #expect(run.status == 0, "\(run.stderr)")
        try await pollUntil("the FIFO's reader got the output") { received.get() != nil }
        #expect(String(decoding: received.get() ?? Data(), as: UTF8.self) == (try await expected()))
        var status = stat()
        #expect(lstat(fifo.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("/dev/stdout is the process's standard output; /dev/full stays a device and its error is reported")
    func devices() async throws {
        let run = try await runSentio(["indicators", market, "--output", "/dev/stdout"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try await expected()))
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let full = try await runSentio(["indicators", market, "--output", "/dev/full"])
        #expect(full.status == 2 && full.stderr.contains("/dev/full: cannot write: No space left on device"), "\(full.stderr)")
        var status = stat()
        #expect(lstat("/dev/full", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "/dev/full must stay a device")
    }
}

/// An output option that names one of the command's inputs or its store is refused before any work (exit 2), and
/// so is one whose folder does not exist: before, `import --rejects STORE` replaced the store with the rejects CSV
/// (exit 0), `--rejects INPUT` replaced the input, and an unwritable `--rejects` failed after the bars were stored.
@Suite("Outputs that would replace inputs")
struct OutputOverInputTests {
    @Test("import, indicators, signals: --rejects or --output naming an input, the store or each other is an error; nothing changes")
    func refused() async throws {
        let folder = try temporaryDirectory("sentio-output-over-input")
        let bars = folder.appendingPathComponent("B.csv"), store = folder.appendingPathComponent("s.sqlite")
        let text = "timestamp,open,high,low,close,volume\n2023-01-02,1,2,0.5,1.5,100\nbad\n"
        try text.write(to: bars, atomically: true, encoding: .utf8)
        let first = try await runSentio(["import", "Data/market/SQQQ.csv", "--db", store.path])
        try #require(first.status == 0, "\(first.stderr)")
        let storeBytes = try Data(contentsOf: store)
        let link = folder.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: bars.path)
        let cases: [([String], String)] = [
            (["import", bars.path, "--db", store.path, "--lenient", "--rejects", store.path], "is the store"),
            (["import", bars.path, "--db", store.path, "--lenient", "--rejects", bars.path], "is the input file"),
            (["import", bars.path, "--db", store.path, "--lenient", "--rejects", link.path], "is the input file"),
            (["import", bars.path, "--db", store.path, "--lenient", "--rejects", folder.appendingPathComponent("nope/r.csv").path],
             "does not exist"),
            (["indicators", bars.path, "--lenient", "--output", bars.path], "is the input file"),
            (["indicators", bars.path, "--lenient", "--rejects", folder.appendingPathComponent("r.csv").path, "--output",
              folder.appendingPathComponent("./r.csv").path], "is the --rejects file"),
            (["signals", bars.path, "--lenient", "--rejects", bars.path], "is the input file"),
        ]
        for (arguments, message) in cases {
            let run = try await runSentio(arguments)
            #expect(run.status == 2 && run.stderr.contains(message), "\(arguments): \(run.status) \(run.stderr)")
        }
        #expect(try String(contentsOf: bars, encoding: .utf8) == text, "the input is unchanged")
        #expect(try Data(contentsOf: store) == storeBytes, "the store is unchanged (nothing was imported)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("r.csv").path))
    }
}

/// Standard output that cannot be written (`/dev/full`: every write fails with ENOSPC) is an error with its reason
/// and exit 2, whether the command writes its result directly or prints it — never a trap, never exit 0 with the
/// output lost.
@Suite("Standard output that cannot be written", .enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
struct UnwritableStandardOutputTests {
    @Test("indicators, signals, evaluate, backtest, sweep, generate, xirr, fund, allowance: exit 2, '<stdout>: cannot write'")
    func everyCommandReportsIt() async throws {
        let market = "Data/market/TQQQ.csv"
        let flows = try temporaryDirectory("sentio-full-stdout").appendingPathComponent("flows.csv")
        try "date,amount\n2020-01-01,-100\n2021-01-01,110\n".write(to: flows, atomically: true, encoding: .utf8)
        let commands: [[String]] = [
            ["indicators", market], ["signals", market], ["signals", "--history", "--format", "csv", market],
            ["evaluate", market], ["backtest", market], ["sweep", market, "--strategy", "rsi", "--grid", "rsi-period=5,6"],
            ["generate", "--symbols", "TQQQ", "--bars", "10", "--format", "ndjson"],
            ["xirr", flows.path], ["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv"],
            ["allowance", "Data/allowance/ledger.csv", "--children", "Data/allowance/children.csv"],
        ]
        for arguments in commands {
            let full = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
            let run = try await runSentio(arguments, output: full)
            try full.close()
            #expect(run.status == 2, "\(arguments): status \(run.status), \(run.stderr)")
            #expect(run.stderr.contains("<stdout>: cannot write: No space left on device"), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("Fatal error"), "\(arguments)")
        }
    }
}

@Suite("Negative option values")
struct NegativeOptionTests {
    /// Every option of every command, from ArgumentParser's own description of the command line.
    static func options(of command: [String]) async throws -> [(name: String, valueName: String)] {
        let run = try await runSentio(command + ["--experimental-dump-help"])
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let arguments = (json["command"] as! [String: Any])["arguments"] as? [[String: Any]] ?? []
        return arguments.compactMap { argument in
            guard argument["kind"] as? String == "option",
                let name = (argument["names"] as? [[String: Any]])?.first?["name"] as? String
            else { return nil }
            return (name, argument["valueName"] as? String ?? "")
        }
    }

    /// Value names of numeric options (the commands' help texts), and options whose value name is their own name.
    static let numericValueNames: Set<String> = ["N", "AMOUNT", "RATE", "BPS", "F", "PCT", "X", "A", "Z", "P", "RSI", "K", "S", "R"]
    static let numericNames: [String: Set<String>] = [
        "indicators": ["rsi-period", "volume-window", "atr-period", "ma-period"], "xirr": ["guess", "npv-at"],
    ]

    /// Every numeric option of every command, with the arguments that put it in context: the command, its base
    /// arguments without the option, and what the option needs (a strategy) to apply.
    static func numericOptions(in folder: URL) async throws -> [(label: String, arguments: [String], name: String)] {
        let flows = folder.appendingPathComponent("flows.csv")
        try "date,amount\n2020-01-01,-100\n2021-01-01,110\n".write(to: flows, atomically: true, encoding: .utf8)
        let ohlcv = repositoryRoot.appendingPathComponent("Tests/Fixtures/indicators/goog_ohlcv.csv").path
        let commands: [(command: [String], base: [String])] = [
            (["backtest"], [goog]), (["signals"], [goog]), (["indicators"], [ohlcv]),
            (["generate"], ["--out", folder.appendingPathComponent("gen").path]), (["xirr"], [flows.path]),
            // bench: the signals workload for the model and market options, a throughput workload for its own three.
            (["bench"], ["signals", "--bars", "50", "--count", "1"]),
        ]
        var result: [(label: String, arguments: [String], name: String)] = []
        for (command, base) in commands {
            for option in try await Self.options(of: command)
            where Self.numericValueNames.contains(option.valueName)
                || Self.numericNames[command.joined(separator: " "), default: []].contains(option.name)
            {
                // Options that only apply with a strategy need it, or the complaint would be about the strategy.
                var context: [String] = []
                if command == ["backtest"] && ["rsi-period", "rsi-lower", "rsi-upper"].contains(option.name) { context = ["--strategy", "rsi"] }
                if command == ["backtest"] && option.name == "amount" { context = ["--strategy", "dca"] }
                var baseWithout = Self.stripping(option.name, from: base)
                if command == ["bench"] && ["size", "repeat", "threads"].contains(option.name) {
                    baseWithout = ["csv", "--size", "1000"]
                }
                result.append((command.joined(separator: " "), command + baseWithout + context, option.name))
            }
        }
        return result
    }

    @Test("every numeric option of every command given a negative value (spaced and with =) says what it must be")
    func everyNumericOption() async throws {
        let folder = try temporaryDirectory("sentio-negative")
        var checked = 0
        for option in try await Self.numericOptions(in: folder) {
            for form in [["--\(option.name)", "-5"], ["--\(option.name)=-5"]] {
                let run = try await runSentio(option.arguments + form, in: folder)
                let label = "\(option.label) \(form.joined(separator: " "))"
                #expect(!run.stderr.contains("Missing value"), "\(label): \(run.stderr)")
                #expect(run.status == 2, "\(label): exit \(run.status), \(run.stderr)")
                // The message states the rule the value breaks.
                #expect(
                    run.stderr.contains("must") || run.stderr.contains("at least"),
                    "\(label): \(run.stderr)")
                checked += 1
            }
        }
        #expect(checked >= 2 * 50, "only \(checked) option forms found")
    }

    @Test("for every numeric option, --option -N and --option=-N give the same exit code and the same output (seeded)")
    func spacedEqualsJoined() async throws {
        let folder = try temporaryDirectory("sentio-negative-forms")
        var rng = SplitMix64(seed: 29)
        var checked = 0
        for option in try await Self.numericOptions(in: folder) {
            // A random negative value: an integer, a decimal, a large or a non-finite one.
            let values = ["-\(1 + rng.next() % 1000)", "-0.\(rng.next() % 100)", "-1e\(rng.next() % 30)", "-\(rng.next())", "-inf"]
            let value = values[Int(rng.next() % UInt64(values.count))]
            let spaced = try await runSentio(option.arguments + ["--\(option.name)", value], in: folder)
            let joined = try await runSentio(option.arguments + ["--\(option.name)=\(value)"], in: folder)
            let label = "\(option.label) --\(option.name) \(value)"
            #expect(spaced.status == joined.status, "\(label): \(spaced.status) vs \(joined.status)")
            #expect(spaced.stderr == joined.stderr, "\(label): \(spaced.stderr) vs \(joined.stderr)")
            #expect(spaced.stdout == joined.stdout, "\(label)")
            #expect(!spaced.stderr.contains("Missing value"), "\(label): \(spaced.stderr)")
            checked += 1
        }
        #expect(checked >= 50, "only \(checked) options found")
    }

    @Test("an unsigned option given a negative value says so; a numeric option followed by another option names the first")
    func unsignedAndMissingValue() async throws {
        let folder = try temporaryDirectory("sentio-negative-unsigned")
        for arguments in [["generate", "--out", folder.path, "--seed", "-5"], ["generate", "--out", folder.path, "--seed=-5"], ["bench", "csv", "--seed", "-5"]] {
            let run = try await runSentio(arguments, in: folder)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: --seed must not be negative (it is an unsigned integer), got -5\n"), "\(arguments): \(run.stderr)")
        }
        // `.unconditional`: --capital takes "--fee" as its value, which is no amount: the error names --capital.
        let run = try await runSentio(["backtest", goog, "--capital", "--fee", "1"], in: folder)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--capital"), "\(run.stderr)")
    }

    /// `base` without `--name VALUE` (the option under test replaces it).
    private static func stripping(_ name: String, from base: [String]) -> [String] {
        var result: [String] = []
        var i = 0
        while i < base.count {
            if base[i] == "--\(name)" { i += 2; continue }
            result.append(base[i])
            i += 1
        }
        return result
    }

    @Test("a negative value of an option that accepts one works spaced as with =")
    func negativeAllowed() async throws {
        let folder = try temporaryDirectory("sentio-negative-ok")
        let flows = folder.appendingPathComponent("flows.csv")
        try "date,amount\n2020-01-01,-100\n2021-01-01,110\n".write(to: flows, atomically: true, encoding: .utf8)
        let spaced = try await runSentio(["xirr", flows.path, "--guess", "-0.5"])
        let joined = try await runSentio(["xirr", flows.path, "--guess=-0.5"])
        #expect(spaced.status == 0, "\(spaced.stderr)")
        #expect(spaced.stdout == joined.stdout)
    }
}
