import ArgumentParser
import Sentio

struct SignalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signals", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio signals' is not implemented yet") }
}
