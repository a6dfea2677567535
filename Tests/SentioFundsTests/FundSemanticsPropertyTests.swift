import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

/// A random fund history: a commitment, then calls (some unpaid), distributions and NAVs (some on the same
/// day, several NAVs on one day, a NAV of 0 now and then) over a few years.
private func randomFundEvents(_ rng: inout SplitMix64, id: String = "F") -> [FundEvent] {
    let start = CivilDate(year: Int.random(in: 1995...2020, using: &rng), month: 1, day: 1)!.daysSinceEpoch
    var day = start
    var events = [FundEvent(fundID: id, date: CivilDate(daysSinceEpoch: start), type: .commitment,
                            amount: MoneyAmount(Decimal(Int.random(in: 1000...100_000, using: &rng))), line: 2)]
    var calls = 0
    for k in 0..<Int.random(in: 1...60, using: &rng) {
        day += Int.random(in: 0...3, using: &rng) == 0 ? 0 : Int.random(in: 1...120, using: &rng)
        let cents = Decimal(Int.random(in: 0...2_000_000, using: &rng)) / 100
        let type: FundEventType
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4: type = .call
        case 4..<7: type = .distribution
        default: type = calls > 0 ? .nav : .call
        }
        if type == .call { calls += 1 }
        let status: CapitalCallStatus? = type == .call && Int.random(in: 0..<5, using: &rng) == 0
            ? [.pending, .late, .overdue][Int.random(in: 0..<3, using: &rng)] : nil
        let amount = type == .nav && Int.random(in: 0..<8, using: &rng) == 0 ? Decimal(0) : cents
        events.append(FundEvent(fundID: id, date: CivilDate(daysSinceEpoch: day), type: type, amount: MoneyAmount(amount),
                                status: status, line: k + 3))
    }
    return events
}

@Suite("Fund semantics (issue 11): due dates, --as-of, multiples history")
struct FundSemanticsPropertyTests {
    @Test("multiples as of each NAV date equal FundMetrics recomputed as of that date (2,000 random funds)")
    func multiplesHistoryEqualsRecomputation() throws {
        var rng = SplitMix64(seed: 0x11_0101)
        let index = IndexSeries(
            dates: (0..<40).map { CivilDate(year: 1994 + $0, month: 6, day: 30)! },
            levels: (0..<40).map { 100 * pow(1.07, Double($0)) + Double($0 % 3) }, file: "index.csv")
        var points = 0
        for k in 0..<2000 {
            let events = randomFundEvents(&rng).shuffled(using: &rng)
            let asOf: CivilDate? = k % 3 == 0 ? nil : CivilDate(daysSinceEpoch: events.map(\.date.daysSinceEpoch).max()! - Int.random(in: 0...400, using: &rng))
            let withIndex = k % 2 == 0 ? index : nil
            let m = FundMetrics(id: "F", events: events, asOf: asOf)
            let history = FundMetrics.multiplesAtNAVDates(events: events, asOf: asOf, index: withIndex)
            #expect(history.map(\.date) == m.navHistory.map(\.date), "fund \(k)")
            for (point, nav) in zip(history, m.navHistory) {
                let then = FundMetrics(id: "F", events: events, asOf: nav.date)
                // TVPI and DPI: the same exact decimal sums, so the same bits.
                #expect(point.tvpi?.bitPattern == then.tvpi?.bitPattern && point.dpi?.bitPattern == then.dpi?.bitPattern, "fund \(k) \(nav.date)")
                if let withIndex {
                    let pme = try? then.publicMarketEquivalent(index: withIndex, eventsFile: "events.csv")
                    #expect(point.ksPME?.bitPattern == (pme ?? nil)?.ksPME?.bitPattern, "fund \(k) \(nav.date) KS-PME")
                } else {
                    #expect(point.ksPME == nil)
                }
                points += 1
            }
        }
        #expect(points > 10_000)
    }

    @Test("a call due before its call date is rejected with file, line and field; on or after is fine (2,000 cases)")
    func dueDateNotBeforeCallDate() {
        var rng = SplitMix64(seed: 0x11_0102)
        for _ in 0..<2000 {
            let callDay = Int.random(in: 0...3, using: &rng)
            let dueOffset = Int.random(in: -40...40, using: &rng)
            let call = CivilDate(year: 2020, month: 3, day: 1 + callDay)!
            let due = CivilDate(daysSinceEpoch: call.daysSinceEpoch + dueOffset)
            let text = "fund_id,date,type,amount,due_date\nF,2020-01-01,commitment,100,\nF,2020-02-01,call,10,2020-02-01\nF,\(call),call,50,\(due)\n"
            do {
                _ = try FundEventFile(text: text, file: "e.csv")
                #expect(dueOffset >= 0, "due \(due) before call \(call) accepted")
            } catch {
                #expect(dueOffset < 0, "\(error)")
                #expect(error.description == "e.csv line 4, field 'due_date': due date \(due) is before the call date \(call): a call cannot fall due before it is made")
            }
        }
        // Stored events (no line) are checked too.
        let stored = [
            FundEvent(fundID: "F", date: CivilDate(year: 2020, month: 1, day: 1)!, type: .commitment, amount: MoneyAmount(100), line: 0),
            FundEvent(fundID: "F", date: CivilDate(year: 2020, month: 2, day: 1)!, type: .call, amount: MoneyAmount(10),
                      dueDate: CivilDate(year: 2020, month: 1, day: 31)!, line: 0),
        ]
        #expect(throws: FundInputError.self) { try FundEventFile(events: stored, file: "store") }
    }

    @Test("an as-of date before the first event is an error; on the first event's date it is a report")
    func asOfBeforeFirstEvent() throws {
        let events = try FundEventFile(text: handEvents, file: "hand.csv")
        #expect(throws: FundInputError(file: "hand.csv", line: 2, field: "date",
            message: "the as-of date 2019-12-31 is before the first event (fund 'F1' on 2020-01-01): nothing had happened yet, every figure would be zero")) {
            try FundReport(events: events, asOf: CivilDate(year: 2019, month: 12, day: 31)!)
        }
        let onFirstDay = try FundReport(events: events, asOf: CivilDate(year: 2020, month: 1, day: 1)!)
        #expect(onFirstDay.funds.map(\.metrics.paidIn) == [400, 250])
    }
}
