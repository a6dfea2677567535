import Foundation
import SentioCore
import SentioData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tails a directory of per-symbol OHLCV CSV files (`SYMBOL.csv`, one per symbol of the universe) whose rows are
/// appended by any downloader: each ``poll()`` returns the bars of the rows completed since the previous one.
///
/// Rules:
/// - A file is read from where the previous poll stopped. Its first line is the header; each later complete line
///   (ended by a line feed) is read with the OHLCV reader's rules (the header and that one row), so a row is a bar
///   exactly when `sentio` would read it from a whole file. Blank lines are skipped.
/// - A last line without its line feed is **not** read: it waits until the writer completes it (a downloader may
///   be in the middle of writing it).
/// - A row that is not a bar is a ``FollowedDirectory/RowError`` naming the file, the line and the field; reading goes on.
/// - A file that became shorter than what was read (truncated), or was replaced by another file (another inode:
///   rotated, or written anew with rename), is read again from its start, with a ``FollowedDirectory/Poll/notices`` line
///   saying so: its rows already ingested come again and are duplicates (a no-op) for the live session.
/// - Files whose name (without `.csv`, case-insensitive) is not a symbol of the universe, and hidden files, are
///   ignored; a symbol without a file simply has no bars yet.
/// - The bars of one poll are in timeline order: by timestamp, then universe order, then file order.
///
/// `sentio live --follow DIR` and `sentio serve --follow DIR` both run on it.
public struct FollowedDirectory: Sendable {
    /// One row that could not be read as a bar.
    public struct RowError: Sendable, Equatable, CustomStringConvertible {
        /// The file's path.
        public var file: String
        /// The 1-based line number in the file (the header is line 1).
        public var line: Int
        /// `FILE:LINE: reason` (the OHLCV reader's message, naming the field).
        public var message: String
        public var description: String { message }
    }

    /// What one look at the files found.
    public struct Poll: Sendable, Equatable {
        /// New bars, in timeline order.
        public var bars: [FeedBar] = []
        /// Rows that are not bars, in file and line order.
        public var rowErrors: [RowError] = []
        /// Things the user should know (a truncated or replaced file read again, an unreadable file).
        public var notices: [String] = []

        /// An empty poll: nothing new.
        public init() {}
    }

    /// The state of one followed file.
    struct FileState: Sendable {
        var symbol: String
        /// Device and inode of the file read so far (a change means the file was replaced).
        var identity: (dev: UInt64, ino: UInt64)
        /// Bytes consumed (complete lines only, plus the bytes of `partial`).
        var offset: Int = 0
        /// Lines read so far (the header is line 1).
        var lines = 0
        var header: String?
        /// The bytes of an incomplete last line.
        var partial: [UInt8] = []
    }

    /// The followed directory.
    public let directory: String
    /// The symbols whose files are read, in universe order (the tie-break of bars with equal timestamps).
    public let universe: [String]
    /// How rows are read: the date form (`--date-format`) and the zone of wall-clock times (`--timezone`); prices are
    /// always as they arrive (a growing file cannot be back-adjusted: `PriceAdjustment.none`).
    public let readOptions: ReadOptions
    private var files: [String: FileState] = [:]
    private var unreadable: Set<String> = []
    private let rank: [String: Int]

