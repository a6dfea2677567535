import ArgumentParser
import Sentio

struct FundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fund", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio fund' is not implemented yet") }
}
