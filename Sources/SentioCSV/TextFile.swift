import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a text file could not be read, in words, naming the file.
public struct TextFileError: UserInputError, Equatable, Sendable {
    public var file: String
    /// 1-based line of the first byte that is not UTF-8, when that is the problem.
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `events.csv line 3: not UTF-8 text (byte 0xE9 at column 12)` or `funds/: cannot read: is a directory, not a file`.
    public var description: String {
        if let line { return "\(file) line \(line): \(reason)" }
        return "\(file): \(reason)"
    }
}

/// Reads whole text files (fund events, metadata, index levels, cash flows, configurations) with errors that
/// name the file and say what is wrong.
public enum TextFile {
    /// The largest file read (256 MiB): input such as `/dev/zero` stops with an error instead of filling memory.
    public static let maximumBytes = 256 << 20

    /// The UTF-8 text of the file at `path` (a leading byte-order mark is kept; the CSV readers skip it).
    ///
    /// - Throws: ``TextFileError``: the file does not exist or cannot be opened (the system's reason, such as
    ///   "permission denied"); it is a directory; it is larger than ``maximumBytes``; it is not UTF-8 (with the
    ///   line and column of the first bad byte). An empty file (or `/dev/null`) reads as `""`.
    public static func read(_ path: String) throws(TextFileError) -> String {
        guard !path.isEmpty else { throw TextFileError(file: "''", reason: "empty file name") }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TextFileError(file: path, reason: "cannot open: \(systemReason(errno))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw TextFileError(file: path, reason: "cannot read: \(systemReason(errno))")
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw TextFileError(file: path, reason: "is a directory, not a file")
        }
        var bytes: [UInt8] = []
        if (status.st_mode & S_IFMT) == S_IFREG { bytes.reserveCapacity(Int(status.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc_read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw TextFileError(file: path, reason: "cannot read: \(systemReason(errno))")
            }
            if got == 0 { break }
            bytes.append(contentsOf: chunk[0..<got])
            if bytes.count > maximumBytes {
                throw TextFileError(file: path, reason: "larger than \(maximumBytes >> 20) MiB: not a text file Sentio reads")
            }
        }
        return try decode(bytes, file: path)
    }

    /// `bytes` as a String when they are UTF-8; otherwise an error with the line and column of the first bad byte.
    public static func decode(_ bytes: [UInt8], file: String) throws(TextFileError) -> String {
        if let text = String(validatingUTF8Bytes: bytes) { return text }
        // Find the first invalid byte by decoding scalar by scalar.
        var line = 1, column = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0, lineStartOffset = 0
        var scalarStart = 0
        var consumed = 0
        loop: while true {
            scalarStart = consumed
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                consumed += UTF8.width(scalar)
                if scalar == "\n" {
                    line += 1
                    lineStartOffset = consumed
                }
            case .emptyInput:
                break loop
            case .error:
                offset = scalarStart
                column = offset - lineStartOffset + 1
                let bad = offset < bytes.count ? bytes[offset] : 0
                throw TextFileError(
                    file: file, line: line,
                    reason: "not UTF-8 text (byte 0x\(String(bad, radix: 16, uppercase: true)) at byte \(column) of the line); save the file as UTF-8")
            }
        }
        // Unreachable in practice (validation failed, so decoding finds an error).
        throw TextFileError(file: file, reason: "not UTF-8 text")
    }

    static func systemReason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file or directory"
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "is a directory, not a file"
        default: return String(cString: strerror(code))
        }
    }
}

@inline(__always)
private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

extension String {
    /// `bytes` as a String, or `nil` when they are not valid UTF-8.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var valid = true
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break loop
            case .error: valid = false; break loop
            }
        }
        guard valid else { return nil }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
