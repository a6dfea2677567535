"""Real market files for Sentio's reader tests, and reference numbers computed with pandas.

Sources (the sample data the wheels ship; see README.md in this folder for licences):
- bokeh-sampledata 2026.1, bokeh_sampledata/_data/stocks.csv.gz: Quandl WIKI daily prices (public domain),
  long form `Ticker,Date,Open,High,Low,Close,Volume,Adj Close`, OHLC unadjusted, Adj Close split- and
  dividend-adjusted.
- arch 8.0.0, arch/data/sp500/sp500.csv.gz: S&P 500 daily, `Date,Open,High,Low,Close,Adj Close,Volume` with
  dates written M/D/YYYY (NCSA licence).

Writes into this folder:
- AAPL.csv: AAPL 2000-03-01 .. 2013-03-01 as exported (Date,Open,High,Low,Close,Volume,Adj Close).
- AAPL_actions.csv: its splits and cash dividends (symbol,date,split_ratio,cash_dividend), derived from the jumps
  of Adj Close / Close: a jump within 1 % of a split ratio is a split, any other jump above 1e-6 a dividend
  D = C[i-1] * (1 - f[i-1]/f[i]) (f = Adj Close / Close), rounded to the cent.
- stocks_2005H1.csv: AAPL, IBM and MSFT for 2005-01-01 .. 2005-06-30 in the long form of the source.
- SP500_1999.csv: the S&P 500 of 1999 as arch ships it (M/D/YYYY dates).
- reference.csv: name,value rows (see the computations below).

Run through Tests/Fixtures/regenerate.sh market_files.
"""
import gzip
import importlib.util
import io
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
SPLIT_RATIOS = [2, 3, 1.5, 4, 5, 10, 1 / 2, 1 / 3, 2 / 3, 1 / 4, 1 / 5, 1 / 10]


def package_file(package, *parts):
    # find_spec locates the package without importing it (arch's __init__ needs scipy and statsmodels).
    root = importlib.util.find_spec(package).submodule_search_locations[0]
    return os.path.join(root, *parts)


def read_gz(path):
    with gzip.open(path, "rb") as f:
        return f.read().decode("utf-8")


