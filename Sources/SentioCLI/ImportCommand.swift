import ArgumentParser
import Sentio

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio import' is not implemented yet") }
}
