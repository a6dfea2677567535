import ArgumentParser
import Sentio

struct BacktestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backtest", abstract: "(not yet implemented)")
    func run() throws { throw UsageError("'sentio backtest' is not implemented yet") }
}
