"""Calibrated confidence of the Sentio signal model, re-implemented independently (used by generate_signals.py).

Definitions (Sources/SentioSignals/Documentation.docc/Evaluation.md): a BUY (SELL) made at bar j is right when
ln(C[j+h] / C[j]) > 0 (< 0); it resolves at bar j + h. At bar t the calibrator uses exactly the signals made at
bars j <= t - h. Per direction, B equal-width bins of the directional score d (aiSignal for BUY, -aiSignal for
SELL, clamped into [-R, R]). Hierarchical shrinkage: the overall rate r = (right + a/2) / (resolved + a) over both
directions; each direction's rate q = (right_dir + c r) / (resolved_dir + c); each bin's frequency
(right_bin + prior q) / (resolved_bin + prior), then made non-decreasing by weighted pool-adjacent-violators.
Before `minimum` signals have resolved the confidence is the overall rate r.
A HOLD gets the probability for a signal in its forecast's direction (d = |aiSignal|).

This version recomputes every count from scratch at every bar and runs PAV by repeatedly merging the first
violating pair of blocks: slow and plain, on purpose, so that it shares no structure with the Swift code.
"""
import math


def bin_of(d, B, R):
    x = (d + R) / (2 * R) * B
    if not x >= 0:
        return 0
    return min(B - 1, int(x))


def pav(values, weights):
    blocks = [[v, w, 1] for v, w in zip(values, weights)]
    while True:
        for i in range(len(blocks) - 1):
            if blocks[i][0] > blocks[i + 1][0]:
                v1, w1, n1 = blocks[i]
                v2, w2, n2 = blocks[i + 1]
                blocks[i : i + 2] = [[(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2]]
                break
        else:
            break
    out = []
    for v, _, n in blocks:
        out.extend([min(1.0, max(0.0, v))] * n)
    return out


def calibrated_confidence(close, index, ai_signal, signal_type, h, B=1, R=4.0, minimum=0, prior=400.0, a=1000.0, c=400.0):
    """One confidence per row (rows: consecutive bars `index` past the warm-up, with aiSignal and signal type)."""
    made = []  # (bar, direction, bin)
    out = []
    for t, z, kind in zip(index, ai_signal, signal_type):
        t = int(t)
        resolved = [(j, dr, b) for (j, dr, b) in made if j + h <= t]
        res = [[0] * B, [0] * B]
        rig = [[0] * B, [0] * B]
        for j, dr, b in resolved:
            r = math.log(close[j + h] / close[j])
            res[dr][b] += 1
            if (r > 0) if dr == 0 else (r < 0):
                rig[dr][b] += 1
        direction = 0 if kind == "BUY" else 1 if kind == "SELL" else (0 if z >= 0 else 1)
        d = z if direction == 0 else -z
        b = bin_of(d, B, R)
        total = sum(res[0]) + sum(res[1])
        r_all = (sum(rig[0]) + sum(rig[1]) + a / 2) / (total + a)
        if total < minimum:
            p = r_all
        else:
            n_dir = sum(res[direction]) + c
            q = (sum(rig[direction]) + c * r_all) / n_dir if n_dir > 0 else r_all
            values = [(rig[direction][k] + prior * q) / (res[direction][k] + prior) for k in range(B)]
            weights = [res[direction][k] + prior for k in range(B)]
            p = pav(values, weights)[b]
        out.append(p)
        if kind in ("BUY", "SELL"):
            made.append((t, direction, b))
    return out
