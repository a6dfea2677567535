"""Generates the fund-analytics golden fixtures with pyxirr 0.10.8 (pinned in ../requirements.txt).

Run:  bash Tests/Fixtures/regenerate.sh funds   (makes the pinned venv; interpreter from --python or $PYTHON)

Outputs (all in Tests/Fixtures/funds/):
- xirr_flows.csv      series_id,date,amount: 200 seeded private-equity-like histories (calls, distributions,
                      a final NAV), of mixed lengths; series 0-49 are 24 monthly flows.
- xirr_results.csv    per series: pyxirr.xirr under each day count, pyxirr.xnpv at a few rates.
- year_fractions.csv  pyxirr.year_fraction for random and end-of-month date pairs under each day count.
- pme_flows.csv / pme_results.csv: private-equity flows with an index level per flow, and pyxirr.pe's
  KS-PME, λ of PME+, LN-PME NAV, plus the dated (XIRR) versions of Direct Alpha, LN-PME and PME+ computed
  with pyxirr.xirr on pyxirr.pe's re-scaled flows (pyxirr.pe's own direct_alpha/ln_pme/pme_plus are
  periodic IRRs, i.e. they assume equally spaced flows; Sentio's are dated).
- pyxirr_samples_results.csv: for each of pyxirr's 60 scheduled XIRR test cases (its tests/samples/*.csv at v0.10.8,
  public domain, copied verbatim to pyxirr_samples/), pyxirr.xirr's answer (empty when it returns None) and every
  root of the XNPV (Actual/365F) with 1 + r in [1e-9, 1e4], found independently: a float64 scan of 200,001 points
  in log(1 + r), each point whose float evaluation (scaled by its largest discount factor) cannot tell the sign (|XNPV|
  within 64 x its rounding bound) re-evaluated with mpmath at 60 digits, then every sign change bisected by mpmath to 1e-46. Two
  roots closer than one scan step (1.5e-4 in log(1 + r)) would be missed; none of the cases has a root pair that
  close to pyxirr's answers.
"""
import csv
import math
import os
import random
from datetime import date, timedelta

import pyxirr
from pyxirr import DayCount, pe

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261121)

DAY_COUNTS = {
    "act365f": DayCount.ACT_365F,
    "act360": DayCount.ACT_360,
    "actact": DayCount.ACT_ACT_ISDA,
    "thirty360us": DayCount.THIRTY_U_360,
    "thirty360bond": DayCount.THIRTY_360_ISDA,
}
NPV_RATES = [-0.5, 0.0, 0.1, 0.35]


def money(x):
    return round(x, 2)


def add_months(d, n):
    m = d.month - 1 + n
    y = d.year + m // 12
    m = m % 12 + 1
    import calendar
    return date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def pe_history(monthly):
    """Calls first, then distributions (with a few late calls), then a final NAV."""
    start = date(2000, 1, 1) + timedelta(days=rng.randrange(0, 20 * 365))
    n = 24 if monthly else rng.choice([2, 3, 5, 8, 12, 20, 30, 45, 60])
    if monthly:
        dates = [add_months(start, k) for k in range(n)]
    else:
        dates = sorted({start + timedelta(days=rng.randrange(0, 12 * 365)) for _ in range(n)} | {start})
        n = len(dates)
    call_phase = max(1, int(n * rng.uniform(0.2, 0.6)))
    amounts = []
    for k in range(n):
        if k == 0 or (k < call_phase and rng.random() < 0.85) or rng.random() < 0.08:
            amounts.append(-money(rng.uniform(1e4, 5e6)))
        else:
            amounts.append(money(rng.uniform(0, 4e6) * rng.uniform(0.3, 2.5)))
    if rng.random() < 0.6 and n > 2:
        amounts[-1] = money(abs(amounts[-1]) + rng.uniform(0, 8e6))  # final NAV
    if not any(a > 0 for a in amounts):
        amounts[-1] = money(rng.uniform(1e5, 1e7))
    return dates, amounts


