import Foundation
import SentioBacktest
import SentioCSV
import SentioCore
import SentioData
import SentioFunds
import SentioSignals

// Throughput workloads over the engine's higher modules: XIRR batches (SentioFunds) and backtests
// (SentioBacktest). The work itself is the modules' public API; only inputs and reductions live here.

extension ThroughputWorkloads {
    // MARK: XIRR

    /// Flows per generated series.
    static let xirrFlowsPerSeries = 24

    /// `xirr`: `xirr(batch:threads:)` over `size` series (default Actual/365F, guess 0.1, the module's default
    /// root search). Units: series. Checksum: compensated sum of the rates of the series that have one.
    /// Dump: one rate per series, NaN where the solver reported an error.
    ///
    /// Input: `--input FILE` with header `series,date,amount` (rows grouped by series, dates `YYYY-MM-DD`,
    /// amounts signed), as the head-to-head harness writes it; otherwise `size` generated private-equity-like
    /// series (see `generatedXIRRBatch`).
    static func xirrWorkload(inputs: BenchInputs, size: Int?, threads: Int) throws
        -> (ThroughputWorkload<[Result<XIRRResult, XIRRError>]>, Int)
    {
        let batch: CashFlowBatch
        if let path = inputs.paths.first {
            guard inputs.paths.count == 1 else { throw BenchInputError("--input: the xirr workload reads exactly one file") }
            batch = try readXIRRBatch(path: path)
            if let size, size != batch.count {
                throw BenchInputError("--size \(size) does not match \(path), which has \(batch.count) series")
            }
        } else {
            batch = generatedXIRRBatch(count: size ?? BenchWorkload.xirr.defaultSize, seed: inputs.seed)
        }
        let rates: ([Result<XIRRResult, XIRRError>]) -> [Double] = { results in
            results.map { result in (try? result.get().rate) ?? .nan }
        }
        let workload = ThroughputWorkload<[Result<XIRRResult, XIRRError>]>(
            unit: "series", units: batch.count, run: { xirr(batch: batch, threads: threads) },
            checksum: { compensatedFiniteSum(rates($0)) }, dumpValues: rates)
        return (workload, batch.count)
    }

    /// Reads a `series,date,amount` file into a batch; a bad row names the file, line and field.
    static func readXIRRBatch(path: String) throws -> CashFlowBatch {
        // The shared readers' rules: `TextFile` (clear file errors), `CSVRecords` (RFC 4180 quoting), the one number
        // grammar (`DecimalParser`) and dates in the years 0001-9999.
        let text = try TextFile.read(path)
        let records: [CSVRecords.Record]
        do throws(CSVRecords.Failure) {
            records = try CSVRecords(text: text).records
        } catch {
            throw BenchInputError("\(path):\(error.line): column \(error.error.cell + 1): \(error.error.message)")
        }
        var batch = CashFlowBatch()
        var days: [Int] = [], amounts: [Double] = []
        var currentSeries: String?
        guard let header = records.first, header.cells == ["series", "date", "amount"] else {
            throw BenchInputError("\(path):1: expected the header 'series,date,amount'")
        }
        for record in records.dropFirst() {
            let lineNumber = record.line, fields = record.cells
            guard fields.count == 3 else {
                throw BenchInputError("\(path):\(lineNumber): expected 3 fields (series,date,amount), found \(fields.count)")
            }
            guard let date = CivilDate(iso: fields[1]) else {
                throw BenchInputError("\(path):\(lineNumber): field 'date': \(EchoedText.quoted(fields[1])) is not a date YYYY-MM-DD (years 0001-9999)")
            }
            guard let amount = DecimalParser.parse(fields[2]), amount.isFinite else {
                throw BenchInputError("\(path):\(lineNumber): field 'amount': \(EchoedText.quoted(fields[2])) is not a finite number")
            }
            if let currentSeries, currentSeries != fields[0] {
                batch.append(dayNumbers: days, amounts: amounts)
                days.removeAll(keepingCapacity: true)
                amounts.removeAll(keepingCapacity: true)
            }
            currentSeries = fields[0]
            days.append(date.daysSinceEpoch)
            amounts.append(amount)
        }
        if currentSeries != nil { batch.append(dayNumbers: days, amounts: amounts) }
        guard batch.count > 0 else { throw BenchInputError("\(path): no cash flows") }
        return batch
    }

