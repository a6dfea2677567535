#!/usr/bin/env python3
"""Golden fixtures for SentioIndicators.

Reference libraries (versions pinned in Tests/Fixtures/requirements.txt): TA-Lib (RSI, SMA, EMA, ATR),
pandas (rolling mean / std / volume ratio), statsmodels (RollingOLS). Input: the daily GOOG series
shipped inside the `backtesting` package (backtesting.test.GOOG, 2004-08-19 .. 2013-03-01, 2148 bars).

Regenerate (makes the pinned venv; interpreter from --python or $PYTHON):
    bash Tests/Fixtures/regenerate.sh indicators
Numbers are written with '%.17g' so that they round-trip exactly; empty cell = not valid (NaN).
"""
import os
from fractions import Fraction

import numpy as np
import pandas as pd
import talib
import statsmodels
from statsmodels.regression.rolling import RollingOLS
from backtesting.test import GOOG

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(v):
    v = float(v)
    return "" if np.isnan(v) else "%.17g" % v


def write_csv(name, columns):
    names = list(columns)
    n = len(columns[names[0]])
    path = os.path.join(HERE, name)
    with open(path + ".tmp", "w") as f:
        f.write(",".join(names) + "\n")
        for i in range(n):
            f.write(",".join(fmt(columns[c][i]) for c in names) + "\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {name}: {n} rows, {os.path.getsize(path)} bytes")


df = GOOG.astype(float)
o, h, l, c, v = (df[k].to_numpy() for k in ("Open", "High", "Low", "Close", "Volume"))
epoch = np.asarray((GOOG.index - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1), dtype=float)

# --- Inputs --------------------------------------------------------------------------------------
write_csv("goog_ohlcv.csv", {"timestamp": epoch, "open": o, "high": h, "low": l, "close": c, "volume": v})

# --- Indicators ----------------------------------------------------------------------------------
vol = pd.Series(v)
close = pd.Series(c)
write_csv("goog_indicators.csv", {
    "rsi14": talib.RSI(c, timeperiod=14),
    "rsi2": talib.RSI(c, timeperiod=2),
    "sma20": talib.SMA(c, timeperiod=20),
    "ema20": talib.EMA(c, timeperiod=20),
    "atr14": talib.ATR(h, l, c, timeperiod=14),
    "volume_ratio20": (vol / vol.rolling(20).mean()).to_numpy(),
    "rolling_mean20": close.rolling(20).mean().to_numpy(),
    "rolling_std20": close.rolling(20).std(ddof=1).to_numpy(),
    "rolling_std20_ddof0": close.rolling(20).std(ddof=0).to_numpy(),
    "zscore20": ((close - close.rolling(20).mean()) / close.rolling(20).std(ddof=1)).to_numpy(),
})

# RSI in a flat market: TA-Lib returns 0 when avgGain + avgLoss is (near) zero.
flat = np.concatenate([np.full(20, 50.0), 50.0 + np.array([1, -0.5, 0.25, 2, -1, 0.5, 0, 0, 1.5, -2]),
                       np.full(40, 50.5)])
write_csv("rsi_flat.csv", {"close": flat, "rsi14": talib.RSI(flat, timeperiod=14),
                           "rsi2": talib.RSI(flat, timeperiod=2)})

# --- Rolling OLS ---------------------------------------------------------------------------------
# Contemporaneous design: y = daily log return; regressors known before the bar: lag-1 return,
# lag-5 momentum (log C[t-1]/C[t-6]) and lagged log volume change (log V[t-1]/V[t-2]).
logc = np.log(c)
ret = pd.Series(np.diff(logc, prepend=np.nan))
design = pd.DataFrame({
    "y": ret,
    "x1": ret.shift(1),
    "x2": pd.Series(logc).shift(1) - pd.Series(logc).shift(6),
    "x3": pd.Series(np.log(v)).diff().shift(1),
}).dropna().reset_index(drop=True)
W = 60
X = np.column_stack([np.ones(len(design)), design[["x1", "x2", "x3"]].to_numpy()])
res = RollingOLS(design["y"].to_numpy(), X, window=W).fit()
cols = {k: design[k].to_numpy() for k in ("y", "x1", "x2", "x3")}
for j, name in enumerate(("const", "b1", "b2", "b3")):
    cols["param_" + name] = res.params[:, j]
for j, name in enumerate(("const", "b1", "b2", "b3")):
    cols["bse_" + name] = res.bse[:, j]
for j, name in enumerate(("const", "b1", "b2", "b3")):
    cols["t_" + name] = res.tvalues[:, j]
cols["rsquared"] = res.rsquared
cols["resid_std"] = np.sqrt(res.mse_resid)
write_csv("goog_rolling_ols.csv", cols)

# Price-level design (ill-conditioned if not centered): y = close, X = const + lagged close, high, low.
lev = pd.DataFrame({"y": close, "x1": close.shift(1), "x2": pd.Series(h).shift(1),
                    "x3": pd.Series(l).shift(1)}).dropna().reset_index(drop=True)
XL = np.column_stack([np.ones(len(lev)), lev[["x1", "x2", "x3"]].to_numpy()])
resl = RollingOLS(lev["y"].to_numpy(), XL, window=W).fit()
cols = {k: lev[k].to_numpy() for k in ("y", "x1", "x2", "x3")}
for j, name in enumerate(("const", "b1", "b2", "b3")):
    cols["param_" + name] = resl.params[:, j]
for j, name in enumerate(("const", "b1", "b2", "b3")):
    cols["bse_" + name] = resl.bse[:, j]
cols["rsquared"] = resl.rsquared
cols["resid_std"] = np.sqrt(resl.mse_resid)


def exact_ols(X, y):
    """OLS coefficients in exact rational arithmetic (normal equations, Gauss-Jordan), as floats."""
    Xq = [[Fraction(float(v)) for v in row] for row in X]
    yq = [Fraction(float(v)) for v in y]
    p = len(Xq[0])
    A = [[sum(r[i] * r[j] for r in Xq) for j in range(p)] + [sum(r[i] * t for r, t in zip(Xq, yq))]
         for i in range(p)]
    for c in range(p):
        piv = next(r for r in range(c, p) if A[r][c] != 0)
        A[c], A[piv] = A[piv], A[c]
        for r in range(p):
            if r != c and A[r][c] != 0:
                f = A[r][c] / A[c][c]
                A[r] = [a - f * b for a, b in zip(A[r], A[c])]
    return [float(A[i][p] / A[i][i]) for i in range(p)]


# statsmodels works on the raw X'X here and loses digits on small coefficients (~1e-8 relative);
# every 25th window also gets the exact (rational-arithmetic) coefficients as a sharper reference.
exact = np.full((len(lev), 4), np.nan)
for t in range(W - 1, len(lev), 25):
    exact[t] = exact_ols(XL[t - W + 1:t + 1], lev["y"].to_numpy()[t - W + 1:t + 1])
for j, name in enumerate(("const", "b1", "b2", "b3")):
    cols["exact_" + name] = exact[:, j]
write_csv("goog_rolling_ols_levels.csv", cols)

print("talib", talib.__version__, "pandas", pd.__version__, "statsmodels", statsmodels.__version__,
      "numpy", np.__version__)

# --- TA-Lib's core set (issue 34): its own script, run here so that `regenerate.sh indicators` writes both -------
import generate_talib  # noqa: E402  (beside this file)

generate_talib.main()
