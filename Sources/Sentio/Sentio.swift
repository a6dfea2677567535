// The umbrella module: `import Sentio` brings in the whole engine.
@_exported import SentioBacktest
@_exported import SentioCore
@_exported import SentioData
@_exported import SentioFunds
@_exported import SentioIndicators
@_exported import SentioLive
@_exported import SentioReports
@_exported import SentioSavings
@_exported import SentioSignals
@_exported import SentioStore
