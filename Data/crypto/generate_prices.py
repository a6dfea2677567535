"""Deterministic generator of Sentio's sample crypto prices (no third-party packages; any Python 3.8+).

    python3 Data/crypto/generate_prices.py     # from the repository root; rewrites the files below

- BTCUSD.csv, ETHUSD.csv : daily OHLCV bars (timestamp,open,high,low,close,volume; prices in USD with 2
  decimals, volume in coins) for every calendar day of 2024 (crypto trades every day), a geometric Brownian
  motion from 42,000 (BTC) and 2,300 (ETH) with 60 % and 70 % yearly volatility. Each bar opens at the
  previous close; high and low lie a random fraction beyond the open and close.
The data are synthetic: they value the sample holdings (Data/funds/holdings.csv), they describe no real market.
They live in Data/crypto, not Data/market (the 12-ETF sample universe other commands read by default).
"""
import math
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
START, END = date(2024, 1, 1), date(2024, 12, 31)

COINS = [
    # symbol, first open, yearly drift, yearly volatility, typical daily volume (coins), seed
    ("BTCUSD", 42_000.0, 0.55, 0.60, 25_000, 2024),
    ("ETHUSD", 2_300.0, 0.35, 0.70, 350_000, 2025),
]


def bars(first, drift, vol, volume, seed):
    rng = random.Random(seed)
    dt = 1 / 365
    price = first
    d = START
    while d <= END:
        open_ = price
        close = open_ * math.exp((drift - 0.5 * vol * vol) * dt + vol * math.sqrt(dt) * rng.gauss(0, 1))
        high = max(open_, close) * (1 + abs(rng.gauss(0, 0.01)))
        low = min(open_, close) * (1 - abs(rng.gauss(0, 0.01)))
        yield d, open_, high, low, close, round(volume * math.exp(rng.gauss(0, 0.3)))
        price = float(f"{close:.2f}")
        d += timedelta(days=1)


def main():
    for symbol, first, drift, vol, volume, seed in COINS:
        with open(os.path.join(HERE, f"{symbol}.csv"), "w") as f:
            f.write("timestamp,open,high,low,close,volume\n")
            for d, o, h, l, c, v in bars(first, drift, vol, volume, seed):
                f.write(f"{d.isoformat()},{o:.2f},{h:.2f},{l:.2f},{c:.2f},{v}\n")


if __name__ == "__main__":
    main()
