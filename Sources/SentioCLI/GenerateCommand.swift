import ArgumentParser
import Sentio

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio generate' is not implemented yet") }
}
