import ArgumentParser
import Sentio

struct IndicatorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "indicators", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio indicators' is not implemented yet") }
}
