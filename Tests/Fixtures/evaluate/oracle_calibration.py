"""How well can *any* confidence be calibrated on the bundled sample universe? (Evaluation.md, "The sample universe")

Data/market is synthetic: `sentio generate --bars 504 --seed 42`, six random walks, each traded as a 3x bull and a
-3x bear fund. Nothing in the past of a random walk predicts the sign of its next 5-bar return, so the probability
that a BUY (SELL) signal is right is, whatever the signal, the generator's probability that the symbol's 5-bar
log return is positive (negative). This script measures that probability for each symbol on fresh draws of the
same generator (seeds other than 42) and scores the *reference forecaster* that states it, on the signals the
model makes on each draw, beside the model's own confidence. The reference forecaster knows what no walk-forward
calibrator can (the generator's long-run rates) and is calibrated by construction; where it misses the ECE goal,
the goal measures the draw's noise, not the confidence.

Usage (release binary recommended; about 2 minutes on 2 cores):
    python3 Tests/Fixtures/evaluate/oracle_calibration.py [--sentio .build/release/sentio] [--draws 200]

Prints, per draw and in summary: signals scored, the model's hit rate, the model's ECE and the reference
forecaster's ECE (10 equal-width bins over [0, 1], weighted by count: ForecastMetrics.expectedCalibrationError),
and the percentiles of both over the draws. Standard library only; the draws are written to a temporary folder.
"""
import argparse
import csv
import io
import math
import os
import statistics
import subprocess
import sys
import tempfile

H = 5          # the model's forecast horizon in bars (horizonBars of the history)
BINS = 10      # ForecastMetrics.calibrationBinCount
SAMPLE_SEED = 42


def ece(probabilities, outcomes):
    """ForecastMetrics.expectedCalibrationError: bin b = min(B-1, floor(p*B)), |mean p - frequency| by count."""
    count = [0] * BINS
    sum_p = [0.0] * BINS
    hits = [0] * BINS
    for p, right in zip(probabilities, outcomes):
        b = min(BINS - 1, max(0, int(p * BINS)))
        count[b] += 1
        sum_p[b] += p
        hits[b] += right
    total = sum(count)
    return sum(abs(sum_p[b] / count[b] - hits[b] / count[b]) * count[b] / total for b in range(BINS) if count[b])


def generate(sentio, seed, folder):
    out = os.path.join(folder, f"seed{seed}")
    subprocess.run([sentio, "generate", "--bars", "504", "--seed", str(seed), "--out", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def closes(universe):
    """Closes per symbol, from the generated CSVs (timestamp,open,high,low,close,volume)."""
    result = {}
    for name in sorted(os.listdir(universe)):
        if name.endswith(".csv"):
            with open(os.path.join(universe, name), newline="") as f:
                result[name[:-4]] = [float(r["close"]) for r in csv.DictReader(f)]
    return result


def scored_signals(sentio, universe):
    """(symbol, direction, confidence, right) of the BUY/SELL signals whose outcome is known."""
    text = subprocess.run([sentio, "signals", "--history", "--format", "csv", universe], check=True,
                          capture_output=True, text=True).stdout
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        if r["signalType"] in ("BUY", "SELL") and r["right"] in ("true", "false"):
            if int(r["horizonBars"]) != H:
                sys.exit(f"horizonBars {r['horizonBars']} differs from the script's {H}")
            rows.append((r["symbol"], r["signalType"], float(r["confidence"]), r["right"] == "true"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentio", default=".build/release/sentio")
    parser.add_argument("--draws", type=int, default=200, help="draws other than the sample's (seeds 1, 2, ...)")
    args = parser.parse_args()
    seeds = [s for s in range(1, args.draws + 2) if s != SAMPLE_SEED][:args.draws]
    with tempfile.TemporaryDirectory() as folder:
        # 1. The generator's probability that each symbol's 5-bar close-to-close log return is positive, pooled over
        #    all draws (every bar with a bar h later; 1-for-10 reverse splits included, as in the model's outcomes).
        up, total = {}, {}
        draws = {}
        for seed in seeds:
            universe = generate(args.sentio, seed, folder)
            for symbol, c in closes(universe).items():
                n = len(c) - H
                up[symbol] = up.get(symbol, 0) + sum(1 for t in range(n) if math.log(c[t + H] / c[t]) > 0)
                total[symbol] = total.get(symbol, 0) + n
            draws[seed] = scored_signals(args.sentio, universe)
        p_up = {s: up[s] / total[s] for s in up}
        print("generator's P(5-bar log return > 0) per symbol, over", len(seeds), "draws:")
        print("  " + ", ".join(f"{s} {p_up[s]:.3f} (±{1.96 * math.sqrt(p_up[s] * (1 - p_up[s]) / total[s]):.3f})"
                               for s in sorted(p_up)))
        sample = scored_signals(args.sentio, generate(args.sentio, SAMPLE_SEED, folder))

    def score(rows):
        outcomes = [r[3] for r in rows]
        reference = [p_up[s] if d == "BUY" else 1 - p_up[s] for s, d, _, _ in rows]
        return (len(rows), sum(outcomes) / len(rows), ece([r[2] for r in rows], outcomes),
                ece(reference, outcomes), statistics.fmean(reference))

    print("\nseed  signals  hit rate  model ECE  reference ECE  reference mean")
    figures = []
    for seed in seeds:
        if draws[seed]:
            f = score(draws[seed])
            figures.append(f)
            print(f"{seed:4d}  {f[0]:7d}  {f[1]:8.3f}  {f[2]:9.3f}  {f[3]:13.3f}  {f[4]:14.3f}")
    n, hit, model, reference, mean = score(sample)
    print(f"\nsample universe (seed {SAMPLE_SEED}, Data/market): {n} signals, hit rate {hit:.3f}, "
          f"model ECE {model:.3f}, reference forecaster ECE {reference:.3f} (its mean confidence {mean:.3f})")

    def percentiles(values):
        values = sorted(values)
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        return f"median {pick(0.5):.3f}, 90th {pick(0.9):.3f}, 95th {pick(0.95):.3f}, max {values[-1]:.3f}"

    print(f"over {len(figures)} other draws: model ECE {percentiles([f[2] for f in figures])}")
    print(f"                      reference ECE {percentiles([f[3] for f in figures])}")
    over = sum(1 for f in figures if f[3] > 0.05)
    print(f"draws where the reference forecaster's ECE exceeds 0.05: {over} of {len(figures)}; "
          f"where the model's does: {sum(1 for f in figures if f[2] > 0.05)}")
    rank = sum(1 for f in figures if f[3] < reference) / len(figures)
    print(f"the sample's reference ECE is above {100 * rank:.0f} % of the other draws'")


if __name__ == "__main__":
    main()
