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
    /// For a long-form file (a `ticker` or `symbol` column) it selects that symbol's rows.
    public var symbol: String?
    /// The pattern of the timestamp column (`--date-format`); `nil`: ISO-8601 and epoch seconds, or a form
    /// detected from the whole file (see ``OHLCVReader``).
    public var dateFormat: DateFormat?
    /// The zone of wall-clock timestamps written without an offset (`--timezone`); `nil`: UTC.
    public var timeZone: LocalTimeZone?
    /// Which price adjustment to apply (see ``PriceAdjustment``). The library's default is ``PriceAdjustment/none``
    /// (the file as it is); `sentio`'s commands default to ``PriceAdjustment/auto``.
    public var adjust: PriceAdjustment
    /// Corporate actions (`--actions`): split ratios and cash dividends by symbol and ex-date.
    public var actions: CorporateActions?

    public init(
        lenient: Bool = false, symbol: String? = nil, dateFormat: DateFormat? = nil, timeZone: LocalTimeZone? = nil,
        adjust: PriceAdjustment = .none, actions: CorporateActions? = nil
    ) {
        self.lenient = lenient
        self.symbol = symbol
        self.dateFormat = dateFormat
        self.timeZone = timeZone
        self.adjust = adjust
        self.actions = actions
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
    /// The price adjustment applied to `series` (``AppliedAdjustment/isPlain`` for a file read as it is).
    public var adjustment: AppliedAdjustment = .plain
    /// Notes about the file that are not errors (columns not used, the date form detected), one sentence each,
    /// starting with the file name.
    public var notes: [String] = []
    /// The file the series was read from ("" when unknown).
    public var file: String = ""

    /// Equal series, skipped rows, adjustment and notes (the file name is not compared).
    public static func == (a: ReadResult, b: ReadResult) -> Bool {
        a.series == b.series && a.skipped == b.skipped && a.adjustment == b.adjustment && a.notes == b.notes
    }

    public init(
        series: OHLCVSeries, skipped: [SkippedRow], adjustment: AppliedAdjustment = .plain, notes: [String] = [],
        file: String = ""
    ) {
        self.series = series
        self.skipped = skipped
        self.adjustment = adjustment
        self.notes = notes
        self.file = file
    }
}

