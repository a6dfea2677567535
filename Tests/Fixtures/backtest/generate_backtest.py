"""Golden fixtures for SentioBacktest, produced by backtesting.py on its bundled GOOG daily series.

Run with the pinned environment (Tests/Fixtures/requirements.txt: backtesting==0.6.6, TA-Lib==0.8.2):

    bash Tests/Fixtures/regenerate.sh backtest     # interpreter: --python PYTHON or $PYTHON (see the script)

Writes, beside this script:
- goog_daily.csv            the GOOG bars (timestamp = UTC epoch seconds of the date, open, high, low, close, volume)
                            and TA-Lib's RSI(14) of the close (talibRsi14), so the simulator can be checked on its own
- goog_rsi_trades.csv       closed trades of RSI(14) 30/70, all-in, commission 0.001, next-open fills, cash 100,000
- goog_rsi_summary.csv      final equity, open-trade size/entry, and backtesting.py's own statistics
- goog_rsi_equity.csv       backtesting.py's equity curve (bar index, equity)
- goog_rsi_stops_trades.csv the same strategy with a stop-loss 5% below and a take-profit 10% above the
                            decision bar's close (backtesting.py's sl/tp are absolute prices fixed at order time)
- goog_rsi_stops_summary.csv
- goog_rsi_close_*.csv      the same two runs with trade_on_close=True (fills at the decision bar's close)
- goog_rsi_benchmark.csv    benchmark-relative statistics of goog_rsi's equity by quantstats 0.0.86 (greeks, information
                            ratio, r_squared, comp) and numpy (correlation, tracking error, CAGR), one row per benchmark:
                            GOOG (buy-and-hold of the same bars) and GOOG-weekly (GOOG's close on every 5th bar only, so
                            the strategy's returns are compounded between the common bars; weekly spacing, so 52 periods a year)
- goog_rsi_rolling.csv      quantstats rolling_sharpe and rolling_volatility (window 126, 252 periods) of goog_rsi's returns

Pins: Tests/Fixtures/backtest/requirements.txt (the shared pins plus quantstats 0.0.86 and its dependencies).

Conventions of backtesting.py 0.6.6 relied on (read from its source):
- `buy()` without size means size = 1 - eps of available margin; the broker sizes it at fill time as
  int(margin_available * (1 - eps) // (price * (1 + commission))) - the all-in rule floor(cash / (price (1 + c))).
- Market orders placed in `next()` at bar i fill at bar i+1's open (trade_on_close=False).
- Commission is charged at entry and at exit, `size * price * rate` each time; trade PnL is net of both.
- finalize_trades=False (default): a trade still open at the end is not a closed trade; final equity marks it
  at the last close without an exit commission.
- `next()` is first called at bar 1 + (first bar where every indicator is non-NaN) = 15 for RSI(14).
- SL/TP orders are live on the entry bar (issue #119); SL is processed before TP; a gap fills at the open.
"""
import os
import warnings

import numpy as np
import pandas as pd
import talib
from backtesting import Backtest, Strategy
from backtesting.test import GOOG

HERE = os.path.dirname(os.path.abspath(__file__))
COMMISSION = 0.001
CASH = 100_000


def rsi(close, period):
    return talib.RSI(np.asarray(close, dtype=float), timeperiod=period)


class RsiMeanReversion(Strategy):
    period = 14
    lower = 30.0
    upper = 70.0
    stop_fraction = None  # e.g. 0.05: stop 5% below the decision close
    target_fraction = None

    def init(self):
        self.rsi = self.I(rsi, self.data.Close, self.period)

    def next(self):
        value = self.rsi[-1]
        if not self.position and value < self.lower:
            if self.stop_fraction is None:
                self.buy()
            else:
                close = self.data.Close[-1]
                self.buy(sl=close * (1 - self.stop_fraction), tp=close * (1 + self.target_fraction))
        elif self.position and value > self.upper:
            self.position.close()


