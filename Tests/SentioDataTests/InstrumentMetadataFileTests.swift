import Foundation
import SentioData
import SentioTestSupport
import Testing

@Suite("Instrument metadata file (symbol,name)")
struct InstrumentMetadataFileTests {
    /// A random name: letters, spaces inside, and now and then a comma, a quote or a non-ASCII letter.
    static func randomName(_ rng: inout SplitMix64) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 &,\"'éü-.")
        var name = ""
        for _ in 0..<(1 + Int(rng.next() % 24)) { name.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
        name = name.trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? "X" : name
    }

    static func cell(_ text: String, forceQuotes: Bool) -> String {
        guard forceQuotes || text.contains(where: { $0 == "," || $0 == "\"" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    @Test("seeded random tables round-trip: any header order and case, quoting as RFC 4180 allows, blank lines")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 20_261_123)
        for _ in 0..<300 {
            let count = 1 + Int(rng.next() % 12)
            var rows: [(symbol: String, name: String)] = []
            var seen = Set<String>()
            while rows.count < count {
                let symbol = String((0..<(1 + Int(rng.next() % 5))).map { _ in Character(UnicodeScalar(65 + UInt8(rng.next() % 26))) })
                guard seen.insert(symbol).inserted else { continue }
                rows.append((symbol, Self.randomName(&rng)))
            }
            let nameFirst = rng.next() % 2 == 0
            let header = nameFirst ? ["NAME", "symbol"] : ["Symbol", "name"]
            var text = header.joined(separator: ",") + (rng.next() % 2 == 0 ? "\r\n" : "\n")
            for row in rows {
                let quote = rng.next() % 4 == 0
                let cells = [Self.cell(row.symbol, forceQuotes: quote), Self.cell(row.name, forceQuotes: quote)]
                text += (nameFirst ? cells.reversed() : cells).joined(separator: ",") + "\n"
                if rng.next() % 5 == 0 { text += "\n" }
            }
            let parsed = try InstrumentMetadataFile.parse(text, file: "names.csv")
            #expect(parsed.map(\.symbol) == rows.map(\.symbol))
            #expect(parsed.map(\.name) == rows.map(\.name), "\(text)")
        }
    }

    @Test("errors name the file, the line and the field", arguments: [
        ("", "names.csv: empty file"),
        ("symbol,name\n", "names.csv: no rows after the header"),
        ("symbol\nAAA\n", "names.csv:1: field 'name': missing column"),
        ("symbol,name,extra\nAAA,x,y\n", "names.csv:1: field 'extra': unknown column"),
        ("symbol,name\nAAA,One,Two\n", "names.csv:2: expected 2 cells like the header, found 3"),
        ("symbol,name\nAAA,\n", "names.csv:2: field 'name': empty name"),
        ("symbol,name\n  ,One\n", "names.csv:2: field 'symbol': empty symbol"),
        ("symbol,name\nAAA,One\n\nBBB,Two\naaa,Three\n", "names.csv:5: field 'symbol': aaa is listed twice (first on line 2)"),
        ("symbol,name\nAAA,\"One\n", "names.csv:2"),
    ])
    func errors(text: String, message: String) {
        do {
            let rows = try InstrumentMetadataFile.parse(text, file: "names.csv")
            Issue.record("accepted: \(rows)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }
}
