import FuzzOracle
import Foundation
import Sentio

/// libFuzzer entry: the first byte picks a reader (cash flows, fund events, fund metadata, index), the rest is
/// the file. Accepted cash flows are solved; every rate returned (main and other roots) must make the XNPV,
/// evaluated independently with an exactly rounded sum, vanish to 1e-9 of the flows' total size whenever that
/// evaluation is accurate enough to tell. Fund events accepted are turned into metrics; each IRR is checked
/// the same way on the flows the documented rules give.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFundReaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0] % 4
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch selector {
    case 0:
        guard let flows = try? readCashFlows(text: text, file: "fuzz.csv") else { return 0 }
        guard let result = try? xirr(flows: flows) else { return 0 }
        for rate in [result.rate] + result.otherRoots {
            verifyRoot(rate, flows, what: "xirr")
        }
    case 1:
        guard let file = try? FundEventFile(text: text, file: "fuzz.csv") else { return 0 }
        for (id, events) in file.eventsByFund {
            let metrics = FundMetrics(id: id, events: events)
            if let irr = metrics.irr {
                for rate in [irr.rate] + irr.otherRoots { verifyRoot(rate, irrFlows(events), what: "fund \(id) irr") }
            }
        }
    case 2:
        _ = try? FundMetadataFile(text: text, file: "fuzz.csv")
    default:
        _ = try? IndexSeries(text: text, file: "fuzz.csv")
    }
    return 0
}

/// Paid calls (PAID or no status) negative, distributions positive, the latest NAV positive at its date.
func irrFlows(_ events: [FundEvent]) -> [CashFlow] {
    var flows: [CashFlow] = []
    var nav: FundEvent?
    for e in events {
        switch e.type {
        case .call where e.status == nil || e.status == .paid: flows.append(CashFlow(date: e.date, amount: -e.amount.double))
        case .distribution: flows.append(CashFlow(date: e.date, amount: e.amount.double))
        case .nav: if nav == nil || e.date >= nav!.date { nav = e }
        default: break
        }
    }
    if let nav { flows.append(CashFlow(date: nav.date, amount: nav.amount.double)) }
    return flows
}

/// |XNPV(rate)| ≤ 1e-9 · Σ|a| with Actual/365 Fixed; inconclusive (skipped) when double evaluation of the
/// discount factors cannot resolve that bound.
func verifyRoot(_ rate: Double, _ flows: [CashFlow], what: String) {
    guard rate.isFinite, rate > -1 else { finding("\(what): rate \(rate) is not a rate > -1") }
    guard let first = flows.filter({ $0.amount != 0 }).map(\.date.daysSinceEpoch).min() else { return }
    let logGrowth = log1p(rate)
    var terms: [Double] = []
    var size = 0.0
    var errorBound = 0.0
    for f in flows where f.amount != 0 {
        let years = Double(f.date.daysSinceEpoch - first) / 365
        let exponent = -years * logGrowth
        let term = f.amount * exp(exponent)
        guard term.isFinite else { return }
        terms.append(term)
        size += abs(f.amount)
        errorBound += abs(term) * (abs(exponent) + 4) * Double.ulpOfOne
    }
    guard let npv = exactlyRoundedSum(terms) else { return }
    guard errorBound <= 1e-10 * size else { return }
    if abs(npv) > 1e-9 * size + errorBound {
        finding("\(what): rate \(rate) leaves XNPV \(npv) for flows of total size \(size)")
    }
}
