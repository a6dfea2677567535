#!/usr/bin/env python3
"""Golden fixtures for SentioIndicators' TA-Lib functions (issue 34).

Reference: TA-Lib's C library as wrapped by the pinned Python package (TA-Lib in
Tests/Fixtures/requirements.txt; its manylinux wheel carries the C library). Every function of Sentio's TA-Lib set is
called with TA-Lib's defaults (and a few non-default parameter sets, columns suffixed `@k=v`) on four series:
backtesting.py's bundled GOOG (daily), EURUSD (hourly) and BTCUSD (monthly) — the same bars as
Tests/Fixtures/evaluate/*.csv — and a seeded synthetic series of 3,000 bars with price jumps, flat stretches and
volume spikes (written here as talib_synthetic_ohlcv.csv).

Output: talib_<series>.f64, the raw IEEE-754 binary64 values (little-endian), column after column, and
talib_<series>.columns, the column names in that order (one a line, named as `sentio indicators --only` names them:
`function` or `function_output`, lower case, with `@parameter=value` for a non-default call). Raw bits, so that the
tests compare bit for bit, NaN (warm-up) included, in half the bytes of a hexadecimal CSV.

Regenerate: bash Tests/Fixtures/regenerate.sh indicators   (generate_indicators.py runs this script too)
"""
import os

import numpy as np
import pandas as pd
import talib
from talib import abstract
from backtesting.test import BTCUSD, EURUSD, GOOG

HERE = os.path.dirname(os.path.abspath(__file__))

# (function, {parameter: value}) — parameters as TA-Lib names them; {} = TA-Lib's defaults.
CALLS = [
    ("WMA", {}), ("DEMA", {}), ("TEMA", {}), ("TRIMA", {}), ("TRIMA", {"timeperiod": 10}), ("KAMA", {}),
    ("BBANDS", {}), ("BBANDS", {"matype": 1, "nbdevup": 2.5}), ("BBANDS", {"timeperiod": 5, "nbdevdn": 1.5}),
    ("SAR", {}), ("MIDPOINT", {}), ("MIDPRICE", {}),
    ("MACD", {}), ("MACD", {"fastperiod": 8}), ("MACDEXT", {}), ("MACDEXT", {"fastmatype": 1, "slowmatype": 1, "signalmatype": 1}),
    ("PPO", {}), ("PPO", {"matype": 1}), ("APO", {}), ("APO", {"matype": 1}),
    ("MOM", {}), ("ROC", {}), ("ROCP", {}), ("CMO", {}),
    ("STOCH", {}), ("STOCH", {"slowk_matype": 1, "slowd_matype": 1}), ("STOCHF", {}), ("STOCHRSI", {}),
    ("WILLR", {}), ("CCI", {}), ("ADX", {}), ("ADXR", {}), ("PLUS_DI", {}), ("MINUS_DI", {}), ("DX", {}),
    ("AROON", {}), ("AROONOSC", {}), ("MFI", {}), ("BOP", {}), ("ULTOSC", {}), ("TRIX", {}),
    ("TRANGE", {}), ("NATR", {}), ("STDDEV", {}), ("STDDEV", {"timeperiod": 20, "nbdev": 2.0}), ("VAR", {}),
    ("OBV", {}), ("AD", {}), ("ADOSC", {}),
    ("MIN", {}), ("MAX", {}), ("SUM", {}), ("LINEARREG", {}), ("LINEARREG_SLOPE", {}), ("CORREL", {}), ("BETA", {}),
]


def column_names(name, params, outputs):
    suffix = "".join(f"@{k}={v}" for k, v in params.items())
    base = name.lower()
    if len(outputs) == 1:
        return [base + suffix]
    return [f"{base}_{o.lower()}{suffix}" for o in outputs]


def run(df):
    inputs = {k.lower(): df[k].to_numpy(dtype=float) for k in ("Open", "High", "Low", "Close", "Volume")}
    columns = {}
    for name, params in CALLS:
        fn = abstract.Function(name)
        outputs = fn.output_names
        result = fn(inputs, **params)
        if len(outputs) == 1:
            result = [result]
        for column, values in zip(column_names(name, params, outputs), result):
            columns[column] = np.asarray(values, dtype=float)
    return columns


def write(name, columns):
    names = list(columns)
    n = len(columns[names[0]])
    path = os.path.join(HERE, name)
    with open(path + ".f64.tmp", "wb") as f:
        for c in names:
            f.write(np.ascontiguousarray(columns[c], dtype="<f8").tobytes())
    os.replace(path + ".f64.tmp", path + ".f64")
    with open(path + ".columns", "w") as f:
        f.write("\n".join(names) + "\n")
    print(f"wrote {name}.f64: {n} rows, {len(names)} columns, {os.path.getsize(path + '.f64')} bytes")


def synthetic(n=3000, seed=20261127):
    """A random walk with jumps (up to ±40 %), flat stretches (identical bars) and volume spikes (×1e6)."""
    rng = np.random.default_rng(seed)
    close = np.empty(n)
    price = 100.0
    for i in range(n):
        r = rng.normal(0, 0.01)
        if rng.random() < 0.01:
            r += rng.choice([-0.4, 0.4]) * rng.random()
        price *= np.exp(r)
        close[i] = price
    for start in rng.choice(n - 40, 8, replace=False):
        close[start:start + 30] = close[start]
    spread = np.abs(rng.normal(0, 0.01, n)) * close
    high = close + spread * rng.random(n)
    low = close - spread * rng.random(n)
    open_ = low + (high - low) * rng.random(n)
    volume = np.round(rng.lognormal(10, 1, n))
    spikes = rng.random(n) < 0.005
    volume[spikes] *= 1e6
    volume[rng.random(n) < 0.01] = 0
    flat = close.copy()
    for i in range(n):
        if high[i] == low[i]:
            open_[i] = flat[i]
    return pd.DataFrame({"Open": open_, "High": high, "Low": low, "Close": close, "Volume": volume})


def main():
    series = {"goog": GOOG, "eurusd": EURUSD, "btcusd": BTCUSD}
    syn = synthetic()
    with open(os.path.join(HERE, "talib_synthetic_ohlcv.csv"), "w") as f:
        f.write("timestamp,open,high,low,close,volume\n")
        for i, row in syn.iterrows():
            f.write("%d,%s\n" % (1_600_000_000 + 86400 * i, ",".join("%.17g" % row[k] for k in ("Open", "High", "Low", "Close", "Volume"))))
    series["synthetic"] = syn
    for key, df in series.items():
        write(f"talib_{key}", run(df.astype(float)))
    print("talib", talib.__version__, talib.__ta_version__, "numpy", np.__version__)


if __name__ == "__main__":
    main()