/// Reads OHLCV bars from CSV files with a header row.
///
/// Format:
/// - Columns matched by name, case-insensitively and ignoring surrounding spaces, in any order: `timestamp` (or
///   `date`, `datetime`, `time`, or an empty first header cell as pandas writes for its index), `open`, `high`,
///   `low`, `close`, `volume` (or `vol`); optionally an adjusted close (`adj close`, `adj_close`, `adjclose`,
///   `adjusted close`, `adjusted_close`) and a symbol column (`ticker` or `symbol`). Any other column is named once
///   in ``ReadResult/notes`` (never silently dropped). Cells and quoting follow `CSVTokenizer` (RFC 4180: after a
///   closing quote only spaces then `,` or the line end; quoted cells may not contain line breaks); CRLF or LF line
///   ends, an optional UTF-8 byte-order mark, optional final newline; blank lines are skipped.
/// - Long form: with a symbol column the file holds many symbols (rows in any order between symbols, each
///   symbol's timestamps strictly increasing); it reads as one series per symbol, sorted by symbol.
/// - Timestamps: see ``TimestampParser`` (years 0001–9999 only), stored as UTC epoch seconds. When the first row's
///   timestamp is not in those forms and no ``ReadOptions/dateFormat`` is given, the form is detected from the
///   whole file: `M/D/YYYY`, `D/M/YYYY` (also with `.` or `-`, and an optional ` HH:MM[:SS]`), `YYYY/MM/DD`,
///   `D-Mon-YYYY`, `D-Mon-YY`. Month/day against day/month is decided by a day above 12 in either position; a file
///   where both readings are possible for every row is an error asking for `--date-format`, never a guess.
///   Wall-clock times are UTC unless ``ReadOptions/timeZone`` names their zone (``LocalTimeZone``).
/// - Numbers: the grammar of `DecimalParser` (decimal, optional sign and exponent), parsed exactly.
///
/// Validation (each error names file, line and field, see ``CSVError``): quoting, column count, numbers and dates
/// parse, finite numbers, prices > 0 (the adjusted close too), `high ≥ low`, `high ≥ max(open, close)`,
/// `low ≤ min(open, close)`, volume ≥ 0, strictly increasing timestamps, at least one row. Strict mode throws the
/// first error. Then the price adjustment of ``ReadOptions/adjust`` is applied (see ``PriceAdjustment``), which
/// may refuse a file whose unadjusted prices show a split (``CSVError/suspectedSplit(file:line:symbol:previousLine:previousDate:date:ratio:closeRatio:openRatio:)``).
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

    /// Reads one file and returns the series with the lenient-mode report. A long-form file must hold one symbol,
    /// or ``ReadOptions/symbol`` must select one.
    public static func readWithReport(path: String, options: ReadOptions = .init()) throws(CSVError) -> ReadResult {
        try single(try readResults(path: path, options: options), file: path)
    }

    /// Reads one file, returning one result per symbol (one for a file of one symbol; see the long form above).
    public static func readResults(path: String, options: ReadOptions = .init()) throws(CSVError) -> [ReadResult] {
        let symbol = options.symbol ?? symbolFromPath(path)
        return try withFileBytes(path) { (buffer) throws(CSVError) -> [ReadResult] in
            try parseFile(
                buffer, file: path, symbol: symbol, options: options, parts: defaultParts,
                minimumPartBytes: defaultMinimumPartBytes
            ).results
        }
    }

    static func single(_ results: [ReadResult], file: String) throws(CSVError) -> ReadResult {
        guard results.count == 1 else {
            throw .severalSymbols(file: file, symbols: results.map(\.series.symbol))
        }
        return results[0]
    }

    /// Parses CSV text held in memory; `file` is used in error messages only.
    public static func parse(
        text: String, file: String = "<memory>", symbol: String = "", options: ReadOptions = .init()
    ) throws(CSVError) -> ReadResult {
        let bytes = Array(text.utf8)
        var options = options
        if options.symbol == nil && !symbol.isEmpty { options.symbol = symbol }
        let name = options.symbol ?? symbol
        let results = try bytes.withUnsafeBufferPointer { (buffer) throws(CSVError) -> [ReadResult] in
            try parseFile(
                buffer, file: file, symbol: name, options: options, parts: defaultParts,
                minimumPartBytes: defaultMinimumPartBytes
            ).results
        }
        return try single(results, file: file)
    }

    /// Reads several inputs; a directory is expanded to its `*.csv` files sorted by symbol.
    ///
    /// - Throws: ``CSVError/noCSVFiles(directory:)`` for a directory without CSV files, or the first file's error.
    public static func readAll(paths: [String], options: ReadOptions = .init()) throws(CSVError) -> [OHLCVSeries] {
        try readAllWithReports(paths: paths, options: options).map(\.series)
    }

    /// As ``readAll(paths:options:)``, keeping each file's lenient-mode report. Each series' symbol comes from its
    /// file name, or from the symbol column of a long-form file (`options.symbol` is ignored here).
    public static func readAllWithReports(
        paths: [String], options: ReadOptions = .init()
    ) throws(CSVError) -> [ReadResult] {
        var results: [ReadResult] = []
        for path in try expand(paths: paths) {
            var fileOptions = options
            fileOptions.symbol = nil
            results.append(contentsOf: try readResults(path: path, options: fileOptions))
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

    /// Parses a whole CSV buffer (one symbol; a long-form file must hold exactly one).
    ///
    /// In strict mode a file of several megabytes is split at line ends into one part per core, the parts are
    /// parsed in parallel and their seams checked (timestamps strictly increasing across parts); the result
    /// and every error (message, line number) are those of reading the file front to back.
    public static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, symbol: String, lenient: Bool
    ) throws(CSVError) -> ReadResult {
        try single(
            try parseFile(
                buffer, file: file, symbol: symbol, options: ReadOptions(lenient: lenient), parts: defaultParts,
                minimumPartBytes: defaultMinimumPartBytes
            ).results, file: file)
    }

    /// ``parse(_:file:symbol:lenient:)`` with an explicit number of parts (1: serial) and minimum part size;
    /// `parallel` tells whether the result came from the parallel parts (for tests).
    static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, symbol: String, lenient: Bool, parts parallelParts: Int,
        minimumPartBytes: Int
    ) throws(CSVError) -> (result: ReadResult, parallel: Bool) {
        let parsed = try parseFile(
            buffer, file: file, symbol: symbol, options: ReadOptions(lenient: lenient), parts: parallelParts,
            minimumPartBytes: minimumPartBytes)
        return (try single(parsed.results, file: file), parsed.parallel)
    }

    /// Canonical field of a header name (index into `requiredNames`, then 6: adjusted close, 7: symbol), or `nil`.
    static func field(ofHeader name: String) -> Int? {
        switch name {
        case "timestamp", "date", "datetime", "time": return 0
        case "open": return 1
        case "high": return 2
        case "low": return 3
        case "close": return 4
        case "volume", "vol", "vol.": return 5
        case "adj close", "adj_close", "adjclose", "adj. close", "adjusted close", "adjusted_close", "adj close*": return 6
        case "ticker", "symbol": return 7
        default: return nil
        }
    }

    /// The whole reader: header, rows (serially or in parallel parts), lenient order repair, split by symbol
    /// (long form), then the price adjustment. One result per symbol.
    static func parseFile(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, symbol: String, options: ReadOptions, parts parallelParts: Int,
        minimumPartBytes: Int
    ) throws(CSVError) -> (results: [ReadResult], parallel: Bool) {
        let lenient = options.lenient
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
        let lowered = headerNames.map { $0.lowercased().trimmingCharacters(in: .whitespaces) }
        // The header cells as messages show them: escaped from the raw bytes (an invalid byte shows as \xNN).
        let shownNames = (0..<min(columnCount, 4096)).map { text(buffer, headerStarts[$0], headerEnds[$0]) }

        // Column of each field: the six required ones, then the optional adjusted close and symbol.
        let optionalNames = ["adjusted close", "symbol"]
        var columnOf = [Int](repeating: -1, count: 8)
        for (j, name) in lowered.enumerated() {
            guard let field = field(ofHeader: name) else { continue }
            if columnOf[field] >= 0 {
                let first = columnOf[field]
                throw .syntax(
                    file: file, line: headerLine, column: j + 1,
                    field: field < 6 ? requiredNames[field] : optionalNames[field - 6],
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
        var notes: [String] = []
        let unused = (0..<columnCount).filter { !columnOf.contains($0) }
        if !unused.isEmpty {
            let names = unused.map { shownNames[$0].isEmpty ? "column \($0 + 1) (no name)" : EchoedText.quoted(shownNames[$0]) }
            notes.append(
                "\(file): \(unused.count == 1 ? "column" : "columns") \(names.joined(separator: ", ")) "
                    + "\(unused.count == 1 ? "is" : "are") not used")
        }

        // The timestamp form: as given, the built-in forms, or detected from the whole file.
        var dateFormat = options.dateFormat
        if dateFormat == nil,
            let detected = try detectDateFormat(
                buffer, from: pos, lineNumber: lineNumber, columnCount: columnCount, timestampColumn: columnOf[0],
                file: file, field: fieldNames[0], lenient: lenient)
        {
            dateFormat = detected
            notes.append("\(file): dates read as \(detected.pattern) (detected from the whole file)")
        }

        let layout = RowLayout(
            file: file, columnCount: columnCount, timestampColumn: columnOf[0], openColumn: columnOf[1],
            highColumn: columnOf[2], lowColumn: columnOf[3], closeColumn: columnOf[4], volumeColumn: columnOf[5],
            adjustedCloseColumn: columnOf[6], symbolColumn: columnOf[7],
            fieldNames: fieldNames, shownNames: shownNames, dateFormat: dateFormat, timeZone: options.timeZone)
        // Rough row estimate from the header length keeps reallocation rare.
        let rowEstimate = max(16, (n - pos) / max(24, (header.end - header.start)))

        // Strict mode on a large plain file: parse parts in parallel (identical result, or fall back to the serial
        // reader for the exact first error).
        let parts = lenient || !layout.isPlain ? 1 : min(parallelParts, (n - pos) / max(1, minimumPartBytes))
        var tables: [RowTable] = []
        var parallel = false
        if parts >= 2, let series = parseInParts(
            buffer, from: pos, lineNumber: lineNumber, parts: parts, layout: layout, symbol: symbol,
            rowEstimate: rowEstimate)
        {
            tables = [RowTable(series: series, adjustedClose: [], lines: nil, skipped: [])]
            parallel = true
        } else {
            let rows = try parseRows(
                buffer, from: pos, to: n, lineNumber: lineNumber, layout: layout, symbol: symbol, lenient: lenient,
                rowEstimate: rowEstimate)
            tables = splitBySymbol(rows, layout: layout, buffer: buffer)
            if lenient {
                for k in tables.indices { keepIncreasing(&tables[k], layout: layout, buffer: buffer) }
            }
        }
        if layout.symbolColumn >= 0 {
            if let wanted = options.symbol {
                tables = tables.filter { $0.series.symbol.uppercased() == wanted.uppercased() }
                if tables.isEmpty { throw .symbolNotInFile(file: file, symbol: wanted) }
            }
            if tables.isEmpty { throw .noRows(file: file, skipped: rows0Skipped(tables)) }
        }
        var results: [ReadResult] = []
        for var table in tables {
            if table.series.isEmpty { throw .noRows(file: file, skipped: table.skipped.count) }
            table.skipped.sort { $0.line < $1.line }
            let lines = table.lines
            var adjustment = try PriceAdjuster.apply(
                to: &table.series, adjustedClose: table.adjustedClose,
                adjustedCloseName: layout.adjustedCloseColumn >= 0 ? shownNames[layout.adjustedCloseColumn] : nil,
                requested: options.adjust, actions: options.actions, file: file,
                lineOf: { (index: Int) -> Int in
                    lines?[index] ?? dataLineNumbers(buffer, from: pos, lineNumber: lineNumber, upTo: index)
                })
            if adjustment.isPlain { adjustment = .plain }
            results.append(ReadResult(
                series: table.series, skipped: table.skipped, adjustment: adjustment, notes: notes, file: file))
        }
        if results.isEmpty { throw .noRows(file: file, skipped: 0) }
        return (results, parallel)
    }

    static func rows0Skipped(_ tables: [RowTable]) -> Int { tables.reduce(0) { $0 + $1.skipped.count } }

    /// The line of the `index`-th data row when every non-blank line after the header is a row (strict mode).
    static func dataLineNumbers(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, lineNumber: Int, upTo index: Int) -> Int {
        let b = buffer.baseAddress!, n = buffer.count
        var pos = start, line = lineNumber, row = -1
        while pos < n {
            let (s, e) = CSVTokenizer.nextLine(b, count: n, position: &pos)
            line += 1
            if CSVTokenizer.isBlank(b, from: s, to: e) { continue }
            row += 1
            if row == index { return line }
        }
        return line
    }

    /// One symbol's rows: the series, its adjusted closes (empty without that column), the line of each row
    /// (`nil`: the k-th non-blank line after the header is row k) and the rows skipped in lenient mode.
    struct RowTable {
        var series: OHLCVSeries
        var adjustedClose: [Double]
        var lines: [Int]?
        var skipped: [SkippedRow]
        /// Lenient mode: the timestamp cell of each row, for the order check's messages.
        var cells: [(start: Int, end: Int)] = []
    }

    /// Splits parsed rows by symbol (long form, sorted by symbol), or wraps the one symbol's rows.
    static func splitBySymbol(_ rows: ParsedRows, layout: RowLayout, buffer: UnsafeBufferPointer<UInt8>) -> [RowTable] {
        let lines: [Int]? = rows.rowLines.isEmpty ? (rows.candidateLines.isEmpty ? nil : rows.candidateLines) : rows.rowLines
        guard layout.symbolColumn >= 0 else {
            return [RowTable(
                series: rows.series, adjustedClose: rows.adjustedClose, lines: lines, skipped: rows.skipped,
                cells: rows.candidateCells)]
        }
        let order = rows.symbolNames.indices.sorted { rows.symbolNames[$0] < rows.symbolNames[$1] }
        var tables = order.map { k in
            RowTable(series: OHLCVSeries(symbol: rows.symbolNames[k]), adjustedClose: [], lines: [], skipped: [])
        }
        var slot = [Int](repeating: 0, count: rows.symbolNames.count)
        for (position, k) in order.enumerated() { slot[k] = position }
        let s = rows.series
        let hasAdjusted = !rows.adjustedClose.isEmpty
        for i in 0..<s.count {
            let t = slot[Int(rows.rowSymbols[i])]
            tables[t].series.timestamps.append(s.timestamps[i])
            tables[t].series.open.append(s.open[i])
            tables[t].series.high.append(s.high[i])
            tables[t].series.low.append(s.low[i])
            tables[t].series.close.append(s.close[i])
            tables[t].series.volume.append(s.volume[i])
            if hasAdjusted { tables[t].adjustedClose.append(rows.adjustedClose[i]) }
            tables[t].lines!.append(rows.rowLines[i])
            if !rows.candidateCells.isEmpty { tables[t].cells.append(rows.candidateCells[i]) }
        }
        // Skipped rows (lenient) are listed with the first symbol's table: they belong to no symbol for sure.
        if !tables.isEmpty { tables[0].skipped = rows.skipped }
        return tables
    }

    /// Lenient mode: keeps the longest run of strictly increasing timestamps of one symbol's rows and lists the
    /// others as skipped, each with the kept row it clashes with.
    static func keepIncreasing(_ table: inout RowTable, layout: RowLayout, buffer: UnsafeBufferPointer<UInt8>) {
        let series = table.series
        let kept = LongestIncreasingSubsequence.indices(series.timestamps)
        guard kept.count < series.count, let candidateLines = table.lines else { return }
        let candidateCells = table.cells
        let file = layout.file, fieldNames = layout.fieldNames
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
            table.skipped.append(SkippedRow(line: candidateLines[index], error: error))
        }
        var filtered = OHLCVSeries(symbol: series.symbol)
        filtered.reserveCapacity(kept.count)
        var adjusted: [Double] = []
        var lines: [Int] = []
        var cells: [(start: Int, end: Int)] = []
        for index in kept {
            filtered.timestamps.append(series.timestamps[index])
            filtered.open.append(series.open[index])
            filtered.high.append(series.high[index])
            filtered.low.append(series.low[index])
            filtered.close.append(series.close[index])
            filtered.volume.append(series.volume[index])
            if !table.adjustedClose.isEmpty { adjusted.append(table.adjustedClose[index]) }
            lines.append(candidateLines[index])
            cells.append(candidateCells[index])
        }
        table.series = filtered
        table.adjustedClose = adjusted
        table.lines = lines
        table.cells = cells
    }

    /// Where the required fields are, and how errors name them.
    struct RowLayout: Sendable {
        var file: String
        var columnCount: Int
        var timestampColumn: Int, openColumn: Int, highColumn: Int, lowColumn: Int, closeColumn: Int, volumeColumn: Int
        /// The adjusted close and the symbol column, -1 when absent.
        var adjustedCloseColumn: Int, symbolColumn: Int
        /// Names of the six fields as errors show them.
        var fieldNames: [String]
        /// Every header cell as errors show it.
        var shownNames: [String]
        var dateFormat: DateFormat?
        var timeZone: LocalTimeZone?

        /// The six columns only, built-in timestamp forms, UTC: the fast (and parallel) path.
        var isPlain: Bool {
            adjustedCloseColumn < 0 && symbolColumn < 0 && dateFormat == nil && timeZone == nil
        }

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
        /// The adjusted close of each row (empty without that column).
        var adjustedClose: [Double] = []
        /// Long form: each row's symbol (index into `symbolNames`) and line.
        var rowSymbols: [Int32] = []
        var rowLines: [Int] = []
        var symbolNames: [String] = []
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

        // Optional columns and forms (all off for a plain file).
        let adjustedCloseColumn = layout.adjustedCloseColumn, symbolColumn = layout.symbolColumn
        let longForm = symbolColumn >= 0
        let dateFormat = layout.dateFormat, timeZone = layout.timeZone
        var adjustedClose: [Double] = []
        var rowSymbols: [Int32] = [], rowLines: [Int] = [], symbolNames: [String] = []
        var symbolIndex: [String: Int32] = [:]
        // Long form, strict mode: the last timestamp, line and cell of each symbol.
        var symbolLast: [(timestamp: Int64, line: Int, cell: (start: Int, end: Int))] = []
        if adjustedCloseColumn >= 0 { adjustedClose.reserveCapacity(rowEstimate) }

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
                        var timestamp: Int64
                        if let dateFormat {
                            switch dateFormat.parse(b + s[timestampColumn], count: e[timestampColumn] - s[timestampColumn]) {
                            case .success(let parsed):
                                timestamp = parsed.seconds
                                if let timeZone, parsed.hasTime, !parsed.hasOffset {
                                    timestamp = try localToUTC(
                                        timestamp, zone: timeZone, previous: longForm ? .min : lastTimestamp, buffer: buffer,
                                        cell: (s[timestampColumn], e[timestampColumn]), file: file, line: line,
                                        field: fieldNames[0])
                                }
                            case .failure(let failure):
                                throw .invalidTimestamp(
                                    file: file, line: line, field: fieldNames[0],
                                    value: text(buffer, s[timestampColumn], e[timestampColumn]), reason: failure.reason)
                            }
                        } else {
                            switch TimestampParser.parse(
                                b + s[timestampColumn], count: e[timestampColumn] - s[timestampColumn], cache: &dateCache)
                            {
                            case .success(let t): timestamp = t
                            case .failure(let failure):
                                throw .invalidTimestamp(
                                    file: file, line: line, field: fieldNames[0],
                                    value: text(buffer, s[timestampColumn], e[timestampColumn]), reason: failure.reason)
                            }
                            if let timeZone,
                                TimestampParser.isWallClock(b + s[timestampColumn], count: e[timestampColumn] - s[timestampColumn])
                            {
                                timestamp = try localToUTC(
                                    timestamp, zone: timeZone, previous: longForm ? .min : lastTimestamp, buffer: buffer,
                                    cell: (s[timestampColumn], e[timestampColumn]), file: file, line: line,
                                    field: fieldNames[0])
                            }
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
                        var adjusted = 0.0
                        if adjustedCloseColumn >= 0 {
                            let name = layout.shownNames[adjustedCloseColumn]
                            guard let value = finiteNumber(b, s[adjustedCloseColumn], e[adjustedCloseColumn], n) else {
                                throw numberError(
                                    buffer, s[adjustedCloseColumn], e[adjustedCloseColumn], file: file, line: line, field: name)
                            }
                            if !(value > 0) { throw .nonPositivePrice(file: file, line: line, field: name, value: value) }
                            adjusted = value
                        }
                        var rowSymbol: Int32 = 0
                        if longForm {
                            let name = CSVTokenizer.unescapedString(
                                b, from: s[symbolColumn], to: e[symbolColumn], lineStart: lineStart
                            ).trimmingCharacters(in: .whitespaces)
                            if name.isEmpty {
                                throw .syntax(
                                    file: file, line: line, column: symbolColumn + 1,
                                    field: layout.shownNames[symbolColumn], message: "empty symbol")
                            }
                            if let known = symbolIndex[name] {
                                rowSymbol = known
                            } else {
                                rowSymbol = Int32(symbolNames.count)
                                symbolIndex[name] = rowSymbol
                                symbolNames.append(name)
                                symbolLast.append((.min, 0, (0, 0)))
                            }
                        }
                        if lenient {
                            candidateLines.append(line)
                            candidateCells.append((s[timestampColumn], e[timestampColumn]))
                        } else if longForm {
                            let last = symbolLast[Int(rowSymbol)]
                            if timestamp <= last.timestamp {
                                throw .nonIncreasingTimestamp(
                                    file: file, line: line, field: fieldNames[0],
                                    value: text(buffer, s[timestampColumn], e[timestampColumn]), previousLine: last.line,
                                    previousValue: text(buffer, last.cell.start, last.cell.end),
                                    duplicate: timestamp == last.timestamp)
                            }
                            symbolLast[Int(rowSymbol)] = (timestamp, line, (s[timestampColumn], e[timestampColumn]))
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
                        if adjustedCloseColumn >= 0 { adjustedClose.append(adjusted) }
                        if longForm {
                            rowSymbols.append(rowSymbol)
                            rowLines.append(line)
                        }
                    } catch {
                        if !lenient { throw error }
                        skipped.append(SkippedRow(line: line, error: error))
                    }
                }
            }
        }
        block.flush(into: &series)
        return ParsedRows(
            series: series, skipped: skipped, candidateLines: candidateLines, candidateCells: candidateCells,
            adjustedClose: adjustedClose, rowSymbols: rowSymbols, rowLines: rowLines, symbolNames: symbolNames)
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