def write_xirr():
    with open(os.path.join(HERE, "xirr_flows.csv"), "w", newline="") as ff, \
            open(os.path.join(HERE, "xirr_results.csv"), "w", newline="") as fr:
        wf = csv.writer(ff, lineterminator="\n")
        wr = csv.writer(fr, lineterminator="\n")
        wf.writerow(["series_id", "date", "amount"])
        wr.writerow(["series_id", "flows"] + [f"xirr_{k}" for k in DAY_COUNTS] + [f"xnpv_{r}" for r in NPV_RATES])
        sid = 0
        while sid < 200:
            dates, amounts = pe_history(monthly=sid < 50)
            rates = {}
            for name, dc in DAY_COUNTS.items():
                rates[name] = pyxirr.xirr(dates, amounts, day_count=dc, silent=True)
            if rates["act365f"] is None:
                continue  # pyxirr found no root: not a useful golden value
            npvs = [pyxirr.xnpv(r, dates, amounts) for r in NPV_RATES]
            for d, a in zip(dates, amounts):
                wf.writerow([sid, d.isoformat(), f"{a:.2f}"])
            wr.writerow([sid, len(dates)] + [repr(rates[k]) if rates[k] is not None else "" for k in DAY_COUNTS]
                        + [repr(v) for v in npvs])
            sid += 1


