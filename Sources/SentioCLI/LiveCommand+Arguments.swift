import ArgumentParser
import Sentio

// Library enums used as option types by `sentio live` (FillTiming and ContributionPeriod are declared in
// BacktestCommand.swift, whose options `sentio live` shares).
extension LiveJournal.Synchronous: ExpressibleByArgument {}
