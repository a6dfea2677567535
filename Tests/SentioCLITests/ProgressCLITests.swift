import Foundation
import SentioTestSupport
import Testing

/// The whole-job progress line (standard error, terminals only), seen through a real pseudo-terminal: `script`
/// (util-linux) runs the command with its standard output and error on a pty and copies what the terminal shows.
@Suite("progress on a terminal")
struct ProgressCLITests {
    /// `sentio arguments` on a pseudo-terminal: everything the terminal received (`\r\n` line ends), and the status.
    static func onTerminal(_ arguments: [String]) async throws -> (screen: String, status: Int32) {
        let sentio = try sentioExecutable.get().path
        let command = ([sentio] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        process.currentDirectoryURL = repositoryRoot
        let output = try temporaryDirectory("sentio-progress").appendingPathComponent("screen")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        await exited(process)
        return (String(decoding: try Data(contentsOf: output), as: UTF8.self), process.terminationStatus)
    }

    /// Each command shows its phases in order, and clears the line before its result is printed on the same
    /// terminal (the JSON after the last line clear parses whole); without a terminal there is no progress at all.
    @Test(arguments: [
        (["backtest", "Data/market", "--format", "json"], ["reading", "indicators and signals", "simulation", "writing"]),
        (["evaluate", "Data/market", "--format", "json"], ["reading", "model and scoring", "writing"]),
    ])
    func phasesThenCleanOutput(arguments: [String], phases: [String]) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            Issue.record("util-linux `script` is missing: the progress line cannot be checked on a terminal")
            return
        }
        let (screen, status) = try await Self.onTerminal(arguments)
        #expect(status == 0, "\(screen.suffix(400))")
        let command = arguments[0]
        var position = screen.startIndex
        for (k, phase) in phases.enumerated() {
            let label = "\(command) [\(k + 1)/\(phases.count)] \(phase)"
            guard let found = screen.range(of: label, range: position..<screen.endIndex) else {
                Issue.record("'\(label)' not shown after the previous phase:\n\(screen.prefix(2000))")
                return
            }
            position = found.upperBound
        }
        let clear = "\r\u{1B}[2K"
        let afterLastClear = try #require(screen.range(of: clear, options: .backwards)).upperBound
        // After the clear: the "done in" line (jobs of a second or more) and warnings, never the progress line; then
        // the result.
        let rest = screen[afterLastClear...].replacingOccurrences(of: "\r\n", with: "\n")
        let jsonStart = rest.hasPrefix("{") ? rest.startIndex : try #require(rest.range(of: "\n{")).lowerBound
        #expect(!rest[..<jsonStart].contains("/\(phases.count)] "), "\(rest.prefix(300))")
        let object = try JSONSerialization.jsonObject(with: Data(rest[jsonStart...].utf8)) as? [String: Any]
        #expect(object != nil, "the result is intact JSON")
        // Not a terminal: no progress line.
        let plain = try await runSentio(arguments)
        #expect(plain.status == 0)
        #expect(!plain.stderr.contains("[1/\(phases.count)]"), "\(plain.stderr.prefix(300))")
        #expect(!plain.stderr.contains(clear))
    }
}
