"""Golden fixtures for the order model and short selling (issue 33), produced by backtesting.py 0.6.6 on its bundled
GOOG daily series (the bars of Tests/Fixtures/backtest/goog_daily.csv).

Run with the pinned environment (this folder's requirements.txt):

    bash Tests/Fixtures/regenerate.sh orders     # interpreter: --python PYTHON or $PYTHON (see the script)

Python produces fixtures only: the scenarios below choose bars of GOOG where each order semantic shows, place the
orders with backtesting.py, and write what it did; the Swift test (Tests/SentioBacktestTests/OrderParityTests.swift)
places the same orders at the same bars with Sentio's order model and compares trade by trade.

Writes, beside this script:
- orders_cases.csv    one row per order placed: case, decisionBar (the bar at whose close `next()` placed it), action
                      (buy, sell, close), type (market, stop), stop, sl, tp (NaN: none); all sized all-in (backtesting.py's
                      default size), cash 100,000, commission 0.001, next-open fills
- orders_trades.csv   backtesting.py's closed trades per case: entryBar, exitBar, entryPrice, exitPrice, size (negative:
                      short), pnl, returnPercent, commission
- orders_summary.csv  per case: finalEquity, tradeCount, openSize
- sma_cross_sma.csv   SMA(10) and SMA(20) of the close (backtesting.test.SMA), the indicators of the SmaCross case

Cases:
- sl_entry_bar   a market entry whose stop-loss the entry bar itself reaches (SL/TP live on the entry bar, issue 119)
- stop_entry_gap a buy stop the next bar opens above (fills at the open), closed 5 bars later
- stop_before_tp a bracket whose stop-loss and take-profit are both inside one later bar (SL first)
- sl_gap         a stop-loss the bar opens below (fills at the open)
- sma_cross      backtesting.py's own SmaCross example (SMA 10/20 crossover, buy on cross up, sell on cross down,
                 exclusive_orders=True: each new order closes the open position first), long and short, commission 0.002
"""
import math
import os
import warnings

import numpy as np
import pandas as pd
from backtesting import Backtest, Strategy
from backtesting.lib import crossover
from backtesting.test import GOOG, SMA

HERE = os.path.dirname(os.path.abspath(__file__))
CASH = 100_000
NAN = float("nan")
O, H, L, C = (GOOG[k].values for k in ("Open", "High", "Low", "Close"))
N = len(C)


def sl_entry_bar():
    # Decide at i, enter at i+1's open; the stop halfway between that open and its low.
    i = next(i for i in range(20, N - 2) if L[i + 1] < O[i + 1] * 0.98)
    return [dict(decisionBar=i, action="buy", type="market", stop=NAN, sl=(O[i + 1] + L[i + 1]) / 2, tp=NAN)]


def stop_entry_gap():
    i = next(i for i in range(20, N - 8) if O[i + 1] > C[i] * 1.01)
    return [dict(decisionBar=i, action="buy", type="stop", stop=C[i] * 1.005, sl=NAN, tp=NAN),
            dict(decisionBar=i + 5, action="close", type="market", stop=NAN, sl=NAN, tp=NAN)]


def stop_before_tp():
    # Enter at j-1's open; bar j-1 stays inside (sl, tp); bar j opens inside and reaches both.
    for j in range(22, N - 1):
        lo, hi = min(L[j - 1], O[j - 1]), max(H[j - 1], O[j - 1])
        if L[j] < lo and H[j] > hi:
            sl, tp = (L[j] + lo) / 2, (H[j] + hi) / 2
            if sl < O[j] < tp:
                return [dict(decisionBar=j - 2, action="buy", type="market", stop=NAN, sl=sl, tp=tp)]
    raise RuntimeError("no bar")


def sl_gap():
    for j in range(22, N - 1):
        if O[j] < L[j - 1] * 0.99 and O[j] < O[j - 1]:
            return [dict(decisionBar=j - 2, action="buy", type="market", stop=NAN, sl=(O[j] + L[j - 1]) / 2, tp=NAN)]
    raise RuntimeError("no bar")


class Scripted(Strategy):
    plan = None

    def init(self):
        pass

    def next(self):
        for row in self.plan.get(len(self.data) - 1, []):
            kw = {}
            if not math.isnan(row["stop"]):
                kw["stop"] = row["stop"]
            if not math.isnan(row["sl"]):
                kw["sl"] = row["sl"]
            if not math.isnan(row["tp"]):
                kw["tp"] = row["tp"]
            if row["action"] == "buy":
                self.buy(**kw)
            elif row["action"] == "sell":
                self.sell(**kw)
            else:
                self.position.close()


class SmaCross(Strategy):
    def init(self):
        price = self.data.Close
        self.ma1 = self.I(SMA, price, 10)
        self.ma2 = self.I(SMA, price, 20)

    def next(self):
        if crossover(self.ma1, self.ma2):
            self.buy()
        elif crossover(self.ma2, self.ma1):
            self.sell()


def trades_frame(case, stats):
    t = stats["_trades"]
    return pd.DataFrame({
        "case": case, "entryBar": t.EntryBar.values, "exitBar": t.ExitBar.values,
        "entryPrice": t.EntryPrice.values, "exitPrice": t.ExitPrice.values, "size": t.Size.values.astype(float),
        "pnl": t.PnL.values, "returnPercent": t.ReturnPct.values * 100, "commission": t.Commission.values})


def summary_row(case, stats):
    open_trades = stats["_strategy"].trades
    return {"case": case, "finalEquity": stats["Equity Final [$]"], "tradeCount": float(stats["# Trades"]),
            "openSize": float(sum(t.size for t in open_trades))}


def main():
    rows, trades, summary = [], [], []
    for name, make in [("sl_entry_bar", sl_entry_bar), ("stop_entry_gap", stop_entry_gap),
                       ("stop_before_tp", stop_before_tp), ("sl_gap", sl_gap)]:
        plan_rows = make()
        plan = {}
        for r in plan_rows:
            plan.setdefault(r["decisionBar"], []).append(r)
            rows.append(dict(case=name, **r))
        bt = Backtest(GOOG, Scripted, cash=CASH, commission=0.001)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stats = bt.run(plan=plan)
        trades.append(trades_frame(name, stats))
        summary.append(summary_row(name, stats))
    bt = Backtest(GOOG, SmaCross, cash=CASH, commission=0.002, exclusive_orders=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = bt.run()
    trades.append(trades_frame("sma_cross", stats))
    summary.append(summary_row("sma_cross", stats))
    pd.DataFrame(rows).to_csv(os.path.join(HERE, "orders_cases.csv"), index=False, float_format="%.17g")
    pd.concat(trades).to_csv(os.path.join(HERE, "orders_trades.csv"), index=False, float_format="%.17g")
    pd.DataFrame(summary).to_csv(os.path.join(HERE, "orders_summary.csv"), index=False, float_format="%.17g")
    pd.DataFrame({"bar": np.arange(N), "sma10": SMA(GOOG.Close, 10), "sma20": SMA(GOOG.Close, 20)}).to_csv(
        os.path.join(HERE, "sma_cross_sma.csv"), index=False, float_format="%.17g")


if __name__ == "__main__":
    main()
