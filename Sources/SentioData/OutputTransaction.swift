import Foundation
import SentioCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The output files of one command, written all-or-nothing.
///
/// Every output is first written in full to a temporary file next to its target, named
/// `.NAME.sentio-tmp-PID-RANDOM` (recognizable, and tied to the process that wrote it). Only when all are written
/// — and the caller has committed whatever else the command does, such as a store transaction — does `commit()`
/// rename them over their targets. Until then nothing the user sees has changed; on any failure (or when the
/// transaction is dropped uncommitted) the temporary files are removed, so a failed command leaves every old file
/// as it was and no new one.
///
/// The renames of several files are made crash-safe by a commit record: before the first rename, the list of
/// `temporary → target` pairs is written (and synced) to `.sentio-commit-PID-RANDOM` in the first target's folder,
/// and removed after the last. A process killed between the renames leaves that record; the next command that
/// writes into the folder (`recover(inFolderOf:)`, run by `stage`) completes the renames. So the outputs end up all
/// old (killed before the record) or all new (killed after it), never a mix once recovered.
///
/// Stale temporary files — left by a process killed while writing (SIGKILL, power loss) — are removed by the next
/// transaction that stages a file in the same folder: only files with the recognizable name whose writer process
/// is no longer alive.
///
/// What is at the target is kept: a symbolic link is followed (the file it points to is replaced, the link stays a
/// link), and a target that exists but is not a regular file — a FIFO, a terminal, `/dev/stdout`, `/dev/null` — is
/// written into, not replaced: its output is staged in the system's temporary folder and copied into it at
/// `commit()`, after the renames (such a target cannot take part in the all-or-nothing guarantee).
public final class OutputTransaction {
    /// A staged output: its temporary file and the target it will replace.
    private var staged: [(temporary: String, target: String)] = []
    /// Staged outputs for targets that are not regular files (written into at commit, not renamed over).
    private var streamed: [(temporary: String, target: String)] = []
    private var committed = false

    /// The marker in temporary file names.
    public static let temporaryMarker = ".sentio-tmp-"
    /// The prefix of commit records.
    public static let commitRecordPrefix = ".sentio-commit-"

    public init() {}

    deinit { rollback() }

    /// The paths staged so far, in order.
    public var targets: [String] { staged.map(\.target) }

