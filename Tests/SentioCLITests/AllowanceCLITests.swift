import Foundation
import SentioTestSupport
import Testing

@Suite("sentio allowance")
struct AllowanceCLITests {
    let sample = ["allowance", "Data/allowance/ledger.csv", "--children", "Data/allowance/children.csv"]
    let children = "child_id,first_name,last_name,weekly_allowance,allowance_day\nemma,Emma,Smith,5,saturday\n"
    let header = "id,child_id,date,type,amount,description,category,created_by\n"

    @Test("sample files as JSON: the hand-computed figures of Data/allowance/README.md")
    func sampleJSON() async throws {
        let run = try await runSentio(sample + ["--goals", "Data/allowance/goals.csv", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"currentBalance\": 38.00,") && run.stdout.contains("\"currentBalance\": 10.75,"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(root["asOf"] as? String == "2025-03-31")
        let kids = try #require(root["children"] as? [[String: Any]])
        #expect(kids.map { $0["childId"] as? String } == ["emma", "leo"])
        let goals = try #require(kids[0]["goals"] as? [[String: Any]])
        #expect(goals[0]["estimatedCompletionDate"] as? String == "2025-08-18" && goals[0]["status"] as? String == "onTrack")
        #expect((kids[1]["goals"] as? [[String: Any]])?.first?["estimatedCompletionDate"] as? String == "2025-05-26")
        #expect(kids[1]["daysUntilAllowance"] as? Int == 7)
    }

    @Test("table output and --as-of")
    func table() async throws {
        let run = try await runSentio(sample + ["--as-of", "2025-02-28"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Allowance as of 2025-02-28"))
        #expect(run.stdout.contains("Balance              30.50"))
        #expect(run.stdout.contains("Next allowance       2025-03-01 (in 1 day)"))
        let bad = try await runSentio(sample + ["--as-of", "2025-02-30"])
        #expect(bad.status == 2 && bad.stderr.contains("--as-of must be a date"))
    }

    @Test("table columns stay apart for amounts wider than the default 14 characters")
    func wideAmounts() async throws {
        let folder = try temporaryDirectory("sentio-allowance-wide")
        let ledger = folder.appendingPathComponent("ledger.csv"), kids = folder.appendingPathComponent("children.csv")
        try children.write(to: kids, atomically: true, encoding: .utf8)
        let rows = (0..<9).map { "t\($0),emma,2025-01-06,credit,999999999999.99,gift,Gifts,parent\n" }.joined()
            + "s1,emma,2025-01-07,debit,123456789012.34,toys,Toys,parent\n"
        try (header + rows).write(to: ledger, atomically: true, encoding: .utf8)
        let run = try await runSentio(["allowance", ledger.path, "--children", kids.path, "--as-of", "2025-01-31"])
        #expect(run.status == 0, "\(run.stderr)")
        // The month row: earned, spent and net separated by at least two spaces.
        let row = try #require(run.stdout.split(separator: "\n").first { $0.contains("2025-01 ") })
        let cells = row.split(separator: " ", omittingEmptySubsequences: true)
        #expect(cells == ["2025-01", "8999999999999.91", "123456789012.34", "8876543210987.57"], "\(row)")
        #expect(!row.contains("91123"), "\(row)")
    }

    @Test("bad input exits 2 naming file, line and field")
    func badInput() async throws {
        let kids = try temporaryFile("children.csv", children)
        let ledger = try temporaryFile("ledger.csv", header + "1,emma,2025-03-01,credit,5,,Allowance,\n2,emma,2025-03-02,debit,1.005,,Toys,\n")
        var run = try await runSentio(["allowance", ledger, "--children", kids])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(ledger) line 3, field 'amount': '1.005' has more than 2 decimal places"), "\(run.stderr)")
        let overdraft = try temporaryFile("ledger.csv", header + "1,emma,2025-03-01,credit,5,,Allowance,\n2,emma,2025-03-02,debit,6,,Toys,\n")
        run = try await runSentio(["allowance", overdraft, "--children", kids])
        #expect(run.status == 2 && run.stderr.contains("\(overdraft) line 3, field 'amount': insufficient funds"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let badKids = try temporaryFile("children.csv", children + "leo,Leo,Smith,3.5,someday\n")
        run = try await runSentio(["allowance", overdraft, "--children", badKids])
        #expect(run.status == 2 && run.stderr.contains("\(badKids) line 3, field 'allowance_day'"), "\(run.stderr)")
        run = try await runSentio(["allowance", overdraft, "--children", kids, "--rejects", "x.csv"])
        #expect(run.status == 2 && run.stderr.contains("--rejects needs --lenient"))
        run = try await runSentio(["allowance", "/nonexistent/ledger.csv", "--children", kids])
        #expect(run.status == 2 && run.stderr.contains("/nonexistent/ledger.csv"))
    }

    @Test("--lenient skips the overdraft, reports it on stderr and in --rejects; the balance stays non-negative")
    func lenient() async throws {
        let kids = try temporaryFile("children.csv", children)
        let ledger = try temporaryFile("ledger.csv", header + "1,emma,2025-03-01,credit,5,,Allowance,\n2,emma,2025-03-02,debit,6,,Toys,\n3,emma,2025-03-03,debit,2.5,,Toys,\n")
        let rejects = try temporaryDirectory("allowance").appendingPathComponent("rejects.csv").path
        let run = try await runSentio(["allowance", ledger, "--children", kids, "--lenient", "--rejects", rejects, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("skipped 1 row(s)") && run.stderr.contains("line 3"))
        #expect(run.stdout.contains("\"currentBalance\": 2.50,"))
        let text = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(text.hasPrefix("file,line,reason\n\(ledger),3,"), "\(text)")
        #expect(text.contains("insufficient funds"))
    }
}
