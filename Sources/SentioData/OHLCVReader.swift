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
}

/// The result of reading one file: the series and, in lenient mode, every skipped row.
public struct ReadResult: Sendable, Equatable {
    public var series: OHLCVSeries
    /// All rows skipped in lenient mode, in file order (always empty in strict mode).
    public var skipped: [SkippedRow]
    public var skippedCount: Int { skipped.count }
}

/// Reads OHLCV bars from CSV files with a header row.
///
/// Format:
/// - Columns matched by name, case-insensitively, in any order: `timestamp` (or `date`, `datetime`, `time`, or an
///   empty first header cell as pandas writes for its index), `open`, `high`, `low`, `close`, `volume`. Other
///   columns are ignored. Cells may be double-quoted and surrounded by spaces; CRLF or LF line ends, an optional
///   UTF-8 byte-order mark, optional final newline; blank lines are skipped. Quoted cells may not contain
///   line breaks.
/// - Timestamps: see ``TimestampParser``. Stored as UTC epoch seconds.
/// - Numbers: decimal with optional exponent, parsed exactly (see ``DecimalParser``).
///
/// Validation (each error names file, line and field, see ``CSVError``): column count, numbers and dates parse,
/// finite numbers, prices ≥ 0, `high ≥ low`, `high ≥ max(open, close)`, `low ≤ min(open, close)`, volume ≥ 0,
/// strictly increasing timestamps, at least one row. Strict mode throws the first error; lenient mode skips bad
/// rows (a timestamp is compared with the last *accepted* row) and lists them in ``ReadResult/skipped``.
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

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c <= 32 && (c == 32 || c == 9) }

    /// Index of the first `,` in `[start, end)`, or `end`. Scans 8 bytes at a time (SWAR zero-byte test on
    /// `word XOR 0x2C2C…`: the lowest flagged byte is exactly the first comma on little-endian machines).
    /// Words may extend past `end` up to `readableEnd` (the end of the buffer), so a short last cell needs
    /// no byte loop; a comma found at or past `end` counts as none.
    @inline(__always)
    static func firstComma(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int, readableEnd: Int) -> Int {
        var j = start
        let raw = UnsafeRawPointer(b)
        while j < end && j + 8 <= readableEnd {
            let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: j, as: UInt64.self)) ^ 0x2C2C_2C2C_2C2C_2C2C
            let found = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if found != 0 { return min(j + found.trailingZeroBitCount >> 3, end) }
            j += 8
        }
        // Fewer than 8 readable bytes left in the buffer (or none left before `end`).
        j = min(j, end)
        while j < end, b[j] != UInt8(ascii: ",") { j += 1 }
        return j
    }

    /// Splits one line into cells, trimming spaces and quotes; returns the number of cells found. Bounds for the
    /// first `starts.count` cells are stored in `starts`/`ends`.
    @inline(__always)
    static func splitCells(
        _ b: UnsafePointer<UInt8>, from lineStart: Int, to lineEnd: Int, readableEnd: Int,
        starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>, capacity: Int
    ) -> Int {
        var cell = 0
        var i = lineStart
        while true {
            var s = i
            while s < lineEnd, isSpace(b[s]) { s += 1 }
            var e: Int
            var next: Int
            if s < lineEnd, b[s] == UInt8(ascii: "\"") {
                var j = s + 1
                while j < lineEnd {
                    if b[j] == UInt8(ascii: "\"") {
                        if j + 1 < lineEnd, b[j + 1] == UInt8(ascii: "\"") { j += 2; continue }
                        break
                    }
                    j += 1
                }
                e = j
                s += 1
                next = j
                while next < lineEnd, b[next] != UInt8(ascii: ",") { next += 1 }
            } else {
                let j = firstComma(b, from: s, to: lineEnd, readableEnd: readableEnd)
                next = j
                e = j
                while e > s, isSpace(b[e - 1]) { e -= 1 }
            }
            if cell < capacity {
                starts[cell] = s
                ends[cell] = e
            }
            cell += 1
            if next >= lineEnd { return cell }
            i = next + 1
        }
    }

    static func text(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[start..<max(start, end)]), as: UTF8.self)
    }

    /// Parses a whole CSV buffer.
    public static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, symbol: String, lenient: Bool
    ) throws(CSVError) -> ReadResult {
        guard let b = buffer.baseAddress, buffer.count > 0 else { throw .emptyFile(file: file) }
        let n = buffer.count
        var pos = 0
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { pos = 3 }

        /// The next line's [start, end) without its line break; advances `pos`.
        @inline(__always)
        func nextLine(_ pos: inout Int) -> (Int, Int) {
            let start = pos
            var end: Int
            if let found = memchr(b + start, 10, n - start) {
                end = b.distance(to: found.assumingMemoryBound(to: UInt8.self))
                pos = end + 1
            } else {
                end = n
                pos = n
            }
            if end > start, b[end - 1] == 13 { end -= 1 }
            return (start, end)
        }
        @inline(__always)
        func isBlank(_ start: Int, _ end: Int) -> Bool {
            var k = start
            while k < end, isSpace(b[k]) { k += 1 }
            return k == end
        }

        // Header: the first non-blank line.
        var lineNumber = 0
        var header: (Int, Int) = (0, 0)
        var foundHeader = false
        while pos < n {
            header = nextLine(&pos)
            lineNumber += 1
            if !isBlank(header.0, header.1) { foundHeader = true; break }
        }
        guard foundHeader else { throw .emptyFile(file: file) }

        var headerStarts = [Int](repeating: 0, count: 4096)
        var headerEnds = [Int](repeating: 0, count: 4096)
        let columnCount = headerStarts.withUnsafeMutableBufferPointer { s in
            headerEnds.withUnsafeMutableBufferPointer { e in
                splitCells(
                    b, from: header.0, to: header.1, readableEnd: n, starts: s.baseAddress!, ends: e.baseAddress!,
                    capacity: 4096)
            }
        }
        let headerNames = (0..<min(columnCount, 4096)).map { text(buffer, headerStarts[$0], headerEnds[$0]) }
        let lowered = headerNames.map { $0.lowercased() }

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
            if let field, columnOf[field] < 0 { columnOf[field] = j }
        }
        if columnOf[0] < 0, let first = lowered.first, first.isEmpty || first == "unnamed: 0" { columnOf[0] = 0 }
        for field in 0..<6 where columnOf[field] < 0 {
            throw .missingColumn(file: file, column: requiredNames[field], header: headerNames)
        }
        let fieldNames = (0..<6).map { headerNames[columnOf[$0]].isEmpty ? "timestamp" : headerNames[columnOf[$0]] }
        let timestampColumn = columnOf[0], openColumn = columnOf[1], highColumn = columnOf[2]
        let lowColumn = columnOf[3], closeColumn = columnOf[4], volumeColumn = columnOf[5]

        var series = OHLCVSeries(symbol: symbol)
        // Rough row estimate from the header length keeps reallocation rare.
        series.reserveCapacity(max(16, (n - pos) / max(24, (header.1 - header.0))))
        var skipped: [SkippedRow] = []
        var lastTimestamp = Int64.min
        var lastLine = 0
        var dateCache = TimestampParser.DateCache()

        var starts = [Int](repeating: 0, count: columnCount)
        var ends = [Int](repeating: 0, count: columnCount)
        // Accepted rows are staged in a small block (L1/L2-resident) and appended to the series' six arrays
        // a block at a time: one bulk copy per column instead of six capacity and uniqueness checks per row.
        var block = BarBlock()
        defer { block.deallocate() }
        try starts.withUnsafeMutableBufferPointer { (startsBuffer) throws(CSVError) in
            try ends.withUnsafeMutableBufferPointer { (endsBuffer) throws(CSVError) in
                let s = startsBuffer.baseAddress!, e = endsBuffer.baseAddress!

                @inline(__always)
                func number(_ column: Int, _ field: Int, _ line: Int) throws(CSVError) -> Double {
                    let start = s[column], count = e[column] - start
                    if let value = DecimalParser.parse(b + start, count: count, readable: n - start) {
                        if value.isFinite { return value }
                        throw .notFinite(file: file, line: line, field: fieldNames[field], value: text(buffer, start, e[column]))
                    }
                    throw badNumber(buffer, start, e[column], file: file, line: line, field: fieldNames[field])
                }

                while pos < n {
                    let (lineStart, lineEnd) = nextLine(&pos)
                    lineNumber += 1
                    if isBlank(lineStart, lineEnd) { continue }
                    let line = lineNumber
                    do throws(CSVError) {
                        let found = splitCells(
                            b, from: lineStart, to: lineEnd, readableEnd: n, starts: s, ends: e, capacity: columnCount)
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
                        let open = try number(openColumn, 1, line)
                        let high = try number(highColumn, 2, line)
                        let low = try number(lowColumn, 3, line)
                        let close = try number(closeColumn, 4, line)
                        let volume = try number(volumeColumn, 5, line)
                        if open < 0 { throw .negativePrice(file: file, line: line, field: fieldNames[1], value: open) }
                        if high < 0 { throw .negativePrice(file: file, line: line, field: fieldNames[2], value: high) }
                        if low < 0 { throw .negativePrice(file: file, line: line, field: fieldNames[3], value: low) }
                        if close < 0 { throw .negativePrice(file: file, line: line, field: fieldNames[4], value: close) }
                        if high < low { throw .highBelowLow(file: file, line: line, high: high, low: low) }
                        let maxOpenClose = max(open, close), minOpenClose = min(open, close)
                        if high < maxOpenClose {
                            throw .highBelowOpenClose(file: file, line: line, high: high, maxOpenClose: maxOpenClose)
                        }
                        if low > minOpenClose {
                            throw .lowAboveOpenClose(file: file, line: line, low: low, minOpenClose: minOpenClose)
                        }
                        if volume < 0 { throw .negativeVolume(file: file, line: line, field: fieldNames[5], value: volume) }
                        if timestamp <= lastTimestamp {
                            throw .nonIncreasingTimestamp(
                                file: file, line: line, field: fieldNames[0],
                                value: text(buffer, s[timestampColumn], e[timestampColumn]), previousLine: lastLine,
                                duplicate: timestamp == lastTimestamp)
                        }
                        lastTimestamp = timestamp
                        lastLine = line
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
        if series.isEmpty { throw .noRows(file: file, skipped: skipped.count) }
        return ReadResult(series: series, skipped: skipped)
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

    @inline(never)
    static func badNumber(
        _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, file: String, line: Int, field: String
    ) -> CSVError {
        let value = text(buffer, start, end)
        if DecimalParser.spellsNonFinite(value) { return .notFinite(file: file, line: line, field: field, value: value) }
        return .invalidNumber(file: file, line: line, field: field, value: value)
    }
}
