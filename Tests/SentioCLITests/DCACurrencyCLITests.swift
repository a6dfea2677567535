import Foundation
import SentioTestSupport
import Testing

/// `key,value` rows of a fixture summary.
private func summary(_ name: String) throws -> [String: String] {
    var out: [String: String] = [:]
    for line in try fixtureText("dca_fx/\(name)_summary.csv").split(separator: "\n").dropFirst() {
        let cells = line.split(separator: ",", maxSplits: 1).map(String.init)
        out[cells[0]] = cells[1]
    }
    return out
}

@Suite("sentio backtest --strategy dca --currency GBP --fx (pandas reference)")
struct DCACurrencyCLITests {
    @Test("both currencies and every execution match the independent pandas computation", arguments: [
        ("weekly_next_open", ["--amount", "100", "--every", "week"]),
        ("monthly_close", ["--amount", "250", "--every", "month", "--fill", "close", "--commission", "0"]),
    ])
    func matchesPandas(name: String, options: [String]) async throws {
        let events = try temporaryDirectory("dca-fx").appendingPathComponent("events.ndjson").path
        let run = try await runSentio(["backtest", fixturePath("dca_fx/SPXL.csv"), "--strategy", "dca", "--currency", "GBP",
                                 "--fx", fixturePath("dca_fx/GBPUSD.csv"), "--events", events, "--format", "json"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("no GBPUSD rate on 5 bar date(s)") && run.stderr.contains("2023-04-07"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let currency = try #require(root["currency"] as? [String: Any])
        let expected = try summary(name)
        func pair(_ key: String, _ code: String) throws -> Double {
            try #require((currency[key] as? [String: Any])?[code] as? Double)
        }
        func value(_ key: String) throws -> Double {
            let text = try #require(expected[key])
            return try #require(Double(text))
        }
        expectClose(try pair("invested", "GBP"), try value("invested_gbp"), relative: 1e-12)
        expectClose(try pair("invested", "USD"), try value("invested_usd"), relative: 1e-12)
        expectClose(try pair("value", "GBP"), try value("value_gbp"), relative: 1e-10)
        expectClose(try pair("value", "USD"), try value("value_usd"), relative: 1e-10)
        expectClose(try pair("timeWeightedReturnPercent", "GBP"), try value("twr_gbp_percent"), relative: 1e-10)
        expectClose(try pair("timeWeightedReturnPercent", "USD"), try value("twr_usd_percent"), relative: 1e-10)
        expectClose(try pair("moneyWeightedReturnPercent", "GBP"), try value("mwr_gbp_percent"), relative: 1e-8)
        expectClose(try pair("moneyWeightedReturnPercent", "USD"), try value("mwr_usd_percent"), relative: 1e-8)
        expectClose(try #require(currency["fxEffectPercent"] as? Double), try value("fx_effect_percent"), relative: 1e-9)
        expectClose(try #require(root["finalEquity"] as? Double), try value("value_gbp"), relative: 1e-10)
        // The events: one line per purchase, in the app's payload style, against the pandas purchases.
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        let reference = try fixtureText("dca_fx/\(name)_executions.csv").split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let executions = try value("executions")
        #expect(lines.count == reference.count && Double(lines.count) == executions)
        for (line, ref) in zip(lines, reference) {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(Array(event.keys).sorted() == ["amount_gbp", "dca_schedule_id", "event", "filled_price", "filled_qty", "fx_rate",
                                                   "price_gbp", "price_usd", "side", "symbol", "timestamp"])
            #expect(line.hasPrefix("{\"event\": \"dca_executed\", \"symbol\": \"SPXL\", \"side\": \"buy\", \"filled_qty\": "))
            #expect(event["timestamp"] == "\(ref[0])T00:00:00Z")
            #expect(abs(try #require(Double(event["filled_qty"]!)) - Double(ref[1])!) <= 5e-9)
            #expect(abs(try #require(Double(event["fx_rate"]!)) - Double(ref[2])!) <= 5e-7)
            #expect(abs(try #require(Double(event["price_usd"]!)) - Double(ref[3])!) <= 5e-5)
            #expect(abs(try #require(Double(event["price_gbp"]!)) - Double(ref[4])!) <= 5e-5)
            #expect(abs(try #require(Double(event["amount_gbp"]!)) - Double(ref[5])!) <= 5e-3)
            #expect(event["filled_price"] == event["price_usd"])  // no slippage in these runs
        }
    }

    @Test("option and FX-file errors exit 2 and say what is wrong")
    func errors() async throws {
        let data = fixturePath("dca_fx/SPXL.csv"), fx = fixturePath("dca_fx/GBPUSD.csv")
        let late = try temporaryFile("late.csv", "date,rate\n2023-01-03,1.2\n2023-01-04,1.21\n")
        var run = try await runSentio(["backtest", data, "--strategy", "dca", "--currency", "GBP", "--fx", late])
        #expect(run.status == 2 && run.stderr.contains("no exchange rate on or before 2023-01-02"), "\(run.stderr)")
        let bad = try temporaryFile("bad.csv", "date,rate\n2023-01-02,1.2\n2023-01-03,-1\n")
        run = try await runSentio(["backtest", data, "--strategy", "dca", "--currency", "GBP", "--fx", bad])
        #expect(run.status == 2 && run.stderr.contains("\(bad) line 3, field 'rate'"), "\(run.stderr)")
        let unordered = try temporaryFile("unordered.csv", "date,close\n2023-01-03,1.2\n2023-01-02,1.2\n")
        run = try await runSentio(["backtest", data, "--strategy", "dca", "--currency", "GBP", "--fx", unordered])
        #expect(run.status == 2 && run.stderr.contains("line 3, field 'date'"), "\(run.stderr)")
        for (arguments, fragment) in [
            (["--strategy", "dca", "--currency", "GBP"], "--currency needs --fx"),
            (["--strategy", "dca", "--fx", fx], "--fx needs --currency"),
            (["--strategy", "rsi", "--currency", "GBP", "--fx", fx], "--currency applies to --strategy dca only"),
            (["--strategy", "dca", "--currency", "USD", "--fx", fx], "omit --currency"),
            (["--strategy", "dca", "--currency", "gbp", "--fx", fx], "three-letter code"),
            (["--strategy", "dca", "--events", "e.ndjson"], "--events needs --currency"),
        ] {
            run = try await runSentio(["backtest", data] + arguments)
            #expect(run.status == 2 && run.stderr.contains(fragment), "\(arguments): \(run.stderr)")
        }
    }
}
