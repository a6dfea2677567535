import Foundation
import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Options for reading OHLCV CSV files.
public struct ReadOptions: Sendable, Equatable {
    /// Skip bad rows (and report them) instead of failing on the first one.
    public var lenient: Bool
    /// Symbol to give the series; `nil` takes the file name without its extension (`Data/TQQQ.csv` → `TQQQ`).
    public var symbol: String?

    public init(lenient: Bool = false, symbol: String? = nil) {
        self.lenient = lenient
        self.symbol = symbol
    }
}

/// A row skipped in lenient mode, with the reason.
public struct SkippedRow: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number (the header is line 1).
    public var line: Int
    public var error: CSVError
    public var description: String { error.description }
    /// The description without its `FILE:LINE: ` prefix.
    public var reason: String {
        let text = error.description
        guard let colon = text.range(of: ":\(line): ") else { return text }
        return String(text[colon.upperBound...])
    }
}

/// The result of reading one file: the series and, in lenient mode, every skipped row.
public struct ReadResult: Sendable, Equatable {
    public var series: OHLCVSeries
    /// All rows skipped in lenient mode, in line order, each with its reason (always empty in strict mode).
    public var skipped: [SkippedRow]
    public var skippedCount: Int { skipped.count }
}

/// Reads OHLCV bars from CSV files with a header row.
///
/// Format:
/// - Columns matched by name, case-insensitively, in any order: `timestamp` (or `date`, `datetime`, `time`, or an
///   empty first header cell as pandas writes for its index), `open`, `high`, `low`, `close`, `volume`. Other
///   columns are ignored. Cells and quoting follow `CSVTokenizer` (RFC 4180: after a closing quote only spaces
///   then `,` or the line end; quoted cells may not contain line breaks); CRLF or LF line ends, an optional
///   UTF-8 byte-order mark, optional final newline; blank lines are skipped.
/// - Timestamps: see ``TimestampParser`` (years 0001–9999 only). Stored as UTC epoch seconds.
/// - Numbers: the grammar of `DecimalParser` (decimal, optional sign and exponent), parsed exactly.
///
/// Validation (each error names file, line and field, see ``CSVError``): quoting, column count, numbers and dates
/// parse, finite numbers, prices > 0, `high ≥ low`, `high ≥ max(open, close)`, `low ≤ min(open, close)`,
/// volume ≥ 0, strictly increasing timestamps, at least one row. Strict mode throws the first error.
///
/// Lenient mode skips every row that fails a per-row check, then keeps the largest set of the remaining rows
/// whose timestamps strictly increase (a longest increasing subsequence; among several, the one that prefers
/// earlier lines, see `LongestIncreasingSubsequence`) and skips the others, so one misplaced row never costs
/// more than itself. Every skipped row is listed in ``ReadResult/skipped`` with its reason, in line order.
public enum OHLCVReader {
    /// Reads one file and returns its series (lenient-mode skips are dropped; use ``readWithReport(path:options:)``
    /// to see them).
    public static func read(path: String, options: ReadOptions = .init()) throws(CSVError) -> OHLCVSeries {
        try readWithReport(path: path, options: options).series
    }

    /// Reads one file and returns the series with the lenient-mode report.
    public static func readWithReport(path: String, options: ReadOptions = .init()) throws(CSVError) -> ReadResult {
        let symbol = options.symbol ?? symbolFromPath(path)
        return try withFileBytes(path) { (buffer) throws(CSVError) -> ReadResult in
            try parse(buffer, file: path, symbol: symbol, lenient: options.lenient)
        }
    }

