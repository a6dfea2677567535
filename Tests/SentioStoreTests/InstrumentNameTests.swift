import Foundation
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioStore

@Suite("Instrument names in the store")
struct InstrumentNameTests {
    @Test("overwrite replaces and creates rows; without overwrite only unnamed imported instruments get a name")
    func setNames() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath("names"), mode: .createIfMissing)
        try store.importSeries(randomSeries(symbol: "AAA", count: 10, seed: 1), sourcePath: "AAA.csv", fingerprint: "a")
        try store.importSeries(randomSeries(symbol: "BBB", count: 10, seed: 2), sourcePath: "BBB.csv", fingerprint: "b")
        #expect(try store.instruments().map(\.name) == [nil, nil])

        // Defaults: only existing rows without a name; no row is created for CCC.
        #expect(try store.setInstrumentNames([("AAA", "Alpha"), ("CCC", "Gamma")], overwrite: false) == 1)
        #expect(try store.instruments().map(\.symbol) == ["AAA", "BBB"])
        #expect(try store.setInstrumentNames([("AAA", "Other")], overwrite: false) == 0)
        #expect(try store.instruments().first?.name == "Alpha")

        // Overrides: replace, and create a bar-less row for a symbol not imported yet.
        #expect(try store.setInstrumentNames([("AAA", "Apple"), ("CCC", "Gamma")], overwrite: true) == 2)
        #expect(try store.setInstrumentNames([("AAA", "Apple")], overwrite: true) == 0)
        let rows = try store.instruments()
        #expect(rows.map(\.symbol) == ["AAA", "BBB", "CCC"])
        #expect(rows.map(\.name) == ["Apple", nil, "Gamma"])
        #expect(rows.map(\.barCount) == [10, 10, 0])
        #expect(try store.integrityCheck() == ["ok"])

        // The named, bar-less instrument takes its bars later without losing the name.
        try store.importSeries(randomSeries(symbol: "CCC", count: 5, seed: 3), sourcePath: "CCC.csv", fingerprint: "c")
        #expect(try store.instruments().last.map { ($0.name, $0.barCount) } ?? (nil, 0) == ("Gamma", 5))

        #expect(throws: StoreError.self) { try store.setInstrumentNames([("AAA", "")], overwrite: true) }
        #expect(throws: StoreError.self) { try store.setInstrumentNames([("", "x")], overwrite: true) }
    }
}
