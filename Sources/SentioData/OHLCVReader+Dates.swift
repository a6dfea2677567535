import SentioCore
import SentioCSV

extension OHLCVReader {
    /// Converts the wall-clock time `local` of `zone` to UTC (``LocalTimeZone``); a time skipped by a DST change is
    /// an error naming the cell.
    static func localToUTC(
        _ local: Int64, zone: LocalTimeZone, previous: Int64, buffer: UnsafeBufferPointer<UInt8>, cell: (Int, Int),
        file: String, line: Int, field: String
    ) throws(CSVError) -> Int64 {
        switch zone.utc(fromLocal: local, after: previous) {
        case .success(let utc): return utc
        case .failure:
            throw .invalidTimestamp(
                file: file, line: line, field: field, value: text(buffer, cell.0, cell.1),
                reason: "this wall-clock time does not exist in \(zone.identifier) (skipped when daylight saving time starts)")
        }
    }

    /// The shapes `detectDateFormat` recognises.
    private enum DateShape: Equatable {
        /// `A?B?YYYY` with separator `?` (`/`, `.` or `-`): month/day or day/month, decided over the file.
        case numeric(separator: UInt8)
        /// `YYYY/MM/DD` or `YYYY.MM.DD`.
        case yearFirst(separator: UInt8)
        /// `D-Mon-YYYY` (`yearDigits` 4) or `D-Mon-YY` (2), separator `-`, ` ` or `/`.
        case monthName(separator: UInt8, yearDigits: Int)
    }

    /// The date form of the timestamp column when its first row is not in the built-in forms (``TimestampParser``):
    /// one of the shapes above, with an optional ` HH:MM` or ` HH:MM:SS`, decided over every row of the file.
    /// Returns `nil` when the first row parses as a built-in form (the reader's default path).
    ///
    /// - Throws: `invalidTimestamp` naming the line for a row of another shape (in lenient mode such rows are left
    ///   to the row loop, which skips them); for a numeric form, a file where
    ///   both month/day and day/month readings are possible for every row (``CSVError/ambiguousDates(file:line:value:separator:)``),
    ///   or where neither is (a first number above 12 on one row and a second number above 12 on another).
    static func detectDateFormat(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, lineNumber firstLineNumber: Int, columnCount: Int,
        timestampColumn: Int, file: String, field: String, lenient: Bool = false
    ) throws(CSVError) -> DateFormat? {
        let b = buffer.baseAddress!, n = buffer.count
        var pos = start, lineNumber = firstLineNumber
        var starts = [Int](repeating: 0, count: columnCount), ends = [Int](repeating: 0, count: columnCount)
        var shape: DateShape?
        var timePart = ""  // "", " %H:%M" or " %H:%M:%S"
        var firstAbove12: (line: Int, value: String)?, secondAbove12: (line: Int, value: String)?
        var firstLine: (line: Int, value: String)?
        while pos < n {
            let (lineStart, lineEnd) = CSVTokenizer.nextLine(b, count: n, position: &pos)
            lineNumber += 1
            if CSVTokenizer.isBlank(b, from: lineStart, to: lineEnd) { continue }
            let found: Int
            do throws(CSVSyntaxError) {
                found = try starts.withUnsafeMutableBufferPointer { (s) throws(CSVSyntaxError) -> Int in
                    try ends.withUnsafeMutableBufferPointer { (e) throws(CSVSyntaxError) -> Int in
                        try CSVTokenizer.splitLine(
                            b, from: lineStart, to: lineEnd, readableEnd: n, starts: s.baseAddress!, ends: e.baseAddress!,
                            capacity: columnCount, rejectQuotesInUnquotedCells: false)
                    }
                }
            } catch {
                continue  // the row loop reports it
            }
            guard found == columnCount else { continue }
            let cellStart = starts[timestampColumn], cellEnd = ends[timestampColumn]
            let cell = Array(UnsafeBufferPointer(start: b + cellStart, count: cellEnd - cellStart))
            if shape == nil {
                // The first row decides whether detection is needed at all.
                if case .success = cell.withUnsafeBufferPointer({ p in
                    p.count > 0 ? TimestampParser.parse(p.baseAddress!, count: p.count) : .failure(.malformed)
                }) {
                    return nil
                }
                // No detectable form either: the row loop reports the cell with the built-in forms' reason.
                guard let (s, t) = classify(cell) else { return nil }
                shape = s
                timePart = t
                firstLine = (lineNumber, text(buffer, cellStart, cellEnd))
            }
            guard let (s, t) = classify(cell), s == shape!, t == timePart else {
                if lenient { continue }  // the row loop skips it, with the pattern's reason
                throw .invalidTimestamp(
                    file: file, line: lineNumber, field: field, value: text(buffer, cellStart, cellEnd),
                    reason: "not the date form of line \(firstLine!.line) ('\(firstLine!.value)'); pass --date-format")
            }
            if case .numeric(let separator) = s {
                let parts = cell.split(separator: separator, maxSplits: 2)
                let a = parts[0].reduce(0) { $0 * 10 + Int($1 - 48) }, c = parts[1].reduce(0) { $0 * 10 + Int($1 - 48) }
                if a > 12 && firstAbove12 == nil { firstAbove12 = (lineNumber, text(buffer, cellStart, cellEnd)) }
                if c > 12 && secondAbove12 == nil { secondAbove12 = (lineNumber, text(buffer, cellStart, cellEnd)) }
            }
        }
        guard let shape, let firstLine else { return nil }
        let pattern: String
        switch shape {
        case .numeric(let separator):
            let sep = String(Character(Unicode.Scalar(separator)))
            if let d = firstAbove12, let m = secondAbove12 {
                throw .invalidTimestamp(
                    file: file, line: m.line, field: field, value: m.value,
                    reason: "line \(d.line)'s '\(d.value)' has a day first, this one a month first; pass --date-format")
            } else if firstAbove12 != nil {
                pattern = "%d\(sep)%m\(sep)%Y"
            } else if secondAbove12 != nil {
                pattern = "%m\(sep)%d\(sep)%Y"
            } else {
                throw .ambiguousDates(file: file, line: firstLine.line, value: firstLine.value, separator: sep)
            }
        case .yearFirst(let separator):
            let sep = String(Character(Unicode.Scalar(separator)))
            pattern = "%Y\(sep)%m\(sep)%d"
        case .monthName(let separator, let digits):
            let sep = String(Character(Unicode.Scalar(separator)))
            pattern = "%d\(sep)%b\(sep)\(digits == 4 ? "%Y" : "%y")"
        }
        do throws(DateFormat.Failure) {
            return try DateFormat(pattern + timePart)
        } catch {
            return nil
        }
    }