    /// `count` private-equity-like series of 24 monthly flows, from `seed`: 2–6 capital calls (−1,000 to
    /// −10,000, rounded to cents) then distributions (one month in five zero) scaled to 0.6–2.5× the calls, the
    /// last at least half of a full month's share; first flow on the 1st of a random month of 2000–2019.
    /// The same scheme as the harness's `write_xirr_input` (with a different random stream).
    public static func generatedXIRRBatch(count: Int, seed: UInt64) -> CashFlowBatch {
        var random = Xoshiro256StarStar(seed: seed)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() >> 11) / Double(1 << 53) }
        func cents(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        var batch = CashFlowBatch()
        batch.reserveCapacity(series: count, flows: count * xirrFlowsPerSeries)
        let flows = xirrFlowsPerSeries
        for _ in 0..<count {
            let startMonth = Int(random.next() % 240)
            let start = CivilDate(year: 2000 + startMonth / 12, month: startMonth % 12 + 1, day: 1)!
            let calls = 2 + Int(random.next() % 5)
            var amounts = [Double](repeating: 0, count: flows)
            var paid = 0.0
            for m in 0..<calls {
                amounts[m] = -cents(uniform(1_000, 10_000))
                paid -= amounts[m]
            }
            var raw = (calls..<flows).map { _ in uniform(0, 1) * (uniform(0, 1) > 0.2 ? 1 : 0) }
            raw[raw.count - 1] = max(raw[raw.count - 1], 0.5)
            let total = raw.reduce(0, +), multiple = uniform(0.6, 2.5)
            for (i, x) in raw.enumerated() { amounts[calls + i] = cents(x / total * paid * multiple) }
            batch.append(dayNumbers: (0..<flows).map { start.addingMonths($0).daysSinceEpoch }, amounts: amounts)
        }
        return batch
    }
}

extension ThroughputWorkloads {
    // MARK: Backtests


    /// The bars of a backtest workload: the `--input` files (first `symbols`, each cut to `size` bars) or
    /// `symbols` generated minute series of `size` bars.
    static func backtestSeries(inputs: BenchInputs, symbols: Int, size: Int) throws -> [OHLCVSeries] {
        let series = Array(try inputs.series(generatedSymbols: symbols, generatedBars: size).prefix(symbols))
        for s in series where s.count < size {
            throw BenchInputError("--size \(size): \(s.symbol) has only \(s.count) bars")
        }
        return series.map { $0.prefix(size) }
    }

    /// `backtest-rsi`: the `rsi` strategy (RSI 14, buy < 30, sell > 70) run as
    /// `sentio backtest --strategy rsi --sizing all-in` does, on a market built before timing (in memory):
    /// indicators + decisions + simulation + statistics. All-in sizing for any number of symbols, because that is
    /// the rule the peers (vectorbt's `from_signals`, backtesting.py) can reproduce. Units: bar-cells
    /// (symbols × bars). Checksum: final equity.
    static func backtestRSIWorkload(inputs: BenchInputs, symbols: Int, size: Int) throws
        -> (ThroughputWorkload<BacktestStatistics>, Int)
    {
        let series = try backtestSeries(inputs: inputs, symbols: symbols, size: size)
        let market = try Market(series)
        // `sentio backtest --strategy rsi --sizing all-in`: the request's defaults (capital 100,000, commission 0.1 %,
        // next-open fills, whole shares).
        let configuration = BacktestRequest(strategy: .rsi, sizing: .allIn).configuration(symbolCount: series.count)
        let workload = ThroughputWorkload<BacktestStatistics>(
            unit: "bar-cells", units: series.count * size,
            run: {
                BacktestStatistics(
                    try Backtest(configuration).run(RSIStrategy(), on: market),
                    moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:))
            },
            checksum: { $0.finalEquity })
        return (workload, size)
    }

    /// `backtest-sentio`: the `sentio` strategy (the signal model) end to end as `sentio backtest` runs it,
    /// CSV load included: read the files (concurrently, as the command does), build the market, run, compute the
    /// statistics. Without `--input`, `symbols` generated minute series of `size` bars are written to a temporary
    /// directory first (untimed). Units: bar-cells. Checksum: final equity.
    static func backtestSentioWorkload(inputs: BenchInputs, symbols: Int, size: Int?) throws
        -> (ThroughputWorkload<BacktestStatistics>, Int, generatedDirectory: String?)
    {
        var files = try OHLCVReader.expand(paths: inputs.paths)
        var generatedDirectory: String?
        if files.isEmpty {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-bench-backtest-\(getpid())").path
            files = try MarketGenerator(config: MarketConfig(
                symbols: MarketConfig.firstSymbols(symbols), bars: size ?? BenchWorkload.backtestSentio.defaultSize, frequency: .minute,
                seed: inputs.seed)).write(to: directory)
            generatedDirectory = directory
        }
        files = Array(files.prefix(symbols))
        let probe = try OHLCVReader.readConcurrently(files)
        let bars = probe.map(\.count).min() ?? 0
        if let size, size != bars {
            throw BenchInputError("--size \(size): backtest-sentio runs on whole files, whose shortest has \(bars) bars")
        }
        // `sentio backtest --strategy sentio` with every default (equal weight over the files).
        let configuration = BacktestRequest(strategy: .sentio).configuration(symbolCount: files.count)
        let strategy = try SignalStrategy.sentio(config: SignalModelConfig())
        let cells = probe.reduce(0) { $0 + $1.count }
        let workload = ThroughputWorkload<BacktestStatistics>(
            unit: "bar-cells", units: cells,
            run: {
                let market = try Market(try OHLCVReader.readConcurrently(files))
                return BacktestStatistics(
                    try Backtest(configuration).run(strategy, on: market),
                    moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:))
            },
            checksum: { $0.finalEquity })
        return (workload, bars, generatedDirectory)
    }
}