def empyrical_style(equity, periods=252):
    """Return statistics with empyrical's definitions, computed here with plain numpy (empyrical itself is
    unmaintained and not pinned): simple returns, ddof 1, risk-free 0."""
    r = equity[1:] / equity[:-1] - 1
    growth = np.prod(1 + r)
    cagr = growth ** (periods / len(r)) - 1                       # empyrical.annual_return
    vol = r.std(ddof=1) * np.sqrt(periods)                          # empyrical.annual_volatility
    sharpe = r.mean() / r.std(ddof=1) * np.sqrt(periods)            # empyrical.sharpe_ratio
    downside = np.sqrt(np.mean(np.clip(r, -np.inf, 0) ** 2)) * np.sqrt(periods)
    sortino = r.mean() * periods / downside                         # empyrical.sortino_ratio
    wealth = np.cumprod(1 + r)
    wealth = np.r_[1.0, wealth]
    max_dd = np.min(wealth / np.maximum.accumulate(wealth) - 1)     # empyrical.max_drawdown
    return {"cagrPercentEmpyrical": cagr * 100, "annualizedVolatilityPercentEmpyrical": vol * 100,
            "sharpeEmpyrical": sharpe, "sortinoEmpyrical": sortino, "calmarEmpyrical": cagr / abs(max_dd),
            "maxDrawdownPercentEmpyrical": max_dd * 100}


def write_bars(path):
    ts = (GOOG.index.values.astype("datetime64[s]").astype(np.int64))
    frame = pd.DataFrame({
        "timestamp": ts, "open": GOOG.Open.values, "high": GOOG.High.values, "low": GOOG.Low.values,
        "close": GOOG.Close.values, "volume": GOOG.Volume.values.astype(float),
        "talibRsi14": rsi(GOOG.Close.values, 14)})
    frame.to_csv(path, index=False, float_format="%.17g")


def run(prefix, trade_on_close=False, **params):
    bt = Backtest(GOOG, RsiMeanReversion, cash=CASH, commission=COMMISSION, trade_on_close=trade_on_close)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = bt.run(**params)
    trades = stats["_trades"]
    pd.DataFrame({
        "entryBar": trades.EntryBar.values, "exitBar": trades.ExitBar.values,
        "entryPrice": trades.EntryPrice.values, "exitPrice": trades.ExitPrice.values,
        "size": trades.Size.values.astype(float), "pnl": trades.PnL.values,
        "returnPercent": trades.ReturnPct.values * 100, "commission": trades.Commission.values,
    }).to_csv(os.path.join(HERE, f"{prefix}_trades.csv"), index=False, float_format="%.17g")
    strategy = stats["_strategy"]
    open_trades = strategy.trades  # still open at the end (finalize_trades=False)
    summary = {
        "finalEquity": stats["Equity Final [$]"],
        "openSize": float(sum(t.size for t in open_trades)),
        "openEntryPrice": float(open_trades[0].entry_price) if open_trades else np.nan,
        "openEntryBar": float(open_trades[0].entry_bar) if open_trades else np.nan,
        "returnPercent": stats["Return [%]"],
        "exposurePercent": stats["Exposure Time [%]"],
        "maxDrawdownPercent": stats["Max. Drawdown [%]"],
        "tradeCount": float(stats["# Trades"]),
        "winRatePercent": stats["Win Rate [%]"],
        "bestTradePercent": stats["Best Trade [%]"],
        "worstTradePercent": stats["Worst Trade [%]"],
        "sqn": stats["SQN"],
        "sharpeBacktestingPy": stats["Sharpe Ratio"],
        "commissions": stats.get("Commissions [$]", 0.0),
        "maxDrawdownDurationDays": float(stats["Max. Drawdown Duration"].days),
    }
    summary.update(empyrical_style(stats["_equity_curve"].Equity.values))
    pd.DataFrame([summary]).to_csv(os.path.join(HERE, f"{prefix}_summary.csv"), index=False, float_format="%.17g")
    eq = stats["_equity_curve"].Equity.values
    pd.DataFrame({"bar": np.arange(len(eq)), "equity": eq}).to_csv(
        os.path.join(HERE, f"{prefix}_equity.csv"), index=False, float_format="%.17g")
    return stats


