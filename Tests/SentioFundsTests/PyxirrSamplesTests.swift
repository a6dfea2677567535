import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioFunds

/// pyxirr's own 60 scheduled XIRR test cases (its `tests/samples/*.csv` at v0.10.8, public domain), against the
/// roots of the XNPV that `Tests/Fixtures/funds/generate_funds.py` found independently (a float scan with every
/// doubtful sign settled by mpmath at 60 digits, each sign change bisected by mpmath) and pyxirr's own answers.
@Suite("XIRR on pyxirr's 60 scheduled test cases")
struct PyxirrSamplesTests {
    struct Case {
        var name: String
        var flows: [CashFlow]
        var pyxirr: Double?
        var roots: [Double]
    }

    static func cases() throws -> [Case] {
        let rows = try loadTextRows("funds/pyxirr_samples_results.csv")
        return try rows.map { row in
            let name = try #require(row["case"])
            let text = try String(contentsOfFile: fixturePath("funds/pyxirr_samples/\(name)"), encoding: .utf8)
            let flows = try readCashFlows(text: "date,amount\n" + text, file: name)
            let pyxirr = row["pyxirr_xirr"].flatMap { $0.isEmpty ? nil : Double($0) }
            let roots = (row["roots"] ?? "").split(separator: " ").compactMap { Double($0) }
            return Case(name: name, flows: flows, pyxirr: pyxirr, roots: roots)
        }
    }

    /// Relative agreement of two rates, in the solver's tolerance (a root certified by a sign change is within
    /// 1e-12·max(1, |r|) of a true root; the reference roots are rounded from 40+ digits).
    static func same(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-10 * max(1, abs(b)) }

    @Test("every case: the roots Sentio reports are exactly the reference roots, the printed one nearest the guess")
    func rootsMatchTheIndependentSearch() throws {
        let cases = try Self.cases()
        #expect(cases.count == 60)
        var severalRoots = 0, signChangeCertificates = 0, noRoot = 0
        for c in cases {
            let outcome = Result { () throws(XIRRError) in try xirr(flows: c.flows) }
            guard !c.roots.isEmpty else {
                // No sign change of the XNPV anywhere on 1 + r in [1e-9, 1e4]: no rate may be printed.
                if case .success(let result) = outcome { Issue.record("\(c.name): printed \(result.rate) but the XNPV has no root") }
                noRoot += 1
                continue
            }
            guard case .success(let result) = outcome else {
                Issue.record("\(c.name): no rate (\(outcome)) but the XNPV has the roots \(c.roots)")
                continue
            }
            let reported = ([result.rate] + result.otherRoots).sorted()
            #expect(reported.count == c.roots.count, "\(c.name): \(reported) vs \(c.roots)")
            for (r, reference) in zip(reported, c.roots) { #expect(Self.same(r, reference), "\(c.name): \(r) vs \(reference)") }
            // The printed root is the one nearest the default guess 0.1; the others are listed.
            let nearest = c.roots.min { abs($0 - 0.1) < abs($1 - 0.1) }!
            #expect(Self.same(result.rate, nearest), "\(c.name): printed \(result.rate), nearest the guess is \(nearest)")
            if c.roots.count > 1 { severalRoots += 1 }
            if case .signChange(let lower, let upper) = result.certificate {
                signChangeCertificates += 1
                // The bracket holds the reference root and the printed rate, within the tolerance.
                #expect(lower <= result.rate && result.rate <= upper)
                #expect(upper - lower <= 1e-12 * max(1, abs(result.rate)))
                #expect(lower - 1e-15 <= nearest && nearest <= upper + 1e-15, "\(c.name): \(nearest) outside [\(lower), \(upper)]")
            }
            // pyxirr's answer, when it has one, is one of the roots (it finds one root; which one depends on its start).
            if let p = c.pyxirr {
                #expect(c.roots.contains { abs($0 - p) <= 1e-7 * max(1, abs(p)) }, "\(c.name): pyxirr's \(p) is not among \(c.roots)")
            }
        }
        // The cases exercise several roots, the sign-change certificate (30-47, pyxirr's −0.6103425929117927) and
        // cases without any root.
        #expect(severalRoots > 0 && signChangeCertificates > 0 && noRoot > 0, "\(severalRoots) \(signChangeCertificates) \(noRoot)")
    }

    @Test("30-47: the root pyxirr reports, certified by a sign change, as the issue asks")
    func case30_47() throws {
        let c = try #require(try Self.cases().first { $0.name == "30-47.csv" })
        let result = try xirr(flows: c.flows)
        #expect(abs(result.rate - -0.61034259291179) < 1e-13)
        guard case .signChange = result.certificate else {
            Issue.record("expected the sign-change certificate, got \(result.certificate)")
            return
        }
    }
}