    /// Parses CSV text held in memory; `file` is used in error messages only.
    public static func parse(
        text: String, file: String = "<memory>", symbol: String = "", options: ReadOptions = .init()
    ) throws(CSVError) -> ReadResult {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CSVError) -> ReadResult in
            try parse(buffer, file: file, symbol: options.symbol ?? symbol, lenient: options.lenient)
        }
    }

    /// Reads several inputs; a directory is expanded to its `*.csv` files sorted by symbol.
    ///
    /// - Throws: ``CSVError/noCSVFiles(directory:)`` for a directory without CSV files, or the first file's error.
    public static func readAll(paths: [String], options: ReadOptions = .init()) throws(CSVError) -> [OHLCVSeries] {
        try readAllWithReports(paths: paths, options: options).map(\.series)
    }

    /// As ``readAll(paths:options:)``, keeping each file's lenient-mode report. Each series' symbol comes from its
    /// file name (`options.symbol` is ignored here).
    public static func readAllWithReports(
        paths: [String], options: ReadOptions = .init()
    ) throws(CSVError) -> [ReadResult] {
        var results: [ReadResult] = []
        for path in try expand(paths: paths) {
            var fileOptions = options
            fileOptions.symbol = nil
            results.append(try readWithReport(path: path, options: fileOptions))
        }
        return results
    }

    /// Reads every `SYMBOL.csv` in `directory`, sorted by symbol.
    public static func readDirectory(_ directory: String, options: ReadOptions = .init()) throws(CSVError) -> [OHLCVSeries] {
        try readAll(paths: [directory], options: options)
    }

    /// The files `paths` stand for: files as given, directories replaced by their `.csv` files sorted by symbol.
    public static func expand(paths: [String]) throws(CSVError) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(file: path, reason: "no such file or directory")
            }
            if !isDirectory.boolValue {
                files.append(path)
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw .unreadable(file: path, reason: "cannot list directory")
            }
            let csvs = names.filter { $0.lowercased().hasSuffix(".csv") && !$0.hasPrefix(".") }
                .sorted { symbolFromPath($0) < symbolFromPath($1) }
            guard !csvs.isEmpty else { throw .noCSVFiles(directory: path) }
            let base = path.hasSuffix("/") ? path : path + "/"
            files.append(contentsOf: csvs.map { base + $0 })
        }
        return files
    }

    /// `dir/TQQQ.csv` → `TQQQ`.
    public static func symbolFromPath(_ path: String) -> String {
        var name = Substring(path)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name)
    }

    /// Calls `body` with the file's bytes, memory-mapped read-only (no copy; pages come from the page cache).
    static func withFileBytes<R>(
        _ path: String, _ body: (UnsafeBufferPointer<UInt8>) throws(CSVError) -> R
    ) throws(CSVError) -> R {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .unreadable(file: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw .unreadable(file: path, reason: "is a directory") }
        let size = Int(status.st_size)
        if size == 0 { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        guard let mapped = mmap(nil, size, PROT_READ, flags, descriptor, 0), mapped != MAP_FAILED else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        defer { munmap(mapped, size) }
        return try body(UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size))
    }

    // MARK: - Parsing

    /// Canonical names of the required fields, in the order of `FieldIndex`.
    static let requiredNames = ["timestamp", "open", "high", "low", "close", "volume"]

    /// The bytes `[start, end)` as shown in an error message (see `EchoedText`).
    static func text(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        EchoedText.show(bytes: UnsafeBufferPointer(rebasing: b[start..<max(start, end)]))
    }

    /// Parses a whole CSV buffer.
    ///
    /// In strict mode a file of several megabytes is split at line ends into one part per core, the parts are
    /// parsed in parallel and their seams checked (timestamps strictly increasing across parts); the result
    /// and every error (message, line number) are those of reading the file front to back.
    public static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, symbol: String, lenient: Bool
    ) throws(CSVError) -> ReadResult {
        try parse(
            buffer, file: file, symbol: symbol, lenient: lenient, parts: defaultParts,
            minimumPartBytes: defaultMinimumPartBytes
        ).result
    }

    /// ``parse(_:file:symbol:lenient:)`` with an explicit number of parts (1: serial) and minimum part size;
    /// `parallel` tells whether the result came from the parallel parts (for tests).
    static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, symbol: String, lenient: Bool, parts parallelParts: Int,
        minimumPartBytes: Int
    ) throws(CSVError) -> (result: ReadResult, parallel: Bool) {
        guard let b = buffer.baseAddress, buffer.count > 0 else { throw .emptyFile(file: file) }
        let n = buffer.count
        var pos = CSVTokenizer.firstLineStart(buffer)

        // Header: the first non-blank line.
        var lineNumber = 0
        var header: (start: Int, end: Int) = (0, 0)
        var foundHeader = false
        while pos < n {
            header = CSVTokenizer.nextLine(b, count: n, position: &pos)
            lineNumber += 1
            if !CSVTokenizer.isBlank(b, from: header.start, to: header.end) { foundHeader = true; break }
        }
        guard foundHeader else { throw .emptyFile(file: file) }
        let headerLine = lineNumber

        var headerStarts = [Int](repeating: 0, count: 4096)
        var headerEnds = [Int](repeating: 0, count: 4096)
        let columnCount: Int
        do throws(CSVSyntaxError) {
            columnCount = try headerStarts.withUnsafeMutableBufferPointer { (s) throws(CSVSyntaxError) -> Int in
                try headerEnds.withUnsafeMutableBufferPointer { (e) throws(CSVSyntaxError) -> Int in
                    try CSVTokenizer.splitLine(
                        b, from: header.start, to: header.end, readableEnd: n, starts: s.baseAddress!,
                        ends: e.baseAddress!, capacity: 4096)
                }
            }
        } catch {
            throw .syntax(file: file, line: headerLine, column: error.cell + 1, field: nil, message: error.message)
        }
        let headerNames = (0..<min(columnCount, 4096)).map {
            CSVTokenizer.unescapedString(b, from: headerStarts[$0], to: headerEnds[$0], lineStart: header.start)
        }
        let lowered = headerNames.map { $0.lowercased() }
        // The header cells as messages show them: escaped from the raw bytes (an invalid byte shows as \xNN).
        let shownNames = (0..<min(columnCount, 4096)).map { text(buffer, headerStarts[$0], headerEnds[$0]) }

        // Column of each required field.
        var columnOf = [Int](repeating: -1, count: 6)
        for (j, name) in lowered.enumerated() {
            let field: Int?
            switch name {
            case "timestamp", "date", "datetime", "time": field = 0
            case "open": field = 1
            case "high": field = 2
            case "low": field = 3
            case "close": field = 4
            case "volume": field = 5
            default: field = nil
            }
            guard let field else { continue }
            if columnOf[field] >= 0 {
                let first = columnOf[field]
                throw .syntax(
                    file: file, line: headerLine, column: j + 1, field: requiredNames[field],
                    message: "two columns give it (\(EchoedText.quoted(shownNames[first])) in column \(first + 1) and "
                        + "\(EchoedText.quoted(shownNames[j])) in column \(j + 1)); keep one")
            }
            columnOf[field] = j
        }
        if columnOf[0] < 0, let first = lowered.first, first.isEmpty || first == "unnamed: 0" { columnOf[0] = 0 }
        for field in 0..<6 where columnOf[field] < 0 {
            throw .missingColumn(file: file, column: requiredNames[field], header: shownNames)
        }
        let fieldNames = (0..<6).map {
            headerNames[columnOf[$0]].isEmpty ? "timestamp" : shownNames[columnOf[$0]]
        }
        let layout = RowLayout(
            file: file, columnCount: columnCount, timestampColumn: columnOf[0], openColumn: columnOf[1],
            highColumn: columnOf[2], lowColumn: columnOf[3], closeColumn: columnOf[4], volumeColumn: columnOf[5],
            fieldNames: fieldNames, shownNames: shownNames)
        // Rough row estimate from the header length keeps reallocation rare.
        let rowEstimate = max(16, (n - pos) / max(24, (header.end - header.start)))

        // Strict mode on a large file: parse parts in parallel (identical result, or fall back to the serial
        // reader for the exact first error).
        let parts = lenient ? 1 : min(parallelParts, (n - pos) / max(1, minimumPartBytes))
        if parts >= 2, let series = parseInParts(
            buffer, from: pos, lineNumber: lineNumber, parts: parts, layout: layout, symbol: symbol,
            rowEstimate: rowEstimate)
        {
            return (ReadResult(series: series, skipped: []), true)
        }

        let rows = try parseRows(
            buffer, from: pos, to: n, lineNumber: lineNumber, layout: layout, symbol: symbol, lenient: lenient,
            rowEstimate: rowEstimate)
        var series = rows.series
        var skipped = rows.skipped
        let candidateLines = rows.candidateLines
        let candidateCells = rows.candidateCells
        if lenient {
            let kept = LongestIncreasingSubsequence.indices(series.timestamps)
            if kept.count < series.count {
                let t = series.timestamps
                var next = 0  // position in `kept` of the first kept row after the current one
                for index in 0..<t.count {
                    if next < kept.count, kept[next] == index { next += 1; continue }
                    let cell = candidateCells[index]
                    let value = text(buffer, cell.start, cell.end)
                    let error: CSVError
                    // A dropped row clashes with its kept neighbour before or after it (else the kept set would
                    // not be longest).
                    if next > 0, t[kept[next - 1]] >= t[index] {
                        let other = kept[next - 1]
                        error = .nonIncreasingTimestamp(
                            file: file, line: candidateLines[index], field: fieldNames[0], value: value,
                            previousLine: candidateLines[other],
                            previousValue: text(buffer, candidateCells[other].start, candidateCells[other].end),
                            duplicate: t[other] == t[index])
                    } else {
                        let other = kept[next]
                        error = .notBeforeLaterRow(
                            file: file, line: candidateLines[index], field: fieldNames[0], value: value,
                            laterLine: candidateLines[other],
                            laterValue: text(buffer, candidateCells[other].start, candidateCells[other].end),
                            duplicate: t[other] == t[index])
                    }
                    skipped.append(SkippedRow(line: candidateLines[index], error: error))
                }
                var filtered = OHLCVSeries(symbol: symbol)
                filtered.reserveCapacity(kept.count)
                for index in kept {
                    filtered.timestamps.append(series.timestamps[index])
                    filtered.open.append(series.open[index])
                    filtered.high.append(series.high[index])
                    filtered.low.append(series.low[index])
                    filtered.close.append(series.close[index])
                    filtered.volume.append(series.volume[index])
                }
                series = filtered
                skipped.sort { $0.line < $1.line }
            }
        }
        if series.isEmpty { throw .noRows(file: file, skipped: skipped.count) }
        return (ReadResult(series: series, skipped: skipped), false)
    }

    /// Where the required fields are, and how errors name them.
    struct RowLayout: Sendable {
        var file: String
        var columnCount: Int
        var timestampColumn: Int, openColumn: Int, highColumn: Int, lowColumn: Int, closeColumn: Int, volumeColumn: Int
        /// Names of the six fields as errors show them.
        var fieldNames: [String]
        /// Every header cell as errors show it.
        var shownNames: [String]

        func columnName(_ cell: Int) -> String? {
            cell < shownNames.count && !shownNames[cell].isEmpty ? shownNames[cell] : nil
        }
    }

    /// The rows of `[start, end)` (whole lines) and, in lenient mode, what the order check needs.
    struct ParsedRows {
        var series: OHLCVSeries
        var skipped: [SkippedRow]
        var candidateLines: [Int]
        var candidateCells: [(start: Int, end: Int)]
    }

    /// Parts the strict reader splits a file into (one per core).
    static let defaultParts = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Below this many bytes per part a file is read serially (the threads would cost more than they save).
    static let defaultMinimumPartBytes = 1 << 20

    /// Parses the rows of `[start, buffer.count)` in `parts` parts, split at line ends, in parallel.
    ///
    /// Each part is read by the strict row loop; then the seams are checked (timestamps strictly increase from
    /// each part's last row to the next non-empty part's first row). Returns `nil` when any part fails, a seam
    /// is out of order or duplicated, or there are no rows: the caller then reads the file serially, so errors
    /// (messages and line numbers) are exactly the serial reader's.
    static func parseInParts(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, lineNumber: Int, parts: Int, layout: RowLayout,
        symbol: String, rowEstimate: Int
    ) -> OHLCVSeries? {
        let b = buffer.baseAddress!, n = buffer.count
        var bounds = [start]
        for k in 1..<parts {
            let target = max(bounds[k - 1], start + (n - start) / parts * k)
            if target >= n { bounds.append(n); continue }
            if let found = memchr(b + target, 10, n - target) {
                bounds.append(b.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1)
            } else {
                bounds.append(n)
            }
        }
        bounds.append(n)
        let partBounds = bounds
        nonisolated(unsafe) var results = [Result<ParsedRows, CSVError>?](repeating: nil, count: parts)
        nonisolated(unsafe) let shared = buffer
        results.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: parts) { k in
                // Each task writes only its own slot. Line numbers past the first part are relative: they are
                // never shown, because any error sends the caller to the serial reader.
                let estimate = k == 0 ? rowEstimate : rowEstimate / parts + 16
                slots[k] = Result { () throws(CSVError) -> ParsedRows in
                    try parseRows(
                        shared, from: partBounds[k], to: partBounds[k + 1], lineNumber: k == 0 ? lineNumber : 0,
                        layout: layout, symbol: symbol, lenient: false, rowEstimate: estimate)
                }
            }
        }
        var pieces: [OHLCVSeries] = []
        var last = Int64.min
        var total = 0
        for result in results {
            guard case .success(let rows) = result! else { return nil }
            guard let first = rows.series.timestamps.first else { continue }
            if first <= last { return nil }
            last = rows.series.timestamps.last!
            total += rows.series.count
            pieces.append(rows.series)
        }
        guard total > 0 else { return nil }
        var series = pieces[0]
        series.reserveCapacity(total)
        for piece in pieces.dropFirst() {
            series.timestamps.append(contentsOf: piece.timestamps)
            series.open.append(contentsOf: piece.open)
            series.high.append(contentsOf: piece.high)
            series.low.append(contentsOf: piece.low)
            series.close.append(contentsOf: piece.close)
            series.volume.append(contentsOf: piece.volume)
        }
        return series
    }

    /// The row loop: parses the whole lines of `[start, end)`; `lineNumber` is the line before `start`.
    /// Strict mode throws the first error; lenient mode collects skipped rows and the candidates of the
    /// order check.
    static func parseRows(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, lineNumber firstLineNumber: Int,
        layout: RowLayout, symbol: String, lenient: Bool, rowEstimate: Int
    ) throws(CSVError) -> ParsedRows {
        let b = buffer.baseAddress!, n = buffer.count
        let file = layout.file, columnCount = layout.columnCount, fieldNames = layout.fieldNames
        let timestampColumn = layout.timestampColumn, openColumn = layout.openColumn, highColumn = layout.highColumn
        let lowColumn = layout.lowColumn, closeColumn = layout.closeColumn, volumeColumn = layout.volumeColumn
        func columnName(_ cell: Int) -> String? { layout.columnName(cell) }
        var pos = start
        var lineNumber = firstLineNumber
        var series = OHLCVSeries(symbol: symbol)
        series.reserveCapacity(rowEstimate)
        var skipped: [SkippedRow] = []
        var lastTimestamp = Int64.min
        var lastLine = 0
        var lastTimestampCell = (start: 0, end: 0)
        var dateCache = TimestampParser.DateCache()
        // Lenient mode: every row that passes the per-row checks, in file order, with its line and timestamp cell;
        // the order of timestamps is settled afterwards (longest increasing subsequence).
        var candidateLines: [Int] = []
        var candidateCells: [(start: Int, end: Int)] = []

        var starts = [Int](repeating: 0, count: columnCount)
        var ends = [Int](repeating: 0, count: columnCount)
        // Accepted rows are staged in a small block (L1/L2-resident) and appended to the series' six arrays
        // a block at a time: one bulk copy per column instead of six capacity and uniqueness checks per row.
        var block = BarBlock()
        defer { block.deallocate() }
        try starts.withUnsafeMutableBufferPointer { (startsBuffer) throws(CSVError) in
            try ends.withUnsafeMutableBufferPointer { (endsBuffer) throws(CSVError) in
                let s = startsBuffer.baseAddress!, e = endsBuffer.baseAddress!

                while pos < end {
                    let (lineStart, lineEnd) = CSVTokenizer.nextLine(b, count: end, position: &pos)
                    lineNumber += 1
                    if CSVTokenizer.isBlank(b, from: lineStart, to: lineEnd) { continue }
                    let line = lineNumber
                    do throws(CSVError) {
                        let found: Int
                        do throws(CSVSyntaxError) {
                            found = try CSVTokenizer.splitLine(
                                b, from: lineStart, to: lineEnd, readableEnd: n, starts: s, ends: e, capacity: columnCount,
                                rejectQuotesInUnquotedCells: false)
                        } catch {
                            throw .syntax(
                                file: file, line: line, column: error.cell + 1, field: columnName(error.cell),
                                message: error.message)
                        }
                        if found != columnCount {
                            throw .wrongColumnCount(file: file, line: line, expected: columnCount, found: found)
                        }
                        let timestamp: Int64
                        switch TimestampParser.parse(
                            b + s[timestampColumn], count: e[timestampColumn] - s[timestampColumn], cache: &dateCache)
                        {
                        case .success(let t): timestamp = t
                        case .failure(let failure):
                            throw .invalidTimestamp(
                                file: file, line: line, field: fieldNames[0],
                                value: text(buffer, s[timestampColumn], e[timestampColumn]), reason: failure.reason)
                        }
                        // The hot path is one inlined parse and a finiteness test per cell; errors are built out of line.
                        guard let open = finiteNumber(b, s[openColumn], e[openColumn], n) else {
                            throw numberError(buffer, s[openColumn], e[openColumn], file: file, line: line, field: fieldNames[1])
                        }
                        guard let high = finiteNumber(b, s[highColumn], e[highColumn], n) else {
                            throw numberError(buffer, s[highColumn], e[highColumn], file: file, line: line, field: fieldNames[2])
                        }
                        guard let low = finiteNumber(b, s[lowColumn], e[lowColumn], n) else {
                            throw numberError(buffer, s[lowColumn], e[lowColumn], file: file, line: line, field: fieldNames[3])
                        }
                        guard let close = finiteNumber(b, s[closeColumn], e[closeColumn], n) else {
                            throw numberError(buffer, s[closeColumn], e[closeColumn], file: file, line: line, field: fieldNames[4])
                        }
                        guard let volume = finiteNumber(b, s[volumeColumn], e[volumeColumn], n) else {
                            throw numberError(buffer, s[volumeColumn], e[volumeColumn], file: file, line: line, field: fieldNames[5])
                        }
                        try checkBarValues(
                            open: open, high: high, low: low, close: close, volume: volume, file: file, line: line,
                            fieldNames: fieldNames)
                        if lenient {
                            candidateLines.append(line)
                            candidateCells.append((s[timestampColumn], e[timestampColumn]))
                        } else {
                            if timestamp <= lastTimestamp {
                                throw .nonIncreasingTimestamp(
                                    file: file, line: line, field: fieldNames[0],
                                    value: text(buffer, s[timestampColumn], e[timestampColumn]), previousLine: lastLine,
                                    previousValue: text(buffer, lastTimestampCell.start, lastTimestampCell.end),
                                    duplicate: timestamp == lastTimestamp)
                            }
                            lastTimestamp = timestamp
                            lastLine = line
                            lastTimestampCell = (s[timestampColumn], e[timestampColumn])
                        }
                        block.append(timestamp: timestamp, open: open, high: high, low: low, close: close, volume: volume)
                        if block.isFull { block.flush(into: &series) }
                    } catch {
                        if !lenient { throw error }
                        skipped.append(SkippedRow(line: line, error: error))
                    }
                }
            }
        }
        block.flush(into: &series)
        return ParsedRows(
            series: series, skipped: skipped, candidateLines: candidateLines, candidateCells: candidateCells)
    }

    /// A fixed-size staging area for accepted bars (struct of arrays, like `OHLCVSeries`).
    struct BarBlock {
        static let capacity = 1024
        let timestamps = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
        let open = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        let high = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        let low = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        let close = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        let volume = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        var count = 0

        var isFull: Bool { count == Self.capacity }

        @inline(__always)
        mutating func append(timestamp: Int64, open o: Double, high h: Double, low l: Double, close c: Double, volume v: Double) {
            timestamps[count] = timestamp
            open[count] = o
            high[count] = h
            low[count] = l
            close[count] = c
            volume[count] = v
            count += 1
        }

        mutating func flush(into series: inout OHLCVSeries) {
            guard count > 0 else { return }
            series.timestamps.append(contentsOf: UnsafeBufferPointer(start: timestamps, count: count))
            series.open.append(contentsOf: UnsafeBufferPointer(start: open, count: count))
            series.high.append(contentsOf: UnsafeBufferPointer(start: high, count: count))
            series.low.append(contentsOf: UnsafeBufferPointer(start: low, count: count))
            series.close.append(contentsOf: UnsafeBufferPointer(start: close, count: count))
            series.volume.append(contentsOf: UnsafeBufferPointer(start: volume, count: count))
            count = 0
        }

        func deallocate() {
            timestamps.deallocate()
            open.deallocate()
            high.deallocate()
            low.deallocate()
            close.deallocate()
            volume.deallocate()
        }
    }

    /// The finite number in `[start, end)`, or `nil` (not a number of the grammar, or not finite).
    @inline(__always)
    static func finiteNumber(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ n: Int) -> Double? {
        guard let value = DecimalParser.parse(b + start, count: end - start, readable: n - start), value.isFinite else {
            return nil
        }
        return value
    }

    /// Why `[start, end)` is not a finite number (called only on the error path).
    @inline(never)
    static func numberError(
        _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, file: String, line: Int, field: String
    ) -> CSVError {
        let count = end - start
        if let value = DecimalParser.parse(buffer.baseAddress! + start, count: count), !value.isFinite {
            return .notFinite(file: file, line: line, field: field, value: text(buffer, start, end))
        }
        return badNumber(buffer, start, end, file: file, line: line, field: field)
    }

    @inline(never)
    static func badNumber(
        _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, file: String, line: Int, field: String
    ) -> CSVError {
        let value = text(buffer, start, end)
        if DecimalParser.spellsNonFinite(value) { return .notFinite(file: file, line: line, field: field, value: value) }
        return .invalidNumber(file: file, line: line, field: field, value: value)
    }
}