def benchmark_row(name, equity, times, bench_times, bench_values, periods=252):
    """Aligns the strategy's equity and a benchmark on the timestamps both have (no deposits here: the wealth index
    is equity / initial equity), forms the returns between consecutive common timestamps and asks quantstats."""
    import quantstats as qs
    strategy = pd.Series(equity, index=pd.to_datetime(times, unit="s"))
    bench = pd.Series(bench_values, index=pd.to_datetime(bench_times, unit="s"))
    common = strategy.index.intersection(bench.index)
    s_levels, b_levels = strategy.loc[common], bench.loc[common]
    r = (s_levels / s_levels.shift(1) - 1).iloc[1:]
    b = (b_levels / b_levels.shift(1) - 1).iloc[1:]
    greeks = qs.stats.greeks(r, b, periods=float(periods))
    diff = (r - b).to_numpy()
    total = b_levels.iloc[-1] / b_levels.iloc[0]
    return {
        "benchmark": name, "commonBars": float(len(common)), "periodsPerYear": float(periods),
        "alpha": float(greeks["alpha"]), "beta": float(greeks["beta"]),
        "informationRatio": float(qs.stats.information_ratio(r, b)),
        "rSquared": float(qs.stats.r_squared(r, b)),
        "totalReturnPercentQuantstats": float(qs.stats.comp(b)) * 100,
        "correlationPandas": float(r.corr(b)),
        "trackingErrorPercentNumpy": float(np.std(diff, ddof=1) * np.sqrt(periods) * 100),
        "totalReturnPercentNumpy": float(total - 1) * 100,
        "cagrPercentNumpy": float(total ** (periods / len(r)) - 1) * 100,
    }


def write_benchmarks(equity):
    import quantstats as qs
    times = GOOG.index.values.astype("datetime64[s]").astype(np.int64)
    close = GOOG.Close.values.astype(float)
    weekly = np.arange(0, len(times), 5)
    rows = [benchmark_row("GOOG", equity, times, times, close),
            benchmark_row("GOOG-weekly", equity, times, times[weekly], close[weekly], periods=52)]
    pd.DataFrame(rows).to_csv(os.path.join(HERE, "goog_rsi_benchmark.csv"), index=False, float_format="%.17g")
    r = pd.Series(equity[1:] / equity[:-1] - 1, index=pd.to_datetime(times[1:], unit="s"))
    rolling = pd.DataFrame({
        "returnIndex": np.arange(len(r)),
        "rollingSharpe126": qs.stats.rolling_sharpe(r, rolling_period=126, periods_per_year=252).to_numpy(),
        "rollingVolatility126": qs.stats.rolling_volatility(r, rolling_period=126, periods_per_year=252).to_numpy(),
    })
    rolling.to_csv(os.path.join(HERE, "goog_rsi_rolling.csv"), index=False, float_format="%.17g")


if __name__ == "__main__":
    write_bars(os.path.join(HERE, "goog_daily.csv"))
    s = run("goog_rsi")
    print(s)
    write_benchmarks(s["_equity_curve"].Equity.values.astype(float))
    s = run("goog_rsi_stops", stop_fraction=0.05, target_fraction=0.10)
    print(s[["Equity Final [$]", "# Trades"]])
    os.remove(os.path.join(HERE, "goog_rsi_stops_equity.csv"))
    # Same-bar close fills (trade_on_close=True): entry/exit at the decision bar's close; SL/TP orders are
    # contingent and first checked on the next bar. backtesting.py records equity before the close fill,
    # so only trades and final equity are compared.
    for prefix, extra in (("goog_rsi_close", {}), ("goog_rsi_close_stops", dict(stop_fraction=0.05, target_fraction=0.10))):
        s = run(prefix, trade_on_close=True, **extra)
        print(prefix, s[["Equity Final [$]", "# Trades"]].tolist())
        os.remove(os.path.join(HERE, f"{prefix}_equity.csv"))
