"""Deterministic generator of Sentio's sample fund data (no third-party packages; any Python 3.8+).

    python3 Data/funds/generate_sample.py      # from the repository root; rewrites the files below

- events.csv : fund_id,date,type,amount,due_date,status,payment_date,url for four funds, 2014-2024: a
               commitment, capital calls (with due dates 14 days later; the latest few PENDING, LATE or
               OVERDUE), distributions, and quarterly NAVs. Paid calls have a payment date (most on time, about
               one in eight after the due date); calls and year-end NAVs link to a document under
               https://docs.example.com/ (a reserved example domain). Payment dates and links come from a second
               random stream, so the other columns are what they were before these two columns existed.
- funds.json : metadata (id, name, manager, domicile, vintage).
- funds.csv  : the same metadata as CSV.
- index.csv  : a synthetic month-end equity index (date,close) from 2013-12-31, geometric Brownian motion
               with 7 % drift and 15 % volatility.
The data are synthetic: they illustrate the metrics, they describe no real fund.
"""
import calendar
import json
import math
import os
import random
from datetime import date, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(5)
END = date(2024, 12, 31)

FUNDS = [
    # id, name, manager, domicile, vintage, commitment, yearly growth of NAV, volatility
    ("NVP-III", "Northvale Partners III", "Northvale Capital", "Delaware, US", 2014, 10_000_000, 0.13, 0.10),
    ("AEG-VII", "Aegir Buyout VII", "Aegir Equity", "Luxembourg", 2015, 15_000_000, 0.10, 0.08),
    ("KST-II", "Kestrel Growth II", "Kestrel Ventures", "Cayman Islands", 2017, 5_000_000, 0.17, 0.22),
    ("BRM-I", "Bramble Infrastructure I", "Bramble Real Assets", "Ireland", 2019, 8_000_000, 0.07, 0.05),
]


def quarter_ends(start, end):
    y, q = start.year, (start.month - 1) // 3 + 1
    out = []
    while True:
        m = 3 * q
        d = date(y, m, calendar.monthrange(y, m)[1])
        if d > end:
            return out
        if d > start:
            out.append(d)
        q += 1
        if q == 5:
            y, q = y + 1, 1


def month_ends(start, end):
    out, y, m = [], start.year, start.month
    while True:
        d = date(y, m, calendar.monthrange(y, m)[1])
        if d > end:
            return out
        out.append(d)
        m += 1
        if m == 13:
            y, m = y + 1, 1


def cents(x):
    return f"{x:.2f}"


def fund_events(fid, vintage, commitment, growth, vol):
    events = []
    start = date(vintage, 3, 1) + timedelta(days=rng.randrange(0, 60))
    events.append((start, "commitment", cents(commitment), "", ""))
    nav = 0.0
    called = 0.0
    for qe in quarter_ends(start, END):
        age = (qe - start).days / 365.25
        # Calls: front-loaded over the first five years, up to ~92 % of commitment.
        if age < 5.5 and called < 0.92 * commitment and rng.random() < 0.7:
            amount = round(min(commitment * rng.uniform(0.04, 0.12), 0.92 * commitment - called), 2)
            if amount > 0:
                call_date = max(start + timedelta(days=1), qe - timedelta(days=rng.randrange(10, 40)))
                due = call_date + timedelta(days=14)
                status = "PAID" if rng.random() < 0.8 else ""
                events.append((call_date, "call", cents(amount), due.isoformat(), status))
                called += amount
                nav += amount
        # Value change over the quarter, then distributions from year 4 on.
        nav *= math.exp((growth - 0.5 * vol * vol) * 0.25 + vol * 0.5 * rng.gauss(0, 1))
        if age > 4 and nav > 0 and rng.random() < 0.55:
            amount = round(nav * rng.uniform(0.05, 0.2), 2)
            events.append((qe - timedelta(days=rng.randrange(5, 25)), "distribution", cents(amount), "", ""))
            nav -= amount
        if called > 0:
            events.append((qe, "nav", cents(nav), "", ""))
    # The latest calls still await payment: one each PENDING, LATE or OVERDUE across the funds.
    return events


def payment_and_url(fid, d, t, due, status, numbers):
    """The payment date and document link of one event (from `links`, the second random stream)."""
    payment, url = "", ""
    if t == "call":
        numbers["call"] += 1
        url = f"https://docs.example.com/funds/{fid}/capital-call-{numbers['call']:03d}.pdf"
        if status in ("", "PAID"):
            due_date = date.fromisoformat(due)
            if links.random() < 0.125:
                paid = due_date + timedelta(days=links.randrange(1, 30))
            else:
                paid = d + timedelta(days=links.randrange(0, 15))
            payment = paid.isoformat()
    elif t == "nav" and d.month == 12:
        url = f"https://docs.example.com/funds/{fid}/annual-report-{d.year}.pdf"
    return payment, url


links = random.Random(11)


def main():
    rows = []
    statuses = iter(["PENDING", "LATE", "PENDING", "OVERDUE"])
    meta = []
    for fid, name, manager, domicile, vintage, commitment, growth, vol in FUNDS:
        events = fund_events(fid, vintage, commitment, growth, vol)
        # A new call in December 2024, not yet paid (status from the rotation above).
        due = date(2025, 1, 15)
        events.append((date(2024, 12, 16), "call", cents(commitment * 0.02), due.isoformat(), next(statuses)))
        events.sort(key=lambda e: (e[0], ["commitment", "call", "distribution", "nav"].index(e[1])))
        rows += [(fid,) + e for e in events]
        meta.append({"id": fid, "name": name, "manager": manager, "domicile": domicile, "vintage": vintage})
    with open(os.path.join(HERE, "events.csv"), "w") as f:
        f.write("fund_id,date,type,amount,due_date,status,payment_date,url\n")
        numbers = {}
        for fid, d, t, a, due, status in rows:
            numbers.setdefault(fid, {"call": 0})
            payment, url = payment_and_url(fid, d, t, due, status, numbers[fid])
            f.write(f"{fid},{d.isoformat()},{t},{a},{due},{status},{payment},{url}\n")
    with open(os.path.join(HERE, "funds.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    with open(os.path.join(HERE, "funds.csv"), "w") as f:
        f.write("id,name,manager,domicile,vintage\n")
        for m in meta:
            cells = [m["id"], m["name"], m["manager"], m["domicile"], str(m["vintage"])]
            f.write(",".join(f'"{c}"' if "," in c else c for c in cells) + "\n")
    level = 1000.0
    with open(os.path.join(HERE, "index.csv"), "w") as f:
        f.write("date,close\n")
        for k, d in enumerate(month_ends(date(2013, 12, 1), END)):
            if k > 0:
                level *= math.exp((0.07 - 0.5 * 0.15 ** 2) / 12 + 0.15 * math.sqrt(1 / 12) * rng.gauss(0, 1))
            f.write(f"{d.isoformat()},{level:.2f}\n")


if __name__ == "__main__":
    main()
