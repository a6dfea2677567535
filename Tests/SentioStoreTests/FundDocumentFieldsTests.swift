import Foundation
import GRDB
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioStore

/// Issue 12: a fund event's payment date and document url, kept in `details_json` (no schema change).
@Suite("Fund events: payment_date and url in the store")
struct FundDocumentFieldsTests {
    @Test("payment date and url round-trip beside other details; reserved keys in details are rejected")
    func roundTrip() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        let d = { (text: String) in CivilDate(iso: text)! }
        let events = [
            StoredFundEvent(fundID: "F", date: d("2020-01-01"), kind: .commitment, amount: 1000),
            StoredFundEvent(fundID: "F", date: d("2020-02-01"), kind: .call, amount: Decimal(string: "100.25")!, dueDate: d("2020-02-15"),
                            paymentDate: d("2020-02-20"), url: "https://docs.example.com/F/call-1.pdf", detailsJSON: #"{"note":"wire"}"#),
            StoredFundEvent(fundID: "F", date: d("2020-03-01"), kind: .call, amount: 50, status: .pending),
            StoredFundEvent(fundID: "F", date: d("2020-03-31"), kind: .nav, amount: 120, url: "https://docs.example.com/F/q1.pdf"),
        ]
        try store.saveFundEvents(events)
        #expect(try store.loadFundEvents() == events)
        // What the file holds: the typed fields under their own keys of details_json, sorted.
        let details = try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT coalesce(details_json, '') FROM fund_events WHERE fund_id = 'F' ORDER BY seq")
        }
        #expect(details == ["", #"{"note":"wire","payment_date":"2020-02-20","url":"https://docs.example.com/F/call-1.pdf"}"#, "",
                            #"{"url":"https://docs.example.com/F/q1.pdf"}"#])
        var reserved = events
        reserved[2].detailsJSON = #"{"url":"https://x.example/"}"#
        #expect(throws: StoreError.self) { try store.saveFundEvents(reserved) }
        var onNAV = events
        onNAV[3].paymentDate = d("2020-04-01")
        #expect(throws: StoreError.self) { try store.saveFundEvents(onNAV) }
        #expect(try store.loadFundEvents() == events, "a rejected save changes nothing")
    }

    @Test("a damaged payment_date in details_json is reported as corruption, not dropped")
    func corrupt() throws {
        let path = try temporaryDatabasePath()
        let store = try SentioDatabase(path: path)
        try store.saveFundEvents([
            StoredFundEvent(fundID: "F", date: CivilDate(iso: "2020-01-01")!, kind: .commitment, amount: 1000),
            StoredFundEvent(fundID: "F", date: CivilDate(iso: "2020-02-01")!, kind: .call, amount: 10, paymentDate: CivilDate(iso: "2020-02-02")!),
        ])
        try store.pool.write { db in
            try db.execute(sql: #"UPDATE fund_events SET details_json = '{"payment_date":"2020-02-30"}' WHERE seq = 1"#)
        }
        #expect(throws: StoreError.self) { try store.loadFundEvents() }
    }
}
