import Dispatch
import Foundation
import SentioCore

/// Many independent cash-flow series in one contiguous layout (struct of arrays): the flows of series
/// `k` are `dayNumbers[offsets[k]..<offsets[k+1]]` (days since 1970-01-01) and the same range of `amounts`.
public struct CashFlowBatch: Sendable {
    public private(set) var dayNumbers: [Int] = []
    public private(set) var amounts: [Double] = []
    public private(set) var offsets: [Int] = [0]

    public init() {}

    /// Number of series.
    public var count: Int { offsets.count - 1 }

    /// Appends one series.
    public mutating func append(_ flows: some Sequence<CashFlow>) {
        for f in flows {
            dayNumbers.append(f.date.daysSinceEpoch)
            amounts.append(f.amount)
        }
        offsets.append(amounts.count)
    }

    /// Appends one series given as parallel arrays of day numbers and amounts.
    public mutating func append(dayNumbers days: [Int], amounts values: [Double]) {
        precondition(days.count == values.count, "dayNumbers and amounts must have the same length")
        dayNumbers.append(contentsOf: days)
        amounts.append(contentsOf: values)
        offsets.append(amounts.count)
    }

    /// Reserves room for `series` series of `flows` flows in all.
    public mutating func reserveCapacity(series: Int, flows: Int) {
        dayNumbers.reserveCapacity(flows)
        amounts.reserveCapacity(flows)
        offsets.reserveCapacity(series + 1)
    }
}

/// XIRR of every series in `batch`, spread over `threads` threads.
///
/// Each series is solved exactly as `xirr(flows:...)` solves it (same kernel, same root rule, same
/// certificate: every rate returned leaves `|XNPV| ≤ 1e-9 · Σ|flows|`; zero amounts are dropped and the
/// flows sorted by date and amount, so the result does not depend on row order). The series
/// are cut into contiguous chunks run by `DispatchQueue.concurrentPerform`; each chunk reuses one
/// workspace for the sorted year fractions, so the hot loop does not allocate.
/// - Parameters:
///   - batch: the series, each solved as `xirr(flows:dayCount:guess:tolerance:maxIterations:rootSearch:)` solves
///     its `flows`.
///   - dayCount: year-fraction convention (default Actual/365 Fixed).
///   - guess: Newton's start and the reference for choosing among roots (default 0.1).
///   - tolerance: convergence on the rate: `|Δr| ≤ tolerance · max(1, |r|)` (default 1e-12).
///   - maxIterations: cap on Newton and on each Brent solve (default 100).
///   - rootSearch: `.full` (default) or `.newtonFirst`.
///   - threads: worker threads (default: the active processor count); 1 runs on the calling thread.
/// - Returns: one result per series, in order: the `XIRRResult` or the `XIRRError` of that series.
public func xirr(
    batch: CashFlowBatch, dayCount: DayCount = .actual365Fixed, guess: Double = 0.1, tolerance: Double = 1e-12,
    maxIterations: Int = 100, rootSearch: XIRRRootSearch = .full,
    threads: Int = ProcessInfo.processInfo.activeProcessorCount
) -> [Result<XIRRResult, XIRRError>] {
    let settings = XIRRSettings(
        dayCount: dayCount, guess: guess, tolerance: tolerance, maxIterations: maxIterations, rootSearch: rootSearch)
    let seriesCount = batch.count
    var results = [Result<XIRRResult, XIRRError>](repeating: .failure(.noFlows), count: seriesCount)
    guard seriesCount > 0 else { return results }
    let longest = (0..<seriesCount).reduce(0) { max($0, batch.offsets[$1 + 1] - batch.offsets[$1]) }
    let workers = max(1, min(threads, seriesCount))
    // A few chunks per worker balance uneven series lengths without much scheduling overhead.
    let chunks = workers == 1 ? 1 : min(seriesCount, workers * 8)
    batch.dayNumbers.withUnsafeBufferPointer { days in
        batch.amounts.withUnsafeBufferPointer { amounts in
            batch.offsets.withUnsafeBufferPointer { offsets in
                results.withUnsafeMutableBufferPointer { output in
                    let view = BatchView(days: days, amounts: amounts, offsets: offsets, output: output)
                    let solveChunk: @Sendable (Int) -> Void = { chunk in
                        var workspace = XIRRWorkspace(capacity: longest)
                        let start = seriesCount * chunk / chunks, end = seriesCount * (chunk + 1) / chunks
                        for k in start..<end {
                            let range = view.offsets[k]..<view.offsets[k + 1]
                            let d = UnsafeBufferPointer(rebasing: view.days[range])
                            let a = UnsafeBufferPointer(rebasing: view.amounts[range])
                            do throws(XIRRError) {
                                view.output[k] = .success(try workspace.solve(days: d, amounts: a, settings: settings))
                            } catch {
                                view.output[k] = .failure(error)
                            }
                        }
                    }
                    if chunks == 1 {
                        solveChunk(0)
                    } else {
                        DispatchQueue.concurrentPerform(iterations: chunks, execute: solveChunk)
                    }
                }
            }
        }
    }
    return results
}

/// Borrowed views of a batch and its output for the worker threads. Each chunk writes only its own
/// disjoint range of `output`, and the inputs are read-only, so sharing them is race-free.
private struct BatchView: @unchecked Sendable {
    let days: UnsafeBufferPointer<Int>
    let amounts: UnsafeBufferPointer<Double>
    let offsets: UnsafeBufferPointer<Int>
    let output: UnsafeMutableBufferPointer<Result<XIRRResult, XIRRError>>
}
