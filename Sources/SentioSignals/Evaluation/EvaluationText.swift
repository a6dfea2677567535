/// The plain-text table of `sentio evaluate --format table`.
public enum EvaluationText {
    /// One line per rule (model first, then baselines), the reliability table of the model, and the stop/target
    /// outcomes. Fractions are printed with 3 decimals (percent-free: 0.512 = 51.2 %).
    public static func table(_ e: WalkForwardEvaluation, source: String) -> String {
        func f(_ x: Double) -> String { fixed(x, 3) }
        var out = "sentio evaluate \(source): \(e.symbols.count) symbol\(e.symbols.count == 1 ? "" : "s"), \(e.evaluatedBars) evaluated bars, horizon \(e.config.horizon) bars (walk-forward, out of sample)\n"
        let header = ["rule", "BUY", "SELL", "HOLD", "hit rate", "mean conf", "Brier", "ECE", "IC"]
        var rows = [header]
        for r in e.rules {
            rows.append([
                r.rule.rawValue, "\(r.buyCount)", "\(r.sellCount)", "\(r.holdCount)", f(r.hitRate), f(r.meanConfidence),
                f(r.brierScore), f(r.expectedCalibrationError), r.informationCoefficient.map(f) ?? "-",
            ])
        }
        out += aligned(rows)
        for rule in e.rulesWithoutSignals { out += "\(rule.rawValue): no BUY/SELL signal on these bars (no figures)\n" }
        out += "\nreliability of the model's confidence (10 equal-width bins):\n"
        var rel = [["bin", "mean confidence", "observed frequency", "count"]]
        for b in e.model.reliability {
            rel.append(["[\(fixed(b.lower, 1)), \(fixed(b.upper, 1)))", f(b.meanConfidence), f(b.observedFrequency), "\(b.count)"])
        }
        out += aligned(rel)
        if let floor = ForecastMetrics.calibrationSamplingError(count: e.model.scoredCount) {
            out += "sampling error: a perfectly calibrated confidence on \(e.model.scoredCount) independent signals shows an ECE of about \(f(floor))"
            out += floor >= tooFewSignalsSamplingError
                ? "; too few signals: these figures cannot tell calibration (or skill) from noise\n"
                : "; more where outcomes overlap (signals under \(e.config.horizon) bars apart) or symbols move together\n"
        }
        let t = e.model.targetOutcomes
        out += "\nstops and profit targets of the model's \(e.model.scoredCount) signals within \(e.config.horizon) bars: "
            + "target first \(t[.targetFirst] ?? 0), stop first \(t[.stopFirst] ?? 0), neither \(t[.neither] ?? 0), "
            + "target not on the signal's side \(t[.noTarget] ?? 0)\n"
        return out
    }

    /// The sampling error (``ForecastMetrics/calibrationSamplingError(count:)``) from which the table says the
    /// signals are too few: 0.05, the calibration goal (reached below 64 signals).
    public static let tooFewSignalsSamplingError = 0.05

    /// `x` rounded to `digits` decimals (no exponent).
    static func fixed(_ x: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (abs(x) * scale).rounded()
        let sign = x < 0 && r > 0 ? "-" : ""
        let whole = Int(r / scale)
        var frac = String(Int(r) - whole * Int(scale))
        while frac.count < digits { frac = "0" + frac }
        return digits == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(frac)"
    }

    static func aligned(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = Swift.max(widths[i], cell.count) } }
        var out = ""
        for row in rows {
            var line = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                line += i == 0 ? cell + pad : "  " + pad + cell
            }
            out += line + "\n"
        }
        return out
    }
}
