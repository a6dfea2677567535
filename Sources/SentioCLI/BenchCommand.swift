import ArgumentParser
import Sentio

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio bench' is not implemented yet") }
}
