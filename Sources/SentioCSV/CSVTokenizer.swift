#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SentioCore

/// The one CSV tokenizer of every Sentio reader (OHLCV bars, fund events, fund metadata, index levels, cash flows).
///
/// Rules (RFC 4180, with spaces allowed around cells):
/// - Lines end with LF or CRLF; an optional UTF-8 byte-order mark at the start of the file is skipped; lines
///   holding only spaces and tabs are skipped by the readers.
/// - Cells are separated by `,`. Spaces and tabs around a cell are not part of it.
/// - A cell may be enclosed in double quotes; inside, `""` stands for one `"` and `,` is an ordinary character.
///   After the closing quote only spaces or tabs, then `,` or the end of the line, may follow: `"50"0` or
///   `"2023-01-02"T09:30` is an error (``CSVSyntaxError/Problem/textAfterClosingQuote``), never `500` or a
///   midnight timestamp.
/// - A quoted cell may not span lines: a quote left open at the end of the line is an error.
/// - An unquoted cell may not contain `"`.
///
/// Byte-level and allocation-free: the caller owns the arrays of cell bounds. The scan for the end of an unquoted
/// cell reads 8 bytes at a time (SWAR search for `,` or `"`).
public enum CSVTokenizer {
    /// Skips a UTF-8 byte-order mark: the offset of the first byte of the first line.
    @inlinable
    public static func firstLineStart(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        guard let b = buffer.baseAddress else { return 0 }
        return buffer.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0
    }

    /// The next line's `[start, end)` without its line break (LF, or CRLF); advances `position` past the break.
    @inlinable @inline(__always)
    public static func nextLine(_ b: UnsafePointer<UInt8>, count n: Int, position: inout Int) -> (start: Int, end: Int) {
        let start = position
        var end: Int
        if let found = memchr(b + start, 10, n - start) {
            end = b.distance(to: found.assumingMemoryBound(to: UInt8.self))
            position = end + 1
        } else {
            end = n
            position = n
        }
        if end > start, b[end - 1] == 13 { end -= 1 }
        return (start, end)
    }

    /// Whether `[start, end)` holds only spaces and tabs.
    @inlinable @inline(__always)
    public static func isBlank(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var k = start
        while k < end, isSpace(b[k]) { k += 1 }
        return k == end
    }

