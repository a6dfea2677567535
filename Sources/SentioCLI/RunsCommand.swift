import ArgumentParser
import Sentio

struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "runs", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio runs' is not implemented yet") }
}