    /// Writes an output into a temporary file next to `path`; it replaces `path` only at `commit()`.
    ///
    /// - Throws: ``WriteError`` naming `path` when the temporary file cannot be created or written (the
    ///   partial file is removed); errors thrown by `body`.
    public func stage(_ requested: String, _ body: (inout ByteWriter) throws -> Void) throws {
        precondition(!committed, "OutputTransaction: stage after commit")
        // A target that exists but is not a regular file is written into through its own path (`open` follows
        // links, also `/dev/stdout`'s `/proc/self/fd/1`, whose link text is no path); any other target has its links
        // resolved so that the rename replaces the file, not the link.
        let isStream = Self.isExistingNonRegularFile(requested) || Self.isDescriptorPath(requested)
        let path = isStream ? requested : try Self.resolvingLinks(requested)
        if !isStream { Self.recover(inFolderOf: path) }
        let temporary = isStream ? Self.streamTemporaryPath() : Self.temporaryPath(for: path)
        guard let file = fopen(temporary, "wbx") else {
            throw WriteError(path: path, reason: String(cString: strerror(errno)))
        }
        var writer = ByteWriter(file: file)
        do {
            try body(&writer)
            writer.flush()
        } catch {
            fclose(file)
            unlink(temporary)
            throw error
        }
        // The data must be on disk before the rename can make it visible (a crash must not leave an empty file).
        let synced = fflush(file) == 0 && fsync(fileno(file)) == 0
        let closed = fclose(file) == 0
        guard synced, closed, !writer.failed else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(path: path, reason: reason)
        }
        if isStream { streamed.append((temporary, path)) } else { staged.append((temporary, path)) }
    }

    /// Stages `bytes` as the new content of `path`.
    public func stage(_ path: String, bytes: [UInt8]) throws {
        try stage(path) { $0.append(contentsOf: bytes) }
    }

    /// Stages `text` (UTF-8) as the new content of `path`.
    public func stage(_ path: String, text: String) throws {
        try stage(path, bytes: Array(text.utf8))
    }

    /// Renames every staged file over its target (through a commit record, see the type's description).
    ///
    /// - Throws: ``WriteError`` when the commit record cannot be written (nothing renamed, temporary files
    ///   removed) or a rename fails (the renames already done stay; the record is kept for recovery).
    public func commit() throws {
        precondition(!committed, "OutputTransaction: commit twice")
        committed = true
        try renameStaged()
        try copyStreamed()
    }

    private func renameStaged() throws {
        guard !staged.isEmpty else { return }
        if staged.count == 1 {
            let (temporary, target) = staged[0]
            if rename(temporary, target) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw WriteError(path: target, reason: reason)
            }
            return
        }
        let folder = Self.folder(of: staged[0].target)
        let record = folder + Self.commitRecordPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let lines = staged.map { Self.absolute($0.temporary) + "\t" + Self.absolute($0.target) + "\n" }.joined()
        do {
            try Self.writeSynced(record, text: lines)
        } catch {
            for (temporary, _) in staged { unlink(temporary) }
            throw WriteError(path: staged[0].target, reason: "cannot write the commit record \(record): \(error)")
        }
        Self.testHook("commit-record-written")
        for (temporary, target) in staged {
            if rename(temporary, target) != 0 {
                throw WriteError(path: target, reason: String(cString: strerror(errno)))
            }
            Self.testHook("renamed")
        }
        unlink(record)
    }

    /// Copies each output staged for a non-regular target into it (opened for writing, truncated where that
    /// applies), then removes the temporary file; every temporary file is removed even after a failure.
    private func copyStreamed() throws {
        defer { for (temporary, _) in streamed { unlink(temporary) } }
        for (temporary, target) in streamed {
            guard let data = FileManager.default.contents(atPath: temporary) else {
                throw WriteError(path: target, reason: "cannot read back the staged output \(temporary)")
            }
            // `/dev/stdout` and the like: the process's own descriptor, as the shell set it up (appending, say);
            // anything else opened for writing (truncated only if it turns out to be a regular file).
            let inherited = Self.inheritedDescriptor(target)
            let descriptor = inherited ?? open(target, O_WRONLY | O_CLOEXEC | (Self.isRegularFile(target) ? O_TRUNC : 0))
            guard descriptor >= 0 else { throw WriteError(path: target, reason: String(cString: strerror(errno))) }
            defer { if inherited == nil { close(descriptor) } }
            if let failure = data.withUnsafeBytes({ writeAll(descriptor, $0) }) {
                throw WriteError(path: target, reason: String(cString: strerror(failure)))
            }
        }
    }

    /// Removes the staged temporary files (nothing is renamed). Safe to call more than once.
    public func rollback() {
        guard !committed else { return }
        for (temporary, _) in staged + streamed { unlink(temporary) }
        staged.removeAll()
        streamed.removeAll()
    }

    /// `path` with its symbolic links followed to the file they name (which may not exist yet); `path` itself when
    /// it is not a link.
    ///
    /// - Throws: ``WriteError`` for a chain of more than 40 links (a loop).
    static func resolvingLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { return current }
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : folder(of: current) + target
        }
        throw WriteError(path: path, reason: "too many levels of symbolic links")
    }

    /// Whether `path` exists and is something other than a regular file or a directory (a FIFO, a device, a socket).
    static func isExistingNonRegularFile(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// `/dev/…` and `/proc/…` paths (`/dev/stdout`, `/dev/fd/3`): written into even when they lead to a regular file
    /// (a shell redirection, perhaps appending), never renamed over.
    static func isDescriptorPath(_ path: String) -> Bool {
        path.hasPrefix("/dev/") || path.hasPrefix("/proc/")
    }

    /// The descriptor a `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` path names, if it is open.
    static func inheritedDescriptor(_ path: String) -> Int32? {
        let number: Int32?
        switch path {
        case "/dev/stdout": number = 1
        case "/dev/stderr": number = 2
        default:
            let prefixes = ["/dev/fd/", "/proc/self/fd/"]
            number = prefixes.first { path.hasPrefix($0) }.flatMap { Int32(path.dropFirst($0.count)) }
        }
        guard let number, fcntl(number, F_GETFD) >= 0 else { return nil }
        return number
    }

    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// A temporary file in the system's temporary folder for an output whose target is not a regular file.
    static func streamTemporaryPath() -> String {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return (folder.hasSuffix("/") ? folder : folder + "/") + "sentio-output" + temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    // MARK: - Recovery and stale files

    /// Completes commits interrupted by a crash and removes stale temporary files in the folder of `path`.
    ///
    /// A commit record whose writer process is gone is replayed: each listed temporary file that still exists is
    /// renamed over its target (all of them existed when the record was written, so the outcome is all new).
    /// Then every `.*.sentio-tmp-PID-*` file whose process `PID` is not alive is removed. Files of live processes
    /// (another command writing right now) are left alone.
    public static func recover(inFolderOf path: String) {
        let folder = folder(of: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return
        }
        for name in names where name.hasPrefix(commitRecordPrefix) {
            guard let pid = Int32(name.dropFirst(commitRecordPrefix.count).prefix { $0 != "-" }), !isAlive(pid) else {
                continue
            }
            let record = folder + name
            if let text = try? String(contentsOfFile: record, encoding: .utf8) {
                for line in text.split(separator: "\n") {
                    let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
                    if parts.count == 2, access(parts[0], F_OK) == 0 { _ = rename(parts[0], parts[1]) }
                }
            }
            unlink(record)
        }
        for name in names where name.hasPrefix(".") {
            guard let range = name.range(of: temporaryMarker) else { continue }
            let tail = name[range.upperBound...]
            guard let pid = Int32(tail.prefix { $0 != "-" }), !isAlive(pid) else { continue }
            unlink(folder + name)
        }
    }

    /// Whether a process with this id exists (`kill(pid, 0)`; a process of another user counts as alive).
    static func isAlive(_ pid: Int32) -> Bool {
        if pid == getpid() { return true }
        if pid <= 0 { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// `.NAME.sentio-tmp-PID-RANDOM` in the folder of `path`.
    static func temporaryPath(for path: String) -> String {
        let name = (path as NSString).lastPathComponent
        return folder(of: path) + "." + name + temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The folder part of `path`, with a trailing slash (empty for a bare file name).
    static func folder(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "" : (directory.hasSuffix("/") ? directory : directory + "/")
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    private static func writeSynced(_ path: String, text: String) throws {
        guard let file = fopen(path, "wbx") else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        let ok = fwrite(bytes, 1, bytes.count, file) == bytes.count && fflush(file) == 0 && fsync(fileno(file)) == 0
        if fclose(file) != 0 || !ok {
            unlink(path)
            throw WriteError(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Test-only crash points: `SENTIO_TEST_CRASH_AT=POINT` kills the process with SIGKILL when it reaches POINT
    /// ("staged" after all outputs are written, "commit-record-written", "renamed" after the first rename).
    static func testHook(_ point: String) {
        if let wanted = ProcessInfo.processInfo.environment["SENTIO_TEST_CRASH_AT"], wanted == point {
            kill(getpid(), SIGKILL)
        }
    }

    /// Calls the "staged" crash point (for commands to call once all outputs are staged, before committing).
    public static func reachedStagedPoint() { testHook("staged") }
}

/// Writes all of `bytes` to `descriptor` with `write(2)`, retrying short writes and interrupted calls.
///
/// - Returns: nil when everything was written, else the `errno` of the failed call.
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += n
    }
    return nil
}
