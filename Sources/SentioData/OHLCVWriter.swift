import Foundation
import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file could not be written (bad output directory, disk full, ...).
public struct WriteError: UserInputError, Equatable {
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): cannot write: \(reason)" }
}

/// A byte buffer for writing text files fast: numbers are formatted into bytes, never via a `String` per field.
///
/// When created with a file, it flushes every ~1 MiB so memory stays bounded for large outputs.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []
    private let file: UnsafeMutablePointer<FILE>?
    private let flushThreshold = 1 << 20
    private(set) var failed = false

    /// A writer that accumulates everything in ``bytes``.
    public init() {
        self.file = nil
        bytes.reserveCapacity(4096)
    }

    init(file: UnsafeMutablePointer<FILE>) {
        self.file = file
        bytes.reserveCapacity(flushThreshold + 4096)
    }

    @inline(__always) public mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    public mutating func append(contentsOf other: [UInt8]) {
        bytes.append(contentsOf: other)
        flushIfNeeded()
    }

    public mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends a decimal integer.
    @inline(__always) public mutating func append(integer value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendUnsigned(value.magnitude)
        } else {
            appendUnsigned(UInt64(value))
        }
    }

    @inline(__always) mutating func appendUnsigned(_ value: UInt64) {
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { raw in
            let d = raw.bindMemory(to: UInt8.self)
            repeat {
                d[count] = UInt8(v % 10) + 48
                v /= 10
                count += 1
            } while v != 0
            for k in stride(from: count - 1, through: 0, by: -1) { bytes.append(d[k]) }
        }
    }

    /// Appends `value` rounded to `decimals` places (half away from zero), e.g. `12.3400` for 4 places.
    @inline(__always) public mutating func append(_ value: Double, decimals: Int) {
        let scale = DecimalParser.exactPowersOfTen[decimals]
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9.0e18 else {  // NaN, infinities and huge values: no fixed-point form
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        let negative = scaled < 0
        let q = UInt64(abs(scaled))
        if negative && q != 0 { append(UInt8(ascii: "-")) }
        let unit = UInt64(scale)
        appendUnsigned(q / unit)
        if decimals > 0 {
            append(UInt8(ascii: "."))
            var fraction = q % unit
            var divisor = unit / 10
            for _ in 0..<decimals {
                bytes.append(UInt8(fraction / divisor) + 48)
                fraction %= divisor
                divisor /= 10
            }
        }
    }

    /// Appends the shortest decimal that reads back as exactly `value` (Swift's `description`); integral values
    /// below 2^53 are written without a decimal point.
    public mutating func append(roundTrip value: Double) {
        if value == value.rounded(), abs(value) < 9.0e15 {
            append(integer: Int64(value))
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Appends UTC epoch seconds as `YYYY-MM-DD` (when `dateOnly`) or `YYYY-MM-DDTHH:MM:SSZ`.
    public mutating func append(timestamp: Int64, dateOnly: Bool) {
        let days = floorDivide(timestamp, 86_400)
        let date = CivilDate(daysSinceEpoch: Int(days))
        appendPadded(date.year, width: 4)
        append(UInt8(ascii: "-"))
        appendPadded(date.month, width: 2)
        append(UInt8(ascii: "-"))
        appendPadded(date.day, width: 2)
        if dateOnly { return }
        let secondOfDay = Int(timestamp - days * 86_400)
        append(UInt8(ascii: "T"))
        appendPadded(secondOfDay / 3600, width: 2)
        append(UInt8(ascii: ":"))
        appendPadded((secondOfDay / 60) % 60, width: 2)
        append(UInt8(ascii: ":"))
        appendPadded(secondOfDay % 60, width: 2)
        append(UInt8(ascii: "Z"))
    }

    @inline(__always) mutating func appendPadded(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var v = value
        if v < 0 {
            append(UInt8(ascii: "-"))
            appendUnsigned(UInt64(-v))
            return
        }
        if v >= divisor * 10 { appendUnsigned(UInt64(v)); return }
        while divisor > 0 {
            bytes.append(UInt8(v / divisor) + 48)
            v %= divisor
            divisor /= 10
        }
    }

    /// Writes the buffered bytes to the file when over the threshold.
    @inline(__always) mutating func flushIfNeeded() {
        if file != nil, bytes.count >= flushThreshold { flush() }
    }

    mutating func flush() {
        guard let file, !bytes.isEmpty else { return }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress!, 1, $0.count, file) }
        if written != bytes.count { failed = true }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes single files atomically: an ``OutputTransaction`` of one file (a temporary file
/// `.NAME.sentio-tmp-PID-RANDOM` in the destination directory, then `rename(2)` over the target), so readers never
/// see a half-written file and a failure leaves the old file intact. Commands with several outputs use
/// ``OutputTransaction`` directly so that all of them change together.
public enum AtomicFile {
    /// Calls `body` with a writer to a temporary file, then renames it to `path`.
    public static func write(path: String, _ body: (inout ByteWriter) throws -> Void) throws {
        let transaction = OutputTransaction()
        try transaction.stage(path, body)
        try transaction.commit()
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(path: String, bytes: [UInt8]) throws {
        try write(path: path) { writer in writer.append(contentsOf: bytes) }
    }
}

/// Writes OHLCV series as CSV with header `timestamp,open,high,low,close,volume`.
public enum OHLCVWriter {
    /// How to write numbers and timestamps.
    public struct Options: Sendable, Equatable {
        /// Decimal places for prices; `nil` writes the shortest text that reads back exactly.
        public var priceDecimals: Int?
        /// `YYYY-MM-DD` when every timestamp is a UTC midnight, else `YYYY-MM-DDTHH:MM:SSZ`; `false` forces the
        /// full form.
        public var datesWhenMidnight: Bool

        public init(priceDecimals: Int? = nil, datesWhenMidnight: Bool = true) {
            precondition(priceDecimals.map { (0...9).contains($0) } ?? true, "priceDecimals must be in 0...9")
            self.priceDecimals = priceDecimals
            self.datesWhenMidnight = datesWhenMidnight
        }
    }

    /// Appends the CSV text of `series` to `writer`.
    public static func encode(_ series: OHLCVSeries, options: Options = .init(), into writer: inout ByteWriter) {
        let dateOnly = options.datesWhenMidnight && series.timestamps.allSatisfy { $0 % 86_400 == 0 }
        writer.append("timestamp,open,high,low,close,volume\n")
        for i in 0..<series.count {
            writer.append(timestamp: series.timestamps[i], dateOnly: dateOnly)
            appendPrice(series.open[i], options, &writer)
            appendPrice(series.high[i], options, &writer)
            appendPrice(series.low[i], options, &writer)
            appendPrice(series.close[i], options, &writer)
            writer.append(UInt8(ascii: ","))
            writer.append(roundTrip: series.volume[i])
            writer.append(UInt8(ascii: "\n"))
            writer.flushIfNeeded()
        }
    }

    @inline(__always)
    static func appendPrice(_ price: Double, _ options: Options, _ writer: inout ByteWriter) {
        writer.append(UInt8(ascii: ","))
        if let decimals = options.priceDecimals {
            writer.append(price, decimals: decimals)
        } else {
            writer.append(roundTrip: price)
        }
    }

    /// The CSV text of `series` as bytes.
    public static func encode(_ series: OHLCVSeries, options: Options = .init()) -> [UInt8] {
        var writer = ByteWriter()
        encode(series, options: options, into: &writer)
        return writer.bytes
    }

    /// Writes `series` to `path` atomically (temporary file in the same directory, then rename).
    ///
    /// - Throws: ``WriteError`` when the file cannot be created or written.
    public static func write(_ series: OHLCVSeries, to path: String, options: Options = .init()) throws {
        try AtomicFile.write(path: path) { writer in encode(series, options: options, into: &writer) }
    }
}