def write_year_fractions():
    pairs = []
    eom = [date(2019, 2, 28), date(2020, 2, 29), date(2020, 1, 31), date(2020, 3, 31), date(2021, 2, 28),
           date(2019, 12, 31), date(2020, 4, 30), date(2020, 1, 30), date(2024, 2, 29), date(2023, 8, 31)]
    for a in eom:
        for b in eom:
            if a < b:
                pairs.append((a, b))
    for _ in range(200):
        a = date(1995, 1, 1) + timedelta(days=rng.randrange(0, 30 * 365))
        b = a + timedelta(days=rng.randrange(1, 12 * 365))
        pairs.append((a, b))
    with open(os.path.join(HERE, "year_fractions.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["start", "end"] + list(DAY_COUNTS))
        for a, b in pairs:
            w.writerow([a.isoformat(), b.isoformat()] + [repr(pyxirr.year_fraction(a, b, dc)) for dc in DAY_COUNTS.values()])


def write_pme():
    """Dated PE flows with an index level at each date; the last row of a case is the valuation date T
    (amount 0, the NAV is separate), which is how pyxirr.pe expects the final NAV."""
    with open(os.path.join(HERE, "pme_flows.csv"), "w", newline="") as ff, \
            open(os.path.join(HERE, "pme_results.csv"), "w", newline="") as fr:
        wf = csv.writer(ff, lineterminator="\n")
        wr = csv.writer(fr, lineterminator="\n")
        wf.writerow(["case_id", "date", "amount", "index"])
        wr.writerow(["case_id", "nav", "ks_pme", "pme_plus_lambda", "ln_pme_nav", "direct_alpha_dated",
                     "ln_pme_dated", "pme_plus_dated", "direct_alpha_periodic", "ln_pme_periodic", "pme_plus_periodic"])
        for case in range(40):
            start = date(2005, 1, 1) + timedelta(days=rng.randrange(0, 3650))
            n = rng.randrange(4, 25)
            dates = sorted({start + timedelta(days=rng.randrange(1, 10 * 365)) for _ in range(n)} | {start})
            amounts = []
            for k, _ in enumerate(dates):
                if k == 0 or (k < len(dates) * 0.5 and rng.random() < 0.8):
                    amounts.append(-money(rng.uniform(1e5, 3e6)))
                else:
                    amounts.append(money(rng.uniform(0, 3e6)))
            if not any(a > 0 for a in amounts):
                amounts[-1] = money(rng.uniform(1e5, 3e6))
            T = dates[-1] + timedelta(days=rng.randrange(30, 400))
            dates.append(T)
            amounts.append(0.0)
            level, index = 100.0, []
            previous = dates[0]
            for d in dates:
                dt = (d - previous).days / 365.25
                level *= math.exp(0.06 * dt + 0.18 * math.sqrt(dt) * rng.gauss(0, 1))
                index.append(round(level, 4))
                previous = d
            nav = money(rng.uniform(0, 5e6)) if case % 5 else 0.0
            ks = pe.ks_pme(amounts, index, nav)
            lam = pe.pme_plus_lambda(amounts, index, nav)
            ln_nav = pe.ln_pme_nav(amounts, index)
            ks_flows = pe.ks_pme_flows(amounts, index)
            da = pyxirr.xirr(dates, ks_flows[:-1] + [ks_flows[-1] + nav], silent=True)
            ln = pyxirr.xirr(dates, amounts[:-1] + [ln_nav], silent=True)
            pp_flows = pe.pme_plus_flows(amounts, index, nav)
            pp = pyxirr.xirr(dates, pp_flows[:-1] + [pp_flows[-1] + nav], silent=True)
            for d, a, i in zip(dates, amounts, index):
                wf.writerow([case, d.isoformat(), f"{a:.2f}", repr(i)])
            periodic = [pe.direct_alpha(amounts, index, nav), pe.ln_pme(amounts, index), pe.pme_plus(amounts, index, nav)]
            wr.writerow([case, f"{nav:.2f}", repr(ks), repr(lam), repr(ln_nav)]
                        + ["" if v is None else repr(v) for v in [da, ln, pp] + periodic])


def xnpv_roots(dates, amounts):
    """Every root of XNPV(x) = sum a_i exp(-t_i x), x = log(1 + r), with 1 + r in [1e-9, 1e4] (see the docstring)."""
    import mpmath
    import numpy as np

    used = [(d, a) for d, a in zip(dates, amounts) if a != 0]
    d0 = min(d for d, _ in used)
    t = np.array([(d - d0).days / 365 for d, _ in used])
    a = np.array([a for _, a in used])
    xs = np.linspace(math.log(1e-9), math.log(1e4), 200001)
    eps = np.finfo(float).eps
    signs = np.empty(len(xs))
    mpmath.mp.dps = 60
    mt = [mpmath.mpf(d.days) / 365 for d in ((d - d0) for d, _ in used)]
    ma = [mpmath.mpf(float(x)) for x in a]

    def exact(x):
        return mpmath.fsum(ai * mpmath.exp(-ti * x) for ai, ti in zip(ma, mt))

    with np.errstate(over="ignore", invalid="ignore"):
        for lo in range(0, len(xs), 2000):
            x = xs[lo:lo + 2000, None]
            # Scaled by the largest exponent (the sign is unchanged), so no term overflows.
            e = -t * x
            terms = a * np.exp(e - e.max(axis=1, keepdims=True))
            f = terms.sum(axis=1)
            bound = 64 * eps * (np.abs(terms) * (3 + 3 * np.abs(t * x))).sum(axis=1) * len(t)
            sure = np.isfinite(f) & np.isfinite(bound) & (np.abs(f) > bound)
            signs[lo:lo + 2000] = np.where(sure, np.sign(f), np.nan)
    for k in np.nonzero(np.isnan(signs))[0]:
        signs[k] = float(mpmath.sign(exact(mpmath.mpf(float(xs[k])))))
    roots = []
    for k in range(len(xs) - 1):
        if signs[k] == 0:
            roots.append(float(mpmath.expm1(mpmath.mpf(float(xs[k])))))
        elif signs[k] * signs[k + 1] < 0:
            # Bisection at 60 digits: 140 halvings take the cell (1.5e-4 wide) below 1e-46.
            lo, hi = mpmath.mpf(float(xs[k])), mpmath.mpf(float(xs[k + 1]))
            f_lo = mpmath.sign(exact(lo))
            for _ in range(140):
                mid = (lo + hi) / 2
                f_mid = mpmath.sign(exact(mid))
                if f_mid == 0:
                    lo = hi = mid
                    break
                if f_mid == f_lo:
                    lo = mid
                else:
                    hi = mid
            roots.append(float(mpmath.expm1((lo + hi) / 2)))
    return roots


def write_pyxirr_samples():
    folder = os.path.join(HERE, "pyxirr_samples")
    with open(os.path.join(HERE, "pyxirr_samples_results.csv"), "w", newline="") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["case", "pyxirr_xirr", "roots"])
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as f:
                rows = [line.strip().split(",") for line in f if line.strip()]
            dates = [date.fromisoformat(r[0]) for r in rows]
            amounts = [float(r[1]) for r in rows]
            rate = pyxirr.xirr(dates, amounts, silent=True)
            roots = xnpv_roots(dates, amounts) if any(amounts) else []
            w.writerow([name, "" if rate is None else repr(rate), " ".join(repr(r) for r in roots)])


if __name__ == "__main__":
    write_xirr()
    write_year_fractions()
    write_pme()
    write_pyxirr_samples()
