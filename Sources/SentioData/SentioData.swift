import SentioCore
@_exported import SentioCSV
