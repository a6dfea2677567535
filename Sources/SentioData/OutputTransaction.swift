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
public final class OutputTransaction {
    /// A staged output: its temporary file and the target it will replace.
    private var staged: [(temporary: String, target: String)] = []
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
    public func stage(_ path: String, _ body: (inout ByteWriter) throws -> Void) throws {
        precondition(!committed, "OutputTransaction: stage after commit")
        Self.recover(inFolderOf: path)
        let temporary = Self.temporaryPath(for: path)
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
        staged.append((temporary, path))
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

    /// Removes the staged temporary files (nothing is renamed). Safe to call more than once.
    public func rollback() {
        guard !committed else { return }
        for (temporary, _) in staged { unlink(temporary) }
        staged.removeAll()
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
