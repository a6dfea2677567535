"""Golden fixtures for the Sentio signal model (Tests/SentioSignalsTests/SignalModelGoldenTests.swift).

An independent re-implementation of the model described in Sources/SentioSignals/Documentation.docc/SignalModel.md, on real data (the daily
GOOG series shipped with backtesting.py, as written to ../indicators/goog_ohlcv.csv): TA-Lib RSI/ATR, pandas
volume ratio, and for every bar a statsmodels OLS fit on the trailing window of (features, forward log return)
pairs whose targets are known, with the forecast's standard error from `get_prediction(...).se_mean`. The
calibrated confidence comes from calibration.py (default calibrator parameters).

Run with the pinned requirements (Tests/Fixtures/requirements.txt; the script makes the venv, interpreter from
--python or $PYTHON):
    bash Tests/Fixtures/regenerate.sh signals
Produced with numpy 2.4.6, pandas 3.1.1, scipy 1.17.1, TA-Lib 0.8.2, statsmodels 0.15.0 (goog_signals_ta_features.csv
added later with the same pins; the other two files were left as first recorded: a rerun differs from them only
in the last digits of the OLS, within the tests' 1e-8).
"""
import os

import numpy as np
import pandas as pd
import statsmodels.api as sm
import talib
from scipy.stats import norm

from calibration import calibrated_confidence

COLUMNS = [
    "index", "forecast", "standard_error", "ai_signal", "adjusted_r2", "fit_strength", "confidence", "target_return",
    "stop_loss", "profit_target", "rsi", "volume_ratio", "signal_type",
]
HERE = os.path.dirname(os.path.abspath(__file__))

CONFIGS = {
    # name: (horizon, window, short, medium, rsi, volume window, atr, overlap correction, stop multiple)
    "default": dict(h=5, W=120, s=5, m=20, rsi=14, vw=20, atr=14, overlap=True, stop=1.5),
    "h1_w60": dict(h=1, W=60, s=3, m=10, rsi=7, vw=10, atr=5, overlap=False, stop=2.0),
    # The defaults plus three TA-Lib indicator features (SignalModelConfig.indicatorFeatures
    # ["adx", "macd_macdhist(fastperiod=8)", "wma(timeperiod=30)/close"]), after the built-in five.
    "ta_features": dict(h=5, W=120, s=5, m=20, rsi=14, vw=20, atr=14, overlap=True, stop=1.5, features=[
        lambda o, h, l, c: talib.ADX(h, l, c, 14),
        lambda o, h, l, c: talib.MACD(c, 8, 26, 9)[2],
        lambda o, h, l, c: talib.WMA(c, 30) / c,
    ]),
}
BUY, SELL, MIN_CONF, OVERBOUGHT, OVERSOLD = 1.0, 1.0, 0.25, 70.0, 30.0


def model(df, c):
    close = df["close"].to_numpy(float)
    high = df["high"].to_numpy(float)
    low = df["low"].to_numpy(float)
    volume = df["volume"].to_numpy(float)
    n = len(close)
    h, W, s, m = c["h"], c["W"], c["s"], c["m"]
    lookback = max(m, s, c["rsi"], c["atr"], c["vw"] - 1)
    extra = [f(df["open"].to_numpy(float), high, low, close) for f in c.get("features", [])]
    for values in extra:
        # A feature's lookback: TA-Lib's first value.
        lookback = max(lookback, int(np.argmax(~np.isnan(values))))
    rsi = talib.RSI(close, c["rsi"])
    atr = talib.ATR(high, low, close, c["atr"])
    ratio = volume / pd.Series(volume).rolling(c["vw"]).mean().to_numpy()
    X = np.full((n, 5 + len(extra)), np.nan)
    X[s:, 0] = np.log(close[s:] / close[:-s])
    X[m:, 1] = np.log(close[m:] / close[:-m])
    X[:, 2] = (rsi - 50) / 50
    X[:, 3] = np.log(np.clip(ratio, 0.01, 100))
    X[:, 4] = atr / close
    for j, values in enumerate(extra):
        X[:, 5 + j] = values
    X[:lookback] = np.nan
    rows = []
    first = lookback + h + W - 1
    for t in range(first, n):
        js = np.arange(t - h - W + 1, t - h + 1)
        y = np.log(close[js + h] / close[js])
        fit = sm.OLS(y, sm.add_constant(X[js], has_constant="add")).fit()
        x = np.concatenate([[1.0], X[t]])[None, :]
        pred = fit.get_prediction(x)
        forecast = float(pred.predicted_mean[0])
        se = float(pred.se_mean[0]) * (np.sqrt(h) if c["overlap"] else 1.0)
        z = forecast / se
        adj = float(fit.rsquared_adj)
        conf = (2 * norm.cdf(abs(z)) - 1) * np.sqrt(max(adj, 0.0))
        r = rsi[t]
        if r >= OVERBOUGHT:
            kind = "SELL"
        elif z <= -SELL:
            kind = "HOLD" if r <= OVERSOLD else "SELL"
        elif z >= BUY:
            kind = "BUY" if conf >= MIN_CONF else "HOLD"
        else:
            kind = "HOLD"
        target = np.expm1(forecast) * 100
        rows.append(dict(
            index=t, forecast=forecast, standard_error=se, ai_signal=z, adjusted_r2=adj, fit_strength=conf,
            target_return=target, stop_loss=-c["stop"] * atr[t] / close[t] * 100,
            profit_target=close[t] * (1 + target / 100), rsi=r, volume_ratio=ratio[t], signal_type=kind))
    out = pd.DataFrame(rows)
    out["confidence"] = calibrated_confidence(close, out["index"], out["ai_signal"], out["signal_type"], h)
    return out[COLUMNS]


def main():
    df = pd.read_csv(os.path.join(HERE, "..", "indicators", "goog_ohlcv.csv"))
    for name, c in CONFIGS.items():
        out = model(df, c)
        out.to_csv(os.path.join(HERE, f"goog_signals_{name}.csv"), index=False, float_format="%.17g")
        print(name, len(out), "rows;", out.signal_type.value_counts().to_dict())


if __name__ == "__main__":
    main()
