import ArgumentParser
import Sentio

// Library enums used as option types by `sentio live`. Branch w-bt declares the same two conformances in
// BacktestCommand.swift: when both are merged, delete this file (a conformance may be declared only once).
extension FillTiming: ExpressibleByArgument {}
extension ContributionPeriod: ExpressibleByArgument {}
extension LiveJournal.Synchronous: ExpressibleByArgument {}
