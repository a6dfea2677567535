import ArgumentParser
import Sentio

struct XirrCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "xirr", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio xirr' is not implemented yet") }
}
