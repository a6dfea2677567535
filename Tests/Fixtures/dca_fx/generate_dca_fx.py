"""Reference values for DCA in the investor's currency (`sentio backtest --strategy dca --currency GBP --fx FILE`),
computed independently with pandas (and pyxirr for the XIRR) from the raw bars and rates.

Run with the pinned environment (requirements.txt beside this script):

    bash Tests/Fixtures/regenerate.sh dca_fx     # makes the venv; interpreter from --python PYTHON or $PYTHON

Inputs beside this script: SPXL.csv (a USD-priced asset, copied from Data/market) and GBPUSD.csv (USD per GBP,
copied from Data/fx; five bar dates have no rate). For each scenario it writes
<name>_executions.csv (one row per purchase) and <name>_summary.csv (key,value).

The model (what Sentio must reproduce, computed here without Sentio's code):
- the rate of a bar is the GBPUSD close of its date, else the last close before it (forward fill);
- a contribution of AMOUNT GBP is deposited at the close of the first bar of each ISO week (Monday-Sunday) or
  calendar month, and executed at the next bar's open (next-open) or the same close (close): price in GBP =
  USD price / that bar's rate, quantity = AMOUNT / (price * (1 + commission)), fractional; a contribution decided
  on the last bar stays cash;
- equity in GBP = shares * close / rate + cash; in USD = equity in GBP * rate; deposits in USD = deposit * rate
  of the deposit's bar;
- time-weighted return = prod((E_t - D_t) / E_{t-1}) - 1 over bars with E_{t-1} > 0; money-weighted return =
  XIRR (pyxirr, Actual/365F) of -deposits at their dates and +final equity at the last date;
- FX effect = (1 + TWR GBP) / (1 + TWR USD) - 1.
"""
from pathlib import Path

import numpy as np
import pandas as pd
from pyxirr import xirr

HERE = Path(__file__).resolve().parent

SCENARIOS = [
    # name, amount, every, fill, commission
    ("weekly_next_open", 100.0, "week", "next-open", 0.001),
    ("monthly_close", 250.0, "month", "close", 0.0),
]


def run(name, amount, every, fill, commission):
    bars = pd.read_csv(HERE / "SPXL.csv")
    bars["date"] = pd.to_datetime(bars["timestamp"].str.slice(0, 10))
    bars = bars.set_index("date")
    fx = pd.read_csv(HERE / "GBPUSD.csv", parse_dates=["date"]).set_index("date")["close"]
    rate = fx.reindex(fx.index.union(bars.index)).ffill().reindex(bars.index)
    assert rate.notna().all()
    price_gbp = bars[["open", "close"]].div(rate, axis=0)

    period = bars.index.to_period("W-SUN" if every == "week" else "M")
    decision = ~pd.Series(period, index=bars.index).duplicated()
    n = len(bars)
    deposits = np.where(decision.to_numpy(), amount, 0.0)
    bought = np.zeros(n)
    spent = np.zeros(n)
    rows = []
    for i in np.flatnonzero(decision.to_numpy()):
        j = i + 1 if fill == "next-open" else i
        if j >= n:
            continue
        price = price_gbp["open" if fill == "next-open" else "close"].iloc[j]
        qty = amount / (price * (1 + commission))
        bought[j] += qty
        spent[j] += qty * price * (1 + commission)
        usd = bars["open" if fill == "next-open" else "close"].iloc[j]
        rows.append({
            "date": bars.index[j].strftime("%Y-%m-%d"), "quantity": repr(float(qty)), "fx_rate": repr(float(rate.iloc[j])),
            "price_usd": repr(float(usd)), "price_gbp": repr(float(price)), "amount_gbp": repr(float(qty * price * (1 + commission))),
        })
    shares = np.cumsum(bought)
    cash = np.cumsum(deposits) - np.cumsum(spent)
    equity_gbp = shares * price_gbp["close"].to_numpy() + cash
    equity_usd = equity_gbp * rate.to_numpy()
    deposits_usd = deposits * rate.to_numpy()

    def twr(e, d):
        prev = e[:-1]
        ok = prev > 0
        return float(np.prod(((e[1:] - d[1:]) / np.where(ok, prev, 1))[ok])) - 1

    def mwr(e, d):
        dates = [x.date() for x in bars.index[d != 0]] + [bars.index[-1].date()]
        flows = list(-d[d != 0]) + [e[-1]]
        return xirr(dates, flows)

    twr_gbp, twr_usd = twr(equity_gbp, deposits), twr(equity_usd, deposits_usd)
    summary = {
        "executions": len(rows),
        "invested_gbp": deposits.sum(), "invested_usd": deposits_usd.sum(),
        "value_gbp": equity_gbp[-1], "value_usd": equity_usd[-1],
        "twr_gbp_percent": twr_gbp * 100, "twr_usd_percent": twr_usd * 100,
        "mwr_gbp_percent": mwr(equity_gbp, deposits) * 100, "mwr_usd_percent": mwr(equity_usd, deposits_usd) * 100,
        "fx_effect_percent": ((1 + twr_gbp) / (1 + twr_usd) - 1) * 100,
        "amount": amount, "every": every, "fill": fill, "commission": commission,
    }
    pd.DataFrame(rows).to_csv(HERE / f"{name}_executions.csv", index=False)
    with open(HERE / f"{name}_summary.csv", "w") as f:
        f.write("key,value\n")
        for k, v in summary.items():
            f.write(f"{k},{repr(float(v)) if isinstance(v, (float, np.floating)) else v}\n")


if __name__ == "__main__":
    for scenario in SCENARIOS:
        run(*scenario)