def main():
    stocks_text = read_gz(package_file("bokeh_sampledata", "_data", "stocks.csv.gz"))
    lines = stocks_text.splitlines()
    header = lines[0]
    assert header == "Ticker,Date,Open,High,Low,Close,Volume,Adj Close", header
    stocks = pd.read_csv(io.StringIO(stocks_text), dtype={"Date": str})

    # AAPL.csv: the rows as written in the source (no reformatting), without the Ticker column.
    aapl_lines = [line.split(",", 1)[1] for line in lines[1:] if line.startswith("AAPL,")]
    with open(os.path.join(HERE, "AAPL.csv"), "w", newline="\n") as f:
        f.write("Date,Open,High,Low,Close,Volume,Adj Close\n")
        f.write("\n".join(aapl_lines) + "\n")

    long_lines = [
        line for line in lines[1:]
        if line.split(",")[0] in ("AAPL", "IBM", "MSFT") and "2005-01-01" <= line.split(",")[1] <= "2005-06-30"
    ]
    with open(os.path.join(HERE, "stocks_2005H1.csv"), "w", newline="\n") as f:
        f.write(header + "\n" + "\n".join(long_lines) + "\n")

    sp_text = read_gz(package_file("arch", "data", "sp500", "sp500.csv.gz"))
    sp_lines = sp_text.splitlines()
    assert sp_lines[0] == "Date,Open,High,Low,Close,Adj Close,Volume", sp_lines[0]
    sp_rows = [line for line in sp_lines[1:] if line.split(",")[0].endswith("/1999")]
    with open(os.path.join(HERE, "SP500_1999.csv"), "w", newline="\n") as f:
        f.write(sp_lines[0] + "\n" + "\n".join(sp_rows) + "\n")

    aapl = pd.read_csv(os.path.join(HERE, "AAPL.csv"), dtype={"Date": str})
    close = aapl["Close"].to_numpy()
    open_ = aapl["Open"].to_numpy()
    adj = aapl["Adj Close"].to_numpy()
    f = adj / close
    jump = f[1:] / f[:-1]

    actions = []
    for i, j in enumerate(jump, start=1):
        ratio = next((r for r in SPLIT_RATIOS if abs(j / r - 1) <= 0.01), None)
        if ratio is not None:
            actions.append(("AAPL", aapl["Date"][i], ratio, 0.0))
        elif abs(j - 1) > 1e-6:
            dividend = round(close[i - 1] * (1 - f[i - 1] / f[i]), 2)
            actions.append(("AAPL", aapl["Date"][i], 1.0, dividend))
    with open(os.path.join(HERE, "AAPL_actions.csv"), "w", newline="\n") as out:
        out.write("symbol,date,split_ratio,cash_dividend\n")
        for symbol, date, ratio, dividend in actions:
            out.write(f"{symbol},{date},{ratio:g},{dividend:g}\n")

    # Buy-and-hold as Sentio runs it: decided at the first close, filled at the second bar's open, commission
    # 0.1 % of the notional, fractional shares, held to the last close (marked, not sold).
    commission = 0.001
    g = f / f[-1]  # total-return factor normalised to the last bar (Sentio's --adjust total)
    gross_total = (close[-1] * g[-1]) / (open_[1] * g[1]) - 1
    net_total = (close[-1] * g[-1]) / (open_[1] * g[1] * (1 + commission)) - 1
    # Pandas' own adjusted-close return from the second bar's close, as a cross-check of the factor arithmetic.
    adj_close_return = aapl["Adj Close"].iloc[-1] / aapl["Adj Close"].iloc[1] - 1
    gross_raw = close[-1] / open_[1] - 1

    splits = [(d, r) for _, d, r, _ in actions if r != 1]
    dividends = [(d, dv) for _, d, r, dv in actions if dv > 0]
    split_factor_at_1 = np.prod([r for d, r in splits if d > aapl["Date"][1]])
    gross_splits = close[-1] / (open_[1] / split_factor_at_1) - 1
    # Raw prices with the actions applied to the holding: shares x ratio at each split, dividends in cash.
    shares = 100_000 / (open_[1] * (1 + commission))
    cash = 0.0
    for i in range(2, len(aapl)):
        date = aapl["Date"][i]
        for d, r in splits:
            if d == date:
                shares *= r
        for d, dv in dividends:
            if d == date:
                cash += shares * dv
    net_actions = (shares * close[-1] + cash) / 100_000 - 1

    sp = pd.read_csv(os.path.join(HERE, "SP500_1999.csv"))
    sp_dates = pd.to_datetime(sp["Date"], format="%m/%d/%Y")

    long = pd.read_csv(os.path.join(HERE, "stocks_2005H1.csv"))
    rows = [
        ("aapl_bars", len(aapl)),
        ("aapl_first_date", aapl["Date"].iloc[0]),
        ("aapl_last_date", aapl["Date"].iloc[-1]),
        ("aapl_splits", len(splits)),
        ("aapl_dividends", len(dividends)),
        ("aapl_buy_and_hold_total_gross", repr(float(gross_total))),
        ("aapl_buy_and_hold_total_net", repr(float(net_total))),
        ("aapl_adj_close_return_from_second_close", repr(float(adj_close_return))),
        ("aapl_buy_and_hold_unadjusted_gross", repr(float(gross_raw))),
        ("aapl_buy_and_hold_splits_gross", repr(float(gross_splits))),
        ("aapl_buy_and_hold_actions_net", repr(float(net_actions))),
        ("sp500_1999_bars", len(sp)),
        ("sp500_1999_first_date", sp_dates.iloc[0].strftime("%Y-%m-%d")),
        ("sp500_1999_last_date", sp_dates.iloc[-1].strftime("%Y-%m-%d")),
        ("sp500_1999_close_return", repr(float(sp["Close"].iloc[-1] / sp["Close"].iloc[0] - 1))),
    ]
    for symbol in ("AAPL", "IBM", "MSFT"):
        s = long[long["Ticker"] == symbol]
        rows.append((f"long_{symbol}_bars", len(s)))
        rows.append((f"long_{symbol}_adj_close_return", repr(float(s["Adj Close"].iloc[-1] / s["Adj Close"].iloc[0] - 1))))
    with open(os.path.join(HERE, "reference.csv"), "w", newline="\n") as out:
        out.write("name,value\n")
        for name, value in rows:
            out.write(f"{name},{value}\n")


if __name__ == "__main__":
    main()