    @inlinable @inline(__always)
    public static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 }

    /// Index of the first `,` in `[start, end)`, or `end`: ``firstCommaOrQuote(_:from:to:readableEnd:)`` without
    /// the quote test, for ``splitLine`` with `rejectQuotesInUnquotedCells: false`.
    @inlinable @inline(__always)
    public static func firstComma(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int, readableEnd: Int) -> Int {
        var j = start
        let raw = UnsafeRawPointer(b)
        while j < end && j + 8 <= readableEnd {
            let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: j, as: UInt64.self)) ^ 0x2C2C_2C2C_2C2C_2C2C
            let found = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if found != 0 { return min(j + found.trailingZeroBitCount >> 3, end) }
            j += 8
        }
        j = min(j, end)
        while j < end, b[j] != UInt8(ascii: ",") { j += 1 }
        return j
    }

    /// Index of the first `,` or `"` in `[start, end)`, or `end`. Scans 8 bytes at a time: the zero-byte test on
    /// `word XOR 0x2C2C…` and on `word XOR 0x2222…` (the lowest flagged byte of each test is exact on
    /// little-endian machines, so the lowest of both is the first delimiter or quote). Words may extend past
    /// `end` up to `readableEnd` (the end of the buffer), so a short last cell needs no byte loop; a hit at or
    /// past `end` counts as none.
    @inlinable @inline(__always)
    public static func firstCommaOrQuote(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int, readableEnd: Int) -> Int {
        var j = start
        let raw = UnsafeRawPointer(b)
        while j < end && j + 8 <= readableEnd {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            let x = word ^ 0x2C2C_2C2C_2C2C_2C2C
            let y = word ^ 0x2222_2222_2222_2222
            let found = ((x &- 0x0101_0101_0101_0101) & ~x | (y &- 0x0101_0101_0101_0101) & ~y) & 0x8080_8080_8080_8080
            if found != 0 { return min(j + found.trailingZeroBitCount >> 3, end) }
            j += 8
        }
        j = min(j, end)
        while j < end, b[j] != UInt8(ascii: ","), b[j] != UInt8(ascii: "\"") { j += 1 }
        return j
    }

    /// Splits the line `[lineStart, lineEnd)` into cells; returns the number of cells. The bounds of the first
    /// `capacity` cells go to `starts`/`ends`: without surrounding spaces, and for a quoted cell without its
    /// quotes (a `""` inside stays doubled: see ``unescapedString(_:from:to:lineStart:)``).
    ///
    /// With `rejectQuotesInUnquotedCells: false` (the OHLCV reader's fast path) a `"` inside an unquoted cell is
    /// left in the cell for the cell's parser to reject (no number or timestamp contains one), which spares the
    /// quote test in the 8-byte search; the cell boundaries are the same either way.
    ///
    /// - Throws: ``CSVSyntaxError`` (with the 0-based cell index) for text after a closing quote, an unterminated
    ///   quote or (when rejected) a quote inside an unquoted cell.
    @inlinable @inline(__always)
    public static func splitLine(
        _ b: UnsafePointer<UInt8>, from lineStart: Int, to lineEnd: Int, readableEnd: Int,
        starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>, capacity: Int,
        rejectQuotesInUnquotedCells: Bool = true
    ) throws(CSVSyntaxError) -> Int {
        var cell = 0
        var i = lineStart
        while true {
            var s = i
            while s < lineEnd, isSpace(b[s]) { s += 1 }
            var e: Int
            var next: Int
            if s < lineEnd, b[s] == UInt8(ascii: "\"") {
                var j = s + 1
                var closed = false
                while j < lineEnd {
                    if b[j] == UInt8(ascii: "\"") {
                        if j + 1 < lineEnd, b[j + 1] == UInt8(ascii: "\"") { j += 2; continue }
                        closed = true
                        break
                    }
                    j += 1
                }
                guard closed else { throw CSVSyntaxError(problem: .unterminatedQuote, cell: cell) }
                e = j
                s += 1
                next = j + 1
                while next < lineEnd, isSpace(b[next]) { next += 1 }
                if next < lineEnd, b[next] != UInt8(ascii: ",") {
                    throw CSVSyntaxError(problem: .textAfterClosingQuote, cell: cell)
                }
            } else {
                let j: Int
                if rejectQuotesInUnquotedCells {
                    j = firstCommaOrQuote(b, from: s, to: lineEnd, readableEnd: readableEnd)
                    if j < lineEnd, b[j] == UInt8(ascii: "\"") {
                        throw CSVSyntaxError(problem: .quoteInUnquotedCell, cell: cell)
                    }
                } else {
                    j = firstComma(b, from: s, to: lineEnd, readableEnd: readableEnd)
                }
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

    /// The text of the cell `[start, end)` (as returned by ``splitLine``), with `""` turned into `"` when the
    /// cell was quoted. Invalid UTF-8 becomes U+FFFD (readers of text files reject it before, see ``TextFile``).
    public static func unescapedString(_ b: UnsafePointer<UInt8>, from start: Int, to end: Int, lineStart: Int) -> String {
        let bytes = UnsafeBufferPointer(start: b + start, count: max(0, end - start))
        let quoted = start > lineStart && b[start - 1] == UInt8(ascii: "\"")
        guard quoted, bytes.contains(UInt8(ascii: "\"")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var k = 0
        while k < bytes.count {
            out.append(bytes[k])
            k += bytes[k] == UInt8(ascii: "\"") ? 2 : 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A line that breaks the CSV rules of ``CSVTokenizer``.
public struct CSVSyntaxError: Error, Sendable, Equatable {
    public enum Problem: Sendable, Equatable {
        /// Something other than spaces, `,` or the line end follows a closing quote (`"50"0`).
        case textAfterClosingQuote
        /// A quoted cell is not closed on its line.
        case unterminatedQuote
        /// `"` inside a cell that does not start with one (`5"0"`).
        case quoteInUnquotedCell
    }

    public var problem: Problem
    /// 0-based index of the cell in its line.
    public var cell: Int

    public init(problem: Problem, cell: Int) {
        self.problem = problem
        self.cell = cell
    }

    /// The rule broken, in words.
    public var message: String {
        switch problem {
        case .textAfterClosingQuote:
            return "text after a closing quote (after a quoted cell only spaces, then ',' or the line end, may follow)"
        case .unterminatedQuote:
            return "unterminated quoted cell (a quoted cell must close on its own line)"
        case .quoteInUnquotedCell:
            return "a double quote inside an unquoted cell (quote the whole cell and write \"\" for a quote)"
        }
    }
}

/// A whole small CSV text as records of strings, for the fund, metadata, index and cash-flow files, tokenized by
/// ``CSVTokenizer`` (the same rules as the OHLCV reader). Blank lines are skipped; each record keeps its 1-based
/// line number.
public struct CSVRecords: Sendable {
    public struct Record: Sendable, Equatable {
        /// 1-based line number.
        public var line: Int
        public var cells: [String]
    }

    /// A syntax error with its 1-based line, and the cells of the first record (the header) when the error is
    /// after it, so that messages can name the field.
    public struct Failure: Error, Sendable, Equatable {
        public var line: Int
        public var error: CSVSyntaxError
        public var header: [String]?

        /// The header's name for the failing cell, when known.
        public var field: String? {
            guard let header, error.cell < header.count, !header[error.cell].isEmpty else { return nil }
            return header[error.cell]
        }
    }

    public var records: [Record]
    /// In lenient mode, the lines after the header that break the rules of ``CSVTokenizer``, skipped; empty
    /// otherwise.
    public var skipped: [Failure]

    /// Tokenizes `text`.
    /// - Throws: ``Failure`` for the first line that breaks the rules of ``CSVTokenizer``.
    public init(text: String) throws(Failure) {
        try self.init(text: text, lenient: false)
    }

    /// Tokenizes `text`; with `lenient`, a line after the header that breaks the rules of ``CSVTokenizer`` is
    /// skipped and listed in ``skipped`` instead of failing the whole text (a broken header still fails).
    /// - Throws: ``Failure`` for the first line that breaks the rules (in lenient mode: only the header).
    public init(text: String, lenient: Bool) throws(Failure) {
        var copy = text
        var result: [Record] = []
        var skippedLines: [Failure] = []
        var failure: Failure?
        copy.withUTF8 { buffer in
            guard let b = buffer.baseAddress, buffer.count > 0 else { return }
            let n = buffer.count
            var position = CSVTokenizer.firstLineStart(buffer)
            var lineNumber = 0
            var starts = [Int](repeating: 0, count: 16), ends = [Int](repeating: 0, count: 16)
            while position < n {
                let (start, end) = CSVTokenizer.nextLine(b, count: n, position: &position)
                lineNumber += 1
                if CSVTokenizer.isBlank(b, from: start, to: end) { continue }
                do throws(CSVSyntaxError) {
                    var found = 0
                    while true {
                        let capacity = starts.count
                        found = try starts.withUnsafeMutableBufferPointer { (s) throws(CSVSyntaxError) -> Int in
                            try ends.withUnsafeMutableBufferPointer { (e) throws(CSVSyntaxError) -> Int in
                                try CSVTokenizer.splitLine(
                                    b, from: start, to: end, readableEnd: n, starts: s.baseAddress!, ends: e.baseAddress!,
                                    capacity: capacity)
                            }
                        }
                        if found <= capacity { break }
                        starts = [Int](repeating: 0, count: found)
                        ends = [Int](repeating: 0, count: found)
                    }
                    let cells = (0..<found).map {
                        CSVTokenizer.unescapedString(b, from: starts[$0], to: ends[$0], lineStart: start)
                    }
                    result.append(Record(line: lineNumber, cells: cells))
                } catch {
                    let broken = Failure(line: lineNumber, error: error, header: result.first?.cells)
                    guard lenient, !result.isEmpty else {
                        failure = broken
                        return
                    }
                    skippedLines.append(broken)
                }
            }
        }
        if let failure { throw failure }
        records = result
        skipped = skippedLines
    }

    /// Why a header does not fit the expected columns: `field` is the header cell (escaped for echoing) or the
    /// missing column's name.
    public struct ColumnError: Error, Sendable, Equatable {
        public var field: String
        public var message: String
    }

    /// Maps the header's names (case-insensitive) to column indices: every `required` name present, no name
    /// outside `required` + `optional`, none twice.
    /// - Throws: ``ColumnError`` naming the first unknown, duplicate or missing column.
    public static func columns(
        of header: Record, required: [String], optional: [String]
    ) throws(ColumnError) -> [String: Int] {
        var map: [String: Int] = [:]
        for (k, raw) in header.cells.enumerated() {
            let name = raw.lowercased()
            guard required.contains(name) || optional.contains(name) else {
                throw ColumnError(field: EchoedText.show(raw),
                    message: "unknown column (expected \((required + optional).joined(separator: ", ")))")
            }
            guard map[name] == nil else { throw ColumnError(field: EchoedText.show(raw), message: "duplicate column") }
            map[name] = k
        }
        for name in required where map[name] == nil {
            throw ColumnError(field: name, message: "missing column (the header must name \(required.joined(separator: ", ")))")
        }
        return map
    }
}

/// Writing CSV: the inverse of the tokenizer for one cell.
public enum CSVCell {
    /// `text` as an RFC 4180 cell: quoted (inner quotes doubled) only when it holds `,`, `"`, CR or LF.
    public static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
