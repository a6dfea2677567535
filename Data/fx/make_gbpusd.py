"""Writes Data/fx/GBPUSD.csv: a synthetic daily GBPUSD series (USD per GBP) over the dates of Data/market.

A seeded random walk of the log rate (daily sd 0.45 %) from 1.2100, with open/high/low around each close.
A few dates are left out on purpose (as a rates feed skips holidays), so that `sentio backtest --currency GBP`
has to use the last rate before them and say so. Standard library only; run from the repository root:

    python3 Data/fx/make_gbpusd.py
"""
import csv
import math
import random

rng = random.Random(20250315)
with open("Data/market/SPXL.csv", newline="") as f:
    dates = [row["timestamp"][:10] for row in csv.DictReader(f)]
skipped = {"2023-04-07", "2023-12-26", "2024-03-29", "2024-05-27", "2024-08-26"}
rate = 1.21
with open("Data/fx/GBPUSD.csv", "w", newline="") as f:
    f.write("date,open,high,low,close\n")
    for d in dates:
        previous = rate
        rate = rate * math.exp(rng.gauss(0, 0.0045))
        if d in skipped:
            continue
        high = max(previous, rate) * (1 + abs(rng.gauss(0, 0.0015)))
        low = min(previous, rate) * (1 - abs(rng.gauss(0, 0.0015)))
        f.write(f"{d},{previous:.4f},{high:.4f},{low:.4f},{rate:.4f}\n")
