import SentioBacktest
import SentioLive
import Testing

@Suite struct LiveConfigurationTests {
    @Test func differencesNameEverySetting() {
        let a = LiveConfiguration(strategy: .rsi(period: 14, lower: 30, upper: 70))
        var b = a
        b.backtest.fill = .close
        b.strategy = .rsi(period: 10, lower: 30, upper: 70)
        #expect(a.differences(from: a).isEmpty)
        #expect(b.differences(from: a) == ["rsi.period: stored 14, given 10", "fill: stored next-open, given close"])
    }
}
