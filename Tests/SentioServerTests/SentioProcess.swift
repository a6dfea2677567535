import Foundation
import SentioTestSupport

// The one way CLI tests run the built `sentio` executable as a child process.

/// What a finished `sentio` process left behind.
struct SentioRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

struct SentioExecutableNotFound: Error, CustomStringConvertible {
    var searched: [String]
    var description: String {
        "no built `sentio` executable (searched \(searched)); run `swift build` or set SENTIO_BINARY"
    }
}

/// The built `sentio`: `$SENTIO_BINARY`, else the products directory that holds the test bundle
/// (SwiftPM builds the executable there for this test target), else `.build/debug`.
let sentioExecutable: Result<URL, SentioExecutableNotFound> = {
    let fm = FileManager.default
    var directories: [URL] = []
    if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
    }
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        directories.append(bundle.bundleURL.deletingLastPathComponent())
    }
    directories += [
        Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        repositoryRoot.appendingPathComponent(".build/debug"),
    ]
    var candidates = directories.map { $0.appendingPathComponent("sentio").path }
    if let explicit = ProcessInfo.processInfo.environment["SENTIO_BINARY"] { candidates.insert(explicit, at: 0) }
    for path in candidates {
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue, fm.isExecutableFile(atPath: path) {
            return .success(URL(fileURLWithPath: path))
        }
    }
    return .failure(SentioExecutableNotFound(searched: candidates))
}()

/// Starts `sentio arguments...` in `directory` (default: the repository root). Output goes to files in a
/// temporary directory, so no pipe can fill up and block the child.
func startSentio(
    _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil
) throws -> (process: Process, stdout: URL, stderr: URL) {
    let process = Process()
    process.executableURL = try sentioExecutable.get()
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.currentDirectoryURL = directory ?? repositoryRoot
    let outputDirectory = try temporaryDirectory("sentio-cli-output")
    let stdout = outputDirectory.appendingPathComponent("stdout"), stderr = outputDirectory.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: stdout)
    process.standardError = try FileHandle(forWritingTo: stderr)
    try process.run()
    return (process, stdout, stderr)
}

/// Runs `sentio arguments...` to completion and returns its exit status and output.
func runSentio(_ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil) throws -> SentioRun {
    let (process, stdout, stderr) = try startSentio(arguments, environment: environment, in: directory)
    process.waitUntilExit()
    defer { try? FileManager.default.removeItem(at: stdout.deletingLastPathComponent()) }
    return SentioRun(
        status: process.terminationStatus,
        stdout: String(decoding: try Data(contentsOf: stdout), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: stderr), as: UTF8.self))
}