    /// The shape of a cell and its time suffix, or `nil`.
    private static func classify(_ cell: [UInt8]) -> (DateShape, String)? {
        var date = cell[...]
        var time = ""
        if let space = cell.firstIndex(of: UInt8(ascii: " ")) {
            date = cell[..<space]
            let rest = cell[(space + 1)...]
            let pieces = rest.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard pieces.count == 2 || pieces.count == 3,
                pieces.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0 &- 48 < 10 } })
            else { return nil }
            time = pieces.count == 2 ? " %H:%M" : " %H:%M:%S"
        }
        func isDigits(_ s: ArraySlice<UInt8>, _ counts: ClosedRange<Int>) -> Bool {
            counts.contains(s.count) && s.allSatisfy { $0 &- 48 < 10 }
        }
        for separator in [UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: " ")] {
            let parts = date.split(separator: separator, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            if separator != UInt8(ascii: " "), isDigits(parts[0], 1...2), isDigits(parts[1], 1...2), isDigits(parts[2], 4...4) {
                return (.numeric(separator: separator), time)
            }
            if separator != UInt8(ascii: "-") && separator != UInt8(ascii: " "), isDigits(parts[0], 4...4),
                isDigits(parts[1], 1...2), isDigits(parts[2], 1...2)
            {
                return (.yearFirst(separator: separator), time)
            }
            if isDigits(parts[0], 1...2), parts[1].count >= 3,
                parts[1].allSatisfy({ ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }),
                isDigits(parts[2], 2...4), parts[2].count != 3
            {
                return (.monthName(separator: separator, yearDigits: parts[2].count), time)
            }
        }
        return nil
    }
}
