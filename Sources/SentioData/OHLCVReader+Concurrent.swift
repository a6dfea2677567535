import Foundation
import SentioCore

extension OHLCVReader {
    /// Reads CSV files on all cores, one file per task, and returns the series in file order.
    ///
    /// Each series' symbol comes from its file name (as in ``readAll(paths:options:)``); `options.symbol` is
    /// ignored. The result equals reading the files one after another: when several files fail, the error of
    /// the first failing file in file order is thrown.
    ///
    /// - Throws: ``CSVError`` of the first failing file (by file order).
    public static func readConcurrently(_ files: [String], options: ReadOptions = .init()) throws(CSVError) -> [OHLCVSeries] {
        try readConcurrentlyWithReports(files, options: options).map(\.series)
    }

    /// As ``readConcurrently(_:options:)``, keeping each series' report (adjustment, notes, skipped rows); a
    /// long-form file gives one result per symbol, in place.
    public static func readConcurrentlyWithReports(
        _ files: [String], options: ReadOptions = .init()
    ) throws(CSVError) -> [ReadResult] {
        nonisolated(unsafe) var results = [Result<[ReadResult], CSVError>?](repeating: nil, count: files.count)
        results.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: files.count) { i in
                // Each task writes only its own slot.
                var fileOptions = options
                fileOptions.symbol = nil
                slots[i] = Result { () throws(CSVError) -> [ReadResult] in try readResults(path: files[i], options: fileOptions) }
            }
        }
        var all: [ReadResult] = []
        all.reserveCapacity(files.count)
        for result in results { all.append(contentsOf: try result!.get()) }
        return all
    }
}
