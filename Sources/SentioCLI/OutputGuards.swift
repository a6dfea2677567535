import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#endif

/// Checks an output path before a command does any work: it must not be one of the files the command reads or
/// its store (the same file, also through a link or another name — writing there would replace it), and it must
/// be writable (its folder for a new or regular file; the file itself for a FIFO or device), so that a command
/// never commits its work and then fails on the output.
///
/// - Parameters:
///   - path: the output path, or nil when the option was not given (nothing to check).
///   - option: the option's name for messages (`--rejects`).
///   - inputs: the command's inputs with what they are ("the input file", "the store").
/// - Throws: ``UsageError`` naming the option, the path and the reason (exit 2).
func checkOutputPath(_ path: String?, option: String, against inputs: [(path: String, role: String)]) throws {
    guard let path else { return }
    // The same name (a file not written yet, such as another output of the command).
    let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
    for input in inputs where !input.path.isEmpty && URL(fileURLWithPath: input.path).standardizedFileURL.path == standardized {
        throw UsageError("\(option) \(path) is \(input.role) \(input.path): writing there would replace it; choose another file")
    }
    var target = stat()
    if stat(path, &target) == 0 {
        for input in inputs {
            var status = stat()
            if stat(input.path, &status) == 0, status.st_dev == target.st_dev, status.st_ino == target.st_ino {
                throw UsageError("\(option) \(path) is \(input.role) \(input.path): writing there would replace it; choose another file")
            }
        }
        let kind = target.st_mode & S_IFMT
        if kind != S_IFREG && kind != S_IFDIR {
            guard access(path, W_OK) == 0 else { throw UsageError("\(option) \(path): not writable") }
            return
        }
        if kind == S_IFDIR { throw UsageError("\(option) \(path) is a directory; give a file name") }
    }
    let folder = (path as NSString).deletingLastPathComponent
    let directory = folder.isEmpty ? "." : folder
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw UsageError("\(option) \(path): the folder \(directory) does not exist")
    }
    guard access(directory, W_OK) == 0 else { throw UsageError("\(option) \(path): the folder \(directory) is not writable") }
}

/// The input files of a command as ``checkOutputPath(_:option:against:)`` takes them.
func inputFiles(_ files: [String]) -> [(path: String, role: String)] {
    files.map { ($0, "the input file") }
}
