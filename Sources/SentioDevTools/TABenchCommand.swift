import ArgumentParser
import Foundation
import SentioBench
import SentioIndicators

/// `sentio-dev ta-bench`: every TA-Lib function of Sentio's set timed in issue 34's two shapes (one series of
/// 10,000,000 bars; 12 series of 1,000,000 bars), for the head-to-head harness (Benchmarks/compare, `--only talib-all`).
struct TABenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ta-bench",
        abstract: "Time every TA-Lib function (TAFunction.compute, defaults) over one long series and over several series.",
        discussion: """
            Shapes: one = the inputs' columns concatenated in input order and cut to --one-size bars, one series; many = the first --count inputs, each cut to --size bars, computed one after another. Protocol of `sentio bench`: inputs built untimed, one untimed warm-up run, then the median of --repeat timed runs; outputs released after the clock is read.
            With --serve the inputs are read once, a line `ready` followed by the names of every function is written, and requests are read from standard input, one per line, `FUNCTION SHAPE` (e.g. `MACD many`), each answered with its JSON line, until end of input: the harness interleaves them with TA-Lib's timings, so that both sides of a row run under the same machine load.
            JSON: one object per line (function, shape, inputs, outputs, bars, repeats, medianSeconds, minSeconds, maxSeconds, checksum = compensated sum of the valid values of every output, bitSums = per output the wrapping UInt64 sum of the values' bit patterns, NaN included, as decimal strings).
            """
    )

    @Option(name: .customLong("input"), help: ArgumentHelp("Bar CSV files (or directories), in order; none: the generated 12-symbol minute market.", valueName: "PATH"))
    var inputs: [String] = []

    @Option(help: ArgumentHelp("TA-Lib function names, comma-separated (default: all).", valueName: "NAMES"))
    var functions: String = ""

    @Option(help: ArgumentHelp("Shapes, comma-separated: one, many.", valueName: "SHAPES"))
    var shapes: String = "one,many"

    @Option(name: .customLong("one-size"), help: ArgumentHelp("Bars of the one-series shape.", valueName: "N"))
    var oneSize: Int = 10_000_000

    @Option(help: ArgumentHelp("Bars per series of the many-series shape.", valueName: "N"))
    var size: Int = 1_000_000

    @Option(help: ArgumentHelp("Series of the many-series shape.", valueName: "N"))
    var count: Int = 12

    @Option(help: ArgumentHelp("Timed runs per function and shape.", valueName: "N"))
    var `repeat`: Int = 5

    @Option(help: ArgumentHelp("Seed of the generated market when no --input is given.", valueName: "S"))
    var seed: UInt64 = 42

    @Flag(help: "Read `FUNCTION SHAPE` requests from standard input, one per line, and answer each with its JSON line.")
    var serve = false

    @Flag(name: .customLong("thread-clock"), help: "Time with the thread's CPU clock instead of the monotonic clock (loaded machines).")
    var threadClock = false

    func validate() throws {
        guard oneSize >= 1, size >= 1 else { throw ValidationError("--one-size and --size must be positive") }
        guard (1...12).contains(count) else { throw ValidationError("--count must be in 1...12, got \(count)") }
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be at least 1") }
    }

    func run() throws {
        let shapeList = try shapes.split(separator: ",").map { name in
            guard let shape = TAHeadToHead.Shape(rawValue: String(name)) else {
                throw DevUsageError("unknown shape '\(name)' (one, many)")
            }
            return shape
        }
        let names = functions.split(separator: ",").map(String.init)
        let inputs = BenchInputs(paths: inputs, seed: seed)
        if serve {
            let session = try TAHeadToHead.Session(
                inputs: inputs, oneSize: shapeList.contains(.one) ? oneSize : 0,
                manySize: shapeList.contains(.many) ? size : 0, count: count)
            print("ready " + TAFunction.all.map(\.name).joined(separator: " "))
            fflush(nil)
            while let line = readLine() {
                let words = line.split(separator: " ")
                guard words.count == 2, let shape = TAHeadToHead.Shape(rawValue: String(words[1])) else {
                    throw DevUsageError("bad request '\(line)' (FUNCTION SHAPE)")
                }
                print(try session.measure(String(words[0]), shape: shape, repeats: `repeat`, threadClock: threadClock).json)
                fflush(nil)
            }
            return
        }
        _ = try TAHeadToHead.run(
            inputs: inputs, functions: names, shapes: shapeList, oneSize: oneSize, manySize: size, count: count,
            repeats: `repeat`, threadClock: threadClock
        ) { row in
            print(row.json)
            fflush(nil)
        }
    }
}
