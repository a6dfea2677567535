"""Walk-forward choice of the calibrator's default parameters (Sources/SentioSignals/Documentation.docc/Evaluation.md).

Input: the per-bar history of the model with the current defaults, one CSV per dataset, written by
    sentio signals --history --format csv Tests/Fixtures/evaluate/GOOG.csv   > goog.csv
    sentio signals --history --format csv Tests/Fixtures/evaluate/EURUSD.csv > eurusd.csv
    sentio signals --history --format csv Data/market                        > market.csv
    python3 Tests/Fixtures/evaluate/select_calibration.py goog.csv eurusd.csv market.csv

The BUY/SELL/HOLD decisions and aiSignal do not depend on the calibrator (the BUY gate reads fitStrength), so one
history per dataset is enough to replay any calibrator. For every parameter set of the grid the calibrator is
replayed walk-forward (a signal made at bar j resolves at bar j + h and is used from then on), and the expected
calibration error (10 equal-width bins, weighted by count) is computed separately on

  - the *selection* half: BUY/SELL signals made before the median evaluated timestamp of the dataset, and
  - the *held-out* half: the signals from that timestamp on (never looked at to choose).

The chosen set minimises the worst selection-half ECE over the three datasets. The script first checks that
replaying the defaults reproduces the `confidence` column of each history exactly (so it replays the Swift
calibrator, not an approximation of it), then prints the ten best sets with their selection, held-out and
full-period figures. Standard library only.
"""
import collections
import csv
import itertools
import sys

H = 5
DEFAULTS = dict(B=1, R=4.0, minimum=0, kappa=400.0, a=1000.0, c=400.0)
GRID = dict(B=[1, 4, 8], a=[20.0, 100.0, 200.0, 400.0, 1000.0], c=[100.0, 400.0, 1000.0, 3000.0],
            kappa=[20.0, 100.0, 400.0], minimum=[0, 30])


def load(path):
    rows = collections.defaultdict(list)
    for r in csv.DictReader(open(path, newline="")):
        rows[r["symbol"]].append(r)
    return rows


def bin_of(d, B, R):
    x = (d + R) / (2 * R) * B
    if not x >= 0:
        return 0
    return min(B - 1, int(x))


def pav(values, weights):
    blocks = []
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    out = []
    for v, _, n in blocks:
        out += [min(1.0, max(0.0, v))] * n
    return out


def probability(res, rig, d, z, p):
    total = sum(res[0]) + sum(res[1])
    r = (sum(rig[0]) + sum(rig[1]) + p["a"] / 2) / (total + p["a"])
    if total < p["minimum"]:
        return r
    n = sum(res[d]) + p["c"]
    q = (sum(rig[d]) + p["c"] * r) / n if n > 0 else r
    B = p["B"]
    values = [(rig[d][i] + p["kappa"] * q) / (res[d][i] + p["kappa"]) for i in range(B)]
    weights = [res[d][i] + p["kappa"] for i in range(B)]
    return pav(values, weights)[bin_of(z, B, p["R"])]


def replay(history, p, check=False):
    """(timestamp, confidence, right) of every scored BUY/SELL signal; one calibrator per symbol."""
    out = []
    for symbol, rows in history.items():
        B = p["B"]
        res, rig = [[0] * B, [0] * B], [[0] * B, [0] * B]
        pending = collections.deque()
        for i, row in enumerate(rows):
            while pending and pending[0][0] <= i - H:
                _, d, b, y = pending.popleft()
                res[d][b] += 1
                rig[d][b] += y
            kind, z = row["signalType"], float(row["aiSignal"])
            d = 0 if kind == "BUY" else 1 if kind == "SELL" else (0 if z >= 0 else 1)
            dz = z if d == 0 else -z
            conf = probability(res, rig, d, dz, p)
            if check and conf != float(row["confidence"]):
                sys.exit(f"{symbol} row {i}: replayed {conf!r}, history {row['confidence']}")
            if kind != "HOLD" and row["realizedReturn"] != "":
                ret = float(row["realizedReturn"])
                y = 1 if (ret > 0 if d == 0 else ret < 0) else 0
                pending.append((i, d, bin_of(dz, B, p["R"]), y))
                out.append((row["timestamp"], conf, y))
    return out


def ece(scored):
    n, sp, sy = [0] * 10, [0.0] * 10, [0] * 10
    for _, p, y in scored:
        b = min(9, max(0, int(p * 10)))
        n[b] += 1
        sp[b] += p
        sy[b] += y
    return sum(abs(sp[b] - sy[b]) / len(scored) for b in range(10) if n[b])


def halves(scored):
    stamps = sorted(set(t for t, _, _ in scored))
    mid = stamps[len(stamps) // 2]
    return [s for s in scored if s[0] < mid], [s for s in scored if s[0] >= mid]


def main(paths):
    data = [load(path) for path in paths]
    for history in data:
        replay(history, DEFAULTS, check=True)
    print("replaying the defaults reproduces every confidence of", ", ".join(paths))
    results = []
    for values in itertools.product(*GRID.values()):
        p = dict(zip(GRID.keys(), values), R=4.0)
        first, second, full = [], [], []
        for history in data:
            scored = replay(history, p)
            a, b = halves(scored)
            first.append(ece(a))
            second.append(ece(b))
            full.append(ece(scored))
        results.append((max(first), p, first, second, full))
    results.sort(key=lambda r: r[0])
    fmt = lambda xs: " ".join(f"{x:.3f}" for x in xs)
    print("worst selection ECE | B a c kappa minimum | selection halves | held-out halves | full periods")
    for worst, p, first, second, full in results[:10]:
        print(f"{worst:.4f} | {p['B']} {p['a']:g} {p['c']:g} {p['kappa']:g} {p['minimum']} | {fmt(first)} | {fmt(second)} | {fmt(full)}")


if __name__ == "__main__":
    main(sys.argv[1:])
