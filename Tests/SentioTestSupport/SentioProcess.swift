import Foundation

// The one way CLI tests run the built `sentio` (and `sentio-dev`, the benchmark and test helpers) as a child process.

/// What a finished `sentio` process left behind.
public struct SentioRun {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

public struct SentioExecutableNotFound: Error, CustomStringConvertible {
    var name: String
    var variable: String
    var searched: [String]
    public var description: String {
        "no built `\(name)` executable (searched \(searched)); run `swift build` or set \(variable)"
    }
}

/// The built `sentio`: `$SENTIO_BINARY`, else the products directory that holds the test bundle
/// (SwiftPM builds the executable there for this test target), else `.build/debug`.
public let sentioExecutable = locateExecutable("sentio", variable: "SENTIO_BINARY")

/// The built `sentio-dev` (benchmark and test helpers): `$SENTIO_DEV_BINARY`, else beside `sentio`.
public let sentioDevExecutable = locateExecutable("sentio-dev", variable: "SENTIO_DEV_BINARY")

/// `name` in `$variable`, the test bundle's products directory, or `.build/debug`.
public func locateExecutable(_ name: String, variable: String) -> Result<URL, SentioExecutableNotFound> {
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
    var candidates = directories.map { $0.appendingPathComponent(name).path }
    if let explicit = ProcessInfo.processInfo.environment[variable] { candidates.insert(explicit, at: 0) }
    for path in candidates {
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue, fm.isExecutableFile(atPath: path) {
            return .success(URL(fileURLWithPath: path))
        }
    }
    return .failure(SentioExecutableNotFound(name: name, variable: variable, searched: candidates))
}

/// Starts `sentio arguments...` in `directory` (default: the repository root). Output goes to files in a
/// temporary directory, so no pipe can fill up and block the child. Standard input: `input` (a `Pipe` or a
/// `FileHandle` the test writes to) when given, else the file `stdin`, else nothing. `output` replaces the stdout
/// file (say `/dev/full`; the returned file then stays empty).
public func startSentio(
    _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil, stdin: URL? = nil,
    input: Any? = nil, output: FileHandle? = nil, executable: Result<URL, SentioExecutableNotFound> = sentioExecutable
) throws -> (process: Process, stdout: URL, stderr: URL) {
    let process = Process()
    process.executableURL = try executable.get()
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.currentDirectoryURL = directory ?? repositoryRoot
    let outputDirectory = try temporaryDirectory("sentio-cli-output")
    let stdout = outputDirectory.appendingPathComponent("stdout"), stderr = outputDirectory.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
    process.standardOutput = try output ?? FileHandle(forWritingTo: stdout)
    process.standardError = try FileHandle(forWritingTo: stderr)
    process.standardInput = try input ?? stdin.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
    try process.run()
    return (process, stdout, stderr)
}

/// Runs `sentio arguments...` to completion and returns its exit status and output.
public func runSentio(
    _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil, stdin: URL? = nil,
    output: FileHandle? = nil, executable: Result<URL, SentioExecutableNotFound> = sentioExecutable
) async throws -> SentioRun {
    await ChildProcessSlots.shared.acquire()
    defer { ChildProcessSlots.shared.release() }
    let (process, stdout, stderr) = try startSentio(
        arguments, environment: environment, in: directory, stdin: stdin, output: output, executable: executable)
    // Waited for off the cooperative pool: a test holding a pool thread for a child's whole run starves the
    // in-process servers and WebSocket clients of other tests (the pool has one thread per core).
    await exited(process)
    defer { try? FileManager.default.removeItem(at: stdout.deletingLastPathComponent()) }
    return SentioRun(
        status: process.terminationStatus,
        stdout: String(decoding: try Data(contentsOf: stdout), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: stderr), as: UTF8.self))
}

/// Runs `sentio-dev arguments...` to completion.
public func runSentioDev(_ arguments: [String], in directory: URL? = nil) async throws -> SentioRun {
    try await runSentio(arguments, in: directory, executable: sentioDevExecutable)
}

/// Starts `sentio-dev arguments...`.
public func startSentioDev(_ arguments: [String], in directory: URL? = nil) throws -> (process: Process, stdout: URL, stderr: URL) {
    try startSentio(arguments, in: directory, executable: sentioDevExecutable)
}

/// Bounds how many children `runSentio` runs at once (twice the cores): its waits no longer hold pool threads, so
/// without a bound every CLI suite would start its children together. Waiting for a slot suspends; it never blocks.
final class ChildProcessSlots: @unchecked Sendable {
    // Unchecked: `free` and `waiters` are used only under `lock`.
    static let shared = ChildProcessSlots(limit: max(2, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private let lock = NSLock()
    private var free: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { free = limit }

    func acquire() async {
        await withCheckedContinuation { (slot: CheckedContinuation<Void, Never>) in
            lock.lock()
            if free > 0 {
                free -= 1
                lock.unlock()
                slot.resume()
            } else {
                waiters.append(slot)
                lock.unlock()
            }
        }
    }

    func release() {
        lock.lock()
        if waiters.isEmpty {
            free += 1
            lock.unlock()
        } else {
            let next = waiters.removeFirst()
            lock.unlock()
            next.resume()
        }
    }
}

/// A `sentio serve` started as a child process, once it listens: the process, its port and its standard error (the
/// ready line included, for tests that read what it printed).
public struct ServeProcess {
    public var process: Process
    public var port: Int
    public var stderr: URL
    /// Everything it printed on standard error until it listened.
    public var startupText: String
}

/// Starts `sentio serve` with `arguments` (which give `--port 0`) and waits for its ready line
/// (`sentio serve: listening on http://HOST:PORT`); a server that exits first fails with what it printed, and one
/// that never listens is terminated.
public func startServe(_ arguments: [String], environment: [String: String]? = nil) async throws -> ServeProcess {
    let (process, _, stderr) = try startSentio(arguments, environment: environment)
    let prefix = "sentio serve: listening on http://"
    var text = ""
    do {
        try await pollUntil("sentio serve never printed its ready line", interval: .milliseconds(20),
            failFast: { process.isRunning ? nil : "sentio serve exited: \(text)" }) {
            text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains { $0.hasPrefix(prefix) }
        }
    } catch {
        process.terminate()
        throw error
    }
    let line = text.split(separator: "\n").first { $0.hasPrefix(prefix) }!
    return ServeProcess(process: process, port: Int(line.split(separator: ":").last!)!, stderr: stderr, startupText: text)
}
