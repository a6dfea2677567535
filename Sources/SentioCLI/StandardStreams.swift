import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#endif

/// The commands' results on standard output, written with `write(2)` so that a failure is an error with its
/// reason — "<stdout>: cannot write: No space left on device", exit 2 — instead of Foundation's trap
/// (`FileHandle.write(_:)` cannot report) or lost output.
///
/// Text written with `print` goes through the C library's buffer: ``flushPrinted()`` flushes it (and checks it)
/// before every direct write, so the two never interleave out of order, and once more when a command ends
/// (`SentioCommand.main`).
enum StandardOutput {
    /// Writes `bytes` whole (retrying short writes and interrupted calls).
    static func write(_ bytes: some Collection<UInt8>) throws(WriteError) {
        try flushPrinted()
        let failure = bytes.withContiguousStorageIfAvailable { writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
        if let failure { throw error(failure) }
    }

    /// Writes `text` as UTF-8.
    static func write(_ text: String) throws(WriteError) {
        try write(Array(text.utf8))
    }

    /// Flushes what `print` has buffered; throws when any of it could not be written.
    static func flushPrinted() throws(WriteError) {
        // fflush(NULL) flushes every output stream without naming the C library's `stdout` global (not
        // concurrency-safe to name in Swift 6); standard output is the only one the commands print to.
        if fflush(nil) != 0 { throw error(errno) }
    }

    private static func error(_ code: Int32) -> WriteError {
        WriteError(path: "<stdout>", reason: String(cString: strerror(code)))
    }
}

/// Standard error as a `TextOutputStream` (`printError`): written with `write(2)`; a failure is ignored, there is
/// nowhere left to report it.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        _ = Array(string.utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
    }
}