    /// - Parameters:
    ///   - directory: the directory holding the `SYMBOL.csv` files.
    ///   - universe: the symbols to read (other files are ignored).
    ///   - dateFormat: the pattern of the timestamp column (`nil`: the reader's built-in forms, or a form detected
    ///     from the row itself; a row both month/day and day/month could be is an error asking for a pattern).
    ///   - timeZone: the zone of timestamps written with a time of day and no offset (`nil`: UTC).
    /// - Throws: ``FollowError/notADirectory(_:)`` when `directory` does not exist or is not a directory.
    public init(
        directory: String, universe: [String], dateFormat: DateFormat? = nil, timeZone: LocalTimeZone? = nil
    ) throws(FollowError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notADirectory(directory)
        }
        self.directory = directory
        self.universe = universe
        readOptions = ReadOptions(dateFormat: dateFormat, timeZone: timeZone, adjust: .none)
        var rank: [String: Int] = [:]
        for (k, s) in universe.enumerated() where rank[s] == nil { rank[s] = k }
        self.rank = rank
    }

    /// The symbols of the CSV files in `directory` (file names without `.csv`, sorted): a universe
    /// for a session that starts from the files present.
    /// - Parameter directory: the directory to list.
    /// - Throws: ``FollowError/notADirectory(_:)``.
    public static func symbols(in directory: String) throws(FollowError) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw .notADirectory(directory)
        }
        let symbols = names.filter { $0.lowercased().hasSuffix(".csv") && !$0.hasPrefix(".") }
            .map { OHLCVReader.symbolFromPath($0) }
        return Array(Set(symbols)).sorted()
    }

    /// Reads what was appended to the files since the previous poll (see the type's rules).
    public mutating func poll() -> Poll {
        var result = Poll()
        var arrived: [(order: Int, bar: FeedBar)] = []
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            result.notices.append("\(directory): cannot list the directory; trying again at the next poll")
            return result
        }
        var bySymbol: [String: String] = [:]
        for s in universe { bySymbol[s.uppercased()] = s }
        for name in names.sorted() where name.lowercased().hasSuffix(".csv") && !name.hasPrefix(".") {
            guard let symbol = bySymbol[OHLCVReader.symbolFromPath(name).uppercased()] else { continue }
            let path = directory + "/" + name
            read(path: path, symbol: symbol, into: &result, arrived: &arrived)
        }
        arrived.sort {
            ($0.bar.bar.timestamp, rank[$0.bar.symbol] ?? 0, $0.order) < ($1.bar.bar.timestamp, rank[$1.bar.symbol] ?? 0, $1.order)
        }
        result.bars = arrived.map(\.bar)
        return result
    }

    private mutating func read(path: String, symbol: String, into result: inout Poll, arrived: inout [(order: Int, bar: FeedBar)]) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            // Gone between the listing and the open (a rename in progress): try again next time, once noted.
            if unreadable.insert(path).inserted {
                result.notices.append("\(path): cannot open (\(String(cString: strerror(errno)))); trying again at the next poll")
            }
            return
        }
        defer { close(descriptor) }
        unreadable.remove(path)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let identity = (dev: UInt64(info.st_dev), ino: UInt64(info.st_ino))
        let size = Int(info.st_size)
        var file = files[path] ?? FileState(symbol: symbol, identity: identity)
        if file.identity != identity {
            result.notices.append(
                "\(path): the file was replaced (another file now has its name): reading it again from its start; rows already ingested are duplicates")
            file = FileState(symbol: symbol, identity: identity)
        } else if size < file.offset {
            result.notices.append(
                "\(path): the file was truncated (\(size) bytes, \(file.offset) already read): reading it again from its start; rows already ingested are duplicates")
            file = FileState(symbol: symbol, identity: identity)
        }
        if size > file.offset {
            var chunk = [UInt8](repeating: 0, count: size - file.offset)
            var got = 0
            while got < chunk.count {
                let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, $0.count - got, off_t(file.offset + got)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                got += n
            }
            file.offset += got
            file.partial.append(contentsOf: chunk[0..<got])
            var start = 0
            while let newline = file.partial[start...].firstIndex(of: 0x0A) {
                let line = String(decoding: file.partial[start..<newline], as: UTF8.self)
                start = newline + 1
                file.lines += 1
                guard let header = file.header else {
                    file.header = line
                    continue
                }
                if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
                do {
                    // The CSV reader's own rules, on the header and this one row. Prices as they arrive: a growing
                    // file cannot be back-adjusted (an adjusted close column is not used).
                    let parsed = try OHLCVReader.parse(text: header + "\n" + line, file: path, symbol: symbol, options: readOptions)
                    if parsed.series.count == 1 {
                        arrived.append((arrived.count, FeedBar(symbol: symbol, bar: parsed.series[bar: 0])))
                    }
                } catch {
                    var message = error.description
                    let prefix = "\(path):2: "
                    if message.hasPrefix(prefix) { message = "\(path):\(file.lines): " + message.dropFirst(prefix.count) }
                    result.rowErrors.append(RowError(file: path, line: file.lines, message: message))
                }
            }
            file.partial.removeSubrange(0..<start)
        }
        files[path] = file
    }
}

/// Why a directory cannot be followed.
public enum FollowError: UserInputError, Equatable {
    /// The path does not exist or is not a directory.
    case notADirectory(String)

    public var description: String {
        switch self {
        case .notADirectory(let path): "--follow \(path): no such directory"
        }
    }
}
