import ArgumentParser
import Sentio

// Library enums used as option types by `sentio live` (the strategy options' enums are declared in
// StrategyOptions.swift, shared with `sentio backtest`).
extension LiveJournal.Synchronous: ExpressibleByArgument {}
