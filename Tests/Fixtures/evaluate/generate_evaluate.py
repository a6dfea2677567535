"""Fixtures for `sentio evaluate` (Tests/SentioSignalsTests/EvaluationMetricsTests.swift, EvaluationDataTests.swift).

1. The real series bundled with backtesting.py, as OHLCV CSV (timestamp = UTC epoch seconds):
   GOOG.csv (daily, 2004-2013), EURUSD.csv (hourly, 2017-2018), BTCUSD.csv (monthly, 2012-2021).
2. Metric cases with expected values from independent libraries: seeded random forecasts p in [0, 1], outcomes
   y, scores x and returns r (metrics_cases.csv); scikit-learn `brier_score_loss`, scipy `spearmanr` (average
   ranks for ties), numpy for the hit rate and the 10 equal-width calibration bins (bin = min(9, floor(10 p)))
   and the expected calibration error (metrics_expected.csv, metrics_reliability.csv).

Run with the pinned requirements beside this script:
    bash Tests/Fixtures/regenerate.sh evaluate
"""
import os

import numpy as np
import pandas as pd
from backtesting.test import BTCUSD, EURUSD, GOOG
from scipy.stats import spearmanr
from sklearn.metrics import brier_score_loss

HERE = os.path.dirname(os.path.abspath(__file__))


def write_series(df, name):
    out = pd.DataFrame({
        "timestamp": (df.index.tz_localize(None).as_unit("s").astype("int64")),
        "open": df["Open"].to_numpy(float), "high": df["High"].to_numpy(float), "low": df["Low"].to_numpy(float),
        "close": df["Close"].to_numpy(float), "volume": df["Volume"].to_numpy(float),
    })
    out.to_csv(os.path.join(HERE, name), index=False, float_format="%.17g")
    print(name, len(out), "bars")


def metric_cases():
    rng = np.random.default_rng(20261123)
    cases, expected, reliability = [], [], []
    for case in range(12):
        n = int(rng.integers(5, 400))
        kind = case % 3
        if kind == 0:
            p = rng.uniform(0, 1, n)
        elif kind == 1:
            p = np.clip(rng.normal(0.5, 0.08, n), 0, 1)
        else:
            p = rng.beta(2, 5, n)
        y = rng.uniform(0, 1, n) < p
        x = rng.normal(0, 1, n)
        r = 0.3 * x + rng.normal(0, 1, n)
        if case % 4 == 3:  # ties
            x = np.round(x, 1)
            r = np.round(r, 1)
        # Keep p off the bin edges (their side is a convention; the Swift rule is floor(10 p)).
        p = np.where(np.abs(p * 10 - np.round(p * 10)) < 1e-9, p + 1e-6, p)
        bins = np.minimum(9, np.floor(p * 10).astype(int))
        ece = 0.0
        for b in range(10):
            m = bins == b
            if m.sum() == 0:
                continue
            reliability.append(dict(case=case, bin=b, mean_confidence=p[m].mean(), observed_frequency=y[m].mean(), count=int(m.sum())))
            ece += m.sum() / n * abs(p[m].mean() - y[m].mean())
        expected.append(dict(case=case, n=n, hit_rate=y.mean(), brier=brier_score_loss(y, p), ece=ece,
                             spearman=spearmanr(x, r).statistic))
        for i in range(n):
            cases.append(dict(case=case, p=p[i], y=int(y[i]), x=x[i], r=r[i]))
    pd.DataFrame(cases).to_csv(os.path.join(HERE, "metrics_cases.csv"), index=False, float_format="%.17g")
    pd.DataFrame(expected).to_csv(os.path.join(HERE, "metrics_expected.csv"), index=False, float_format="%.17g")
    pd.DataFrame(reliability).to_csv(os.path.join(HERE, "metrics_reliability.csv"), index=False, float_format="%.17g")
    print("metrics", len(expected), "cases")


def main():
    write_series(GOOG, "GOOG.csv")
    write_series(EURUSD, "EURUSD.csv")
    write_series(BTCUSD, "BTCUSD.csv")
    metric_cases()


if __name__ == "__main__":
    main()
