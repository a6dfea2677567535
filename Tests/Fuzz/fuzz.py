#!/usr/bin/env python3
"""Seeded mutation fuzzer for Sentio's readers, with an independent oracle for every number printed.

    python3 Tests/Fuzz/fuzz.py --sentio .build/debug/sentio --cases 10000 --seed 1
    python3 Tests/Fuzz/fuzz.py --cases 200000 --seed 7 --kinds ohlcv     # longer, by hand

Each case writes a small file derived from a valid one by 1-3 seeded mutations (byte damage, glued quotes,
spikes of 1e6..1e308, swapped or moved lines, exotic number and timestamp forms, NUL and invalid UTF-8, huge
fields, zero-amount and far-dated flows...) and runs the matching `sentio` command on it. Failures:

- crash: an exit code other than 0 (accepted) or 2 (rejected with a reason), or an empty error message;
- hang: no answer within --timeout seconds;
- accepted-invalid: Sentio accepted a file that the oracle's reading of the documented grammar rejects
  (RFC 4180 cells, one number grammar, timestamps in years 0001-9999, OHLC invariants, increasing time);
- wrong-number: a value that differs from the oracle's: OHLCV cells bit for bit; SMA and volume ratio within
  1e-12 of the exact (rational) window value; RSI, ATR and EMA within 1e-9 of a double reimplementation of
  TA-Lib's recurrences (they are not windowed); an empty cell where a value is due (reads as warm-up);
  every XIRR printed (main and other roots) has |XNPV| <= 1e-9 * sum|flows| evaluated in 60-digit decimal, or a
  sign change of the XNPV within 1e-12 of it (the sign-change certificate);
  every fund IRR likewise on the flows the documented rules give;
- wrong-number (talib): `indicators --only` columns SUM (1e-12 of the exact window), MAX, MIN, MIDPRICE, MOM, TRANGE,
  BOP and OBV (exact: each is one correctly rounded operation, or the same sums in the same order);
- metamorphic: an XIRR file with its zero-amount rows removed, or its rows shuffled, gives other rates.

Rejections (exit 2) of files the oracle reads as valid are counted, not failures: refusing is never a wrong
number (e.g. a window sum that overflows is an error by design). Exit status 1 when any failure was seen; the
failing inputs are copied to --findings. Standard library only; no pip install needed.
"""
import argparse
import concurrent.futures
import datetime as dt
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 60

# ---------------------------------------------------------------------------------------------------------------
# Oracle: the documented grammar, written independently of the engine.

NUMBER = re.compile(rb"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
SPACE = b" \t"


class Invalid(Exception):
    pass


def tokenize(line: bytes, stray_quotes_ok=False):
    """RFC 4180 cells of one line (no line breaks inside quotes); spaces around cells trimmed; after a closing
    quote only spaces then a comma or the end of the line. A quote inside an unquoted cell is an error, except
    for OHLCV files (`stray_quotes_ok`), whose reader leaves such cells to the number and timestamp grammars
    (which have no quotes) and never reads the other columns."""
    cells = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in SPACE:
            i += 1
        if i < n and line[i] == 0x22:
            j = i + 1
            out = bytearray()
            while True:
                if j >= n:
                    raise Invalid("unterminated quote")
                if line[j] == 0x22:
                    if j + 1 < n and line[j + 1] == 0x22:
                        out.append(0x22)
                        j += 2
                        continue
                    break
                out.append(line[j])
                j += 1
            k = j + 1
            while k < n and line[k] in SPACE:
                k += 1
            if k < n and line[k] != 0x2C:
                raise Invalid("text after a closing quote")
            cells.append(bytes(out))
            i = k
        else:
            j = line.find(b",", i)
            if j < 0:
                j = n
            cell = line[i:j].rstrip(SPACE)
            if b'"' in cell and not stray_quotes_ok:
                raise Invalid("quote inside an unquoted cell")
            cells.append(cell)
            i = j
        if i >= n:
            return cells
        i += 1  # the comma


def lines_of(data: bytes):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    out = []
    for k, raw in enumerate(data.split(b"\n")):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        out.append((k + 1, raw))
    if out and out[-1][1] == b"" :
        out.pop()
    return [(k, raw) for k, raw in out if raw.strip(SPACE) != b""]


def number(cell: bytes) -> float:
    if not NUMBER.match(cell):
        raise Invalid("not a number: %r" % cell[:40])
    x = float(cell)
    if not math.isfinite(x):
        raise Invalid("not finite")
    return x


def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


EPOCH = dt.datetime(1970, 1, 1)
MIN_T = int((dt.datetime(1, 1, 1) - EPOCH).total_seconds())
MAX_T = int((dt.datetime(9999, 12, 31, 23, 59, 59) - EPOCH).total_seconds())

TS = re.compile(
    rb"^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
    rb"(Z|[+-]\d{2}(?::?\d{2})?)?)?$")


def timestamp(cell: bytes) -> int:
    if re.match(rb"^-?\d+$", cell) and not TS.match(cell):
        t = int(cell)
    else:
        m = TS.match(cell)
        if not m:
            raise Invalid("bad timestamp")
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
        hh = int(m[4]) if m[4] else 0
        mi = int(m[5]) if m[5] else 0
        ss = int(m[6]) if m[6] else 0
        if m[7] and int(m[7]) != 0:
            raise Invalid("fractional seconds")
        if not (1 <= mo <= 12) or d < 1 or d > [31, 29 if is_leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]:
            raise Invalid("bad day")
        if hh > 23 or mi > 59 or ss > 59 or y < 1:
            raise Invalid("bad time")
        offset = 0
        z = m[8]
        if z and z != b"Z":
            sign = -1 if z[:1] == b"-" else 1
            digits = z[1:].replace(b":", b"")
            oh = int(digits[:2])
            om = int(digits[2:4]) if len(digits) > 2 else 0
            if oh > 23 or om > 59:
                raise Invalid("bad offset")
            offset = sign * (oh * 3600 + om * 60)
        days = (dt.date(y, mo, d) - dt.date(1970, 1, 1)).days
        t = days * 86400 + hh * 3600 + mi * 60 + ss - offset
    if t < MIN_T or t > MAX_T:
        raise Invalid("timestamp outside years 0001-9999")
    return t


def read_ohlcv(data: bytes):
    """Rows (timestamp, o, h, l, c, v) as the documented strict reader must produce them, or Invalid."""
    lines = lines_of(data)
    if not lines:
        raise Invalid("empty")
    header = [c.lower() for c in tokenize(lines[0][1], True)]
    names = {"timestamp": 0, "date": 0, "datetime": 0, "time": 0, "open": 1, "high": 2, "low": 3, "close": 4,
             "volume": 5}
    col = [-1] * 6
    for j, name in enumerate(header):
        try:
            key = name.decode()
        except UnicodeDecodeError:
            continue
        if key in names:
            if col[names[key]] >= 0:
                raise Invalid("duplicate column")
            col[names[key]] = j
    if col[0] < 0 and header and header[0] == b"":
        col[0] = 0
    if min(col) < 0:
        raise Invalid("missing column")
    rows = []
    for _, raw in lines[1:]:
        cells = tokenize(raw, True)
        if len(cells) != len(header):
            raise Invalid("column count")
        t = timestamp(cells[col[0]])
        o, h, l, c, v = (number(cells[col[k]]) for k in range(1, 6))
        if min(o, h, l, c) <= 0:
            raise Invalid("price not positive")
        if v < 0:
            raise Invalid("negative volume")
        if h < max(o, c) or l > min(o, c) or h < l:
            raise Invalid("OHLC invariant")
        if rows and t <= rows[-1][0]:
            raise Invalid("timestamp not increasing")
        rows.append((t, o, h, l, c, v))
    if not rows:
        raise Invalid("no rows")
    return rows


def read_flows(data: bytes):
    lines = lines_of(data)
    if not lines:
        raise Invalid("empty")
    header = [c.lower() for c in tokenize(lines[0][1])]
    if sorted(header) != [b"amount", b"date"]:
        raise Invalid("header")
    di, ai = header.index(b"date"), header.index(b"amount")
    flows = []
    for _, raw in lines[1:]:
        cells = tokenize(raw)
        if len(cells) != 2:
            raise Invalid("column count")
        m = re.match(rb"^(\d{4})-(\d{2})-(\d{2})$", cells[di])
        if not m:
            raise Invalid("date")
        try:
            d = dt.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            raise Invalid("date")
        number(cells[ai])  # the grammar, finite
        flows.append((d, Decimal(cells[ai].decode())))
    if not flows:
        raise Invalid("no flows")
    return flows


def xnpv_decimal(flows, rate):
    """XNPV(rate) with Actual/365 Fixed in 60-digit decimal arithmetic (`rate` a Decimal > -1), and sum|a|."""
    d0 = min(d for d, _ in flows)
    log1p = (1 + rate).ln()
    total = Decimal(0)
    scale = Decimal(0)
    for d, a in flows:
        t = Decimal((d - d0).days) / 365
        total += a * (-(t * log1p)).exp()
        scale += abs(a)
    return total, scale


def xnpv_ok(flows, rate: float, what: str):
    """A root: |XNPV(rate)| <= 1e-9 * sum|a|, or (the sign-change certificate) the XNPV has opposite signs at
    rate -/+ 1e-12 * max(1, |rate|), so a root lies within the solver's tolerance of it; Actual/365 Fixed, in
    60-digit decimal arithmetic."""
    if not rate > -1:
        return "%s %r is not > -1" % (what, rate)
    flows = [(d, a) for d, a in flows if a != 0]  # zero flows carry no weight, wherever dated (nor define t0)
    if not flows:
        return "%s %r for flows that are all zero" % (what, rate)
    total, scale = xnpv_decimal(flows, Decimal(rate))
    if abs(total) <= Decimal("1e-9") * scale:
        return None
    width = Decimal("1e-12") * max(Decimal(1), abs(Decimal(rate)))
    if Decimal(rate) - width > -1:
        below, _ = xnpv_decimal(flows, Decimal(rate) - width)
        above, _ = xnpv_decimal(flows, Decimal(rate) + width)
        if below != 0 and above != 0 and (below > 0) != (above > 0):
            return None
    return "%s %r: |XNPV| = %.3e > 1e-9 * %.3e and no sign change within 1e-12 of it" % (what, rate, abs(total), scale)


# ---------------------------------------------------------------------------------------------------------------
# Indicator oracles.

def exact_mean(xs):
    return sum((Fraction(x) for x in xs), Fraction(0)) / len(xs)


def close_rel(value: float, exact: Fraction, tol: float, scale: Fraction = None) -> bool:
    scale = abs(exact) if scale is None else scale
    return abs(Fraction(value) - exact) <= Fraction(tol) * scale


def rsi_series(closes, period):
    out = [None] * len(closes)
    gain = loss = 0.0
    for i in range(1, len(closes)):
        ch = closes[i] - closes[i - 1]
        g = ch if ch > 0 else 0.0
        lo = g - ch
        if i <= period:
            gain += g
            loss += lo
            if i < period:
                continue
            gain /= period
            loss /= period
        else:
            gain = (gain * (period - 1) + g) / period
            loss = (loss * (period - 1) + lo) / period
        s = gain + loss
        out[i] = 50.0 if s == 0 else 100.0 * gain / s
    return out


def atr_series(h, l, c, period):
    out = [None] * len(c)
    acc = 0.0
    for i in range(1, len(c)):
        tr = max(h[i] - l[i], abs(h[i] - c[i - 1]), abs(l[i] - c[i - 1]))
        if i <= period:
            acc += tr
            if i == period:
                acc /= period
                out[i] = acc
        else:
            acc = (acc * (period - 1) + tr) / period
            out[i] = acc
    return out


def ema_series(x, period):
    out = [None] * len(x)
    if len(x) < period:
        return out
    k = 2.0 / (period + 1)
    e = math.fsum(x[:period]) / period
    out[period - 1] = e
    for i in range(period, len(x)):
        e = (x[i] - e) * k + e
        out[i] = e
    return out


def parse_iso(s: str) -> int:
    d = dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
    return int((d - EPOCH).total_seconds())


# ---------------------------------------------------------------------------------------------------------------
# Generators and mutations.

SPIKES = [1e6, 1e12, 1e17, 1e18, 1e20, 1e100, 1e200, 1e300, 1e307, 1.7e308]


def fmt(x, rng):
    r = rng.random()
    if r < 0.6:
        return "%.4f" % x if x < 1e15 else repr(x)
    if r < 0.8:
        return repr(x)
    return "%.2f" % x if x < 1e15 else "%e" % x


def base_ohlcv(rng):
    n = rng.randint(1, 90)
    t = dt.datetime(rng.randint(1990, 2030), 1, 1) + dt.timedelta(days=rng.randint(0, 364))
    intraday = rng.random() < 0.2
    p = rng.uniform(1, 500)
    rows = []
    for _ in range(n):
        o = p
        c = max(0.01, p * math.exp(rng.gauss(0, 0.03)))
        h = max(o, c) * (1 + abs(rng.gauss(0, 0.01)))
        l = min(o, c) * (1 - min(0.5, abs(rng.gauss(0, 0.01))))
        v = float(rng.randint(0, 10_000_000))
        rows.append([t, o, h, l, c, v])
        p = c
        t += dt.timedelta(minutes=rng.choice([1, 5, 60])) if intraday else dt.timedelta(days=1)
    return rows


def spike_rows(rows, rng):
    """Scale one or a few bars by a huge factor (keeping the OHLC invariants), or spike a volume."""
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(rows))
        s = rng.choice(SPIKES)
        if rng.random() < 0.5:
            rows[i][5] = s * rng.uniform(0.5, 1)
        else:
            f = s / max(rows[i][2], 1e-300)
            rows[i][1:5] = [min(x * f, 1.7976931348623157e308) for x in rows[i][1:5]]
            if rng.random() < 0.5:
                rows[i][1:5] = [rows[i][2]] * 4


def render_ohlcv(rows, rng):
    quote = rng.random() < 0.2
    crlf = "\r\n" if rng.random() < 0.2 else "\n"
    cols = ["timestamp", "open", "high", "low", "close", "volume"]
    extra = rng.random() < 0.1
    out = []
    if rng.random() < 0.05:
        out.append("\ufeff")
    out.append(",".join(cols + (["note"] if extra else [])) + crlf)
    for t, o, h, l, c, v in rows:
        ts = t.strftime("%Y-%m-%d") if t.hour == 0 and t.minute == 0 and rng.random() < 0.9 else t.strftime("%Y-%m-%dT%H:%M:%SZ")
        cells = [ts] + [fmt(x, rng) for x in (o, h, l, c)] + [("%d" % v) if v < 1e15 and v == int(v) else repr(v)]
        if quote:
            cells = ['"%s"' % x for x in cells]
        if extra:
            cells.append('"a, b"')
        out.append(",".join(cells) + crlf)
    return "".join(out).encode()


NUMBER_FORMS = [b"0x10", b"1e3", b"+5", b".5", b"5.", b"inf", b"nan", b"1_000", b"1,5", b"-0", b"0", b"1e400",
                b"1e-400", b"00012.50", b"1.0e+2", b"--1", b"1e", b"e5", b" 7 ", b"\xef\xbc\x91"]
TIME_FORMS = [b"0000-12-31", b"10000-01-01", b"-62135596801", b"253402300800", b"9999-12-31T23:59:59Z",
              b"0001-01-01", b"2023-02-29", b"2024-02-29", b"2023-01-02T09:30:00.000", b"2023-01-02T09:30:00.5",
              b"2023-01-02 24:00", b"1672617600", b"2023-01-02T09:30+05:30", b"2023-01-02T23:30-14:00"]


def mutate_lines(data: bytes, rng, kind: str) -> bytes:
    lines = data.split(b"\n")
    body = list(range(1, max(1, len(lines) - 1)))
    op = rng.randrange(16)
    if op == 0 and len(data) > 0:  # flip a byte
        i = rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
    if op == 1:  # insert a byte from a nasty set
        i = rng.randrange(len(data) + 1)
        b = rng.choice([b'"', b",", b"\n", b"\r", b"\x00", b"\xff", b"\xc3", b" ", b"e", b".", b"-", b"9"])
        return data[:i] + b + data[i:]
    if op == 2 and len(data) > 1:  # delete a span
        i = rng.randrange(len(data))
        return data[:i] + data[i + rng.randint(1, 8):]
    if op == 3 and len(body) >= 2:  # swap two lines
        a, b = rng.sample(body, 2)
        lines[a], lines[b] = lines[b], lines[a]
        return b"\n".join(lines)
    if op == 4 and len(body) >= 2:  # move one line far
        a = rng.choice(body)
        line = lines.pop(a)
        lines.insert(rng.choice(body), line)
        return b"\n".join(lines)
    if op == 5 and body:  # duplicate a line
        a = rng.choice(body)
        lines.insert(a, lines[a])
        return b"\n".join(lines)
    if op in (6, 7) and body:  # glue text after a closing quote, or quote a cell and glue
        a = rng.choice(body)
        cells = lines[a].split(b",")
        j = rng.randrange(len(cells))
        c = cells[j].strip(b'"')
        k = rng.randint(0, len(c))
        cells[j] = b'"' + c[:k] + b'"' + (c[k:] or rng.choice([b"0", b"T09:30", b"x", b"5"]))
        lines[a] = b",".join(cells)
        return b"\n".join(lines)
    if op == 8 and body:  # exotic number
        a = rng.choice(body)
        cells = lines[a].split(b",")
        j = rng.randrange(1, len(cells)) if len(cells) > 1 else 0
        cells[j] = rng.choice(NUMBER_FORMS)
        lines[a] = b",".join(cells)
        return b"\n".join(lines)
    if op == 9 and body:  # exotic timestamp / date
        a = rng.choice(body)
        cells = lines[a].split(b",")
        f = rng.choice(TIME_FORMS)
        if kind != "ohlcv":
            f = f[:10] if rng.random() < 0.7 else f
        cells[0] = f
        lines[a] = b",".join(cells)
        return b"\n".join(lines)
    if op == 10:  # truncate
        return data[: rng.randrange(len(data) + 1)]
    if op == 11 and body:  # a huge field or embedded NUL / invalid UTF-8 in a cell
        a = rng.choice(body)
        cells = lines[a].split(b",")
        j = rng.randrange(len(cells))
        cells[j] = rng.choice([b"9" * rng.randint(30, 5000), b"1\x002", b"\xff\xfe", b"\x1b[31mred", b"x" * 70000])
        lines[a] = b",".join(cells)
        return b"\n".join(lines)
    if op == 12 and body:  # empty a cell
        a = rng.choice(body)
        cells = lines[a].split(b",")
        cells[rng.randrange(len(cells))] = b""
        lines[a] = b",".join(cells)
        return b"\n".join(lines)
    if op == 13 and body:  # zero price or amount
        a = rng.choice(body)
        cells = lines[a].split(b",")
        j = rng.randrange(1, len(cells)) if len(cells) > 1 else 0
        cells[j] = b"0"
        lines[a] = b",".join(cells)
        return b"\n".join(lines)
    if op == 14:  # blank lines, spaces, CR
        i = rng.randrange(len(data) + 1)
        return data[:i] + rng.choice([b"\n\n", b"  ", b"\r\n", b"\t"]) + data[i:]
    # header damage
    return data.replace(rng.choice([b"close", b"amount", b"date", b"volume", b"type", b"timestamp"]),
                        rng.choice([b"Close", b"cl0se", b"", b'"close"x', b"close,close"]), 1)


def base_flows(rng):
    n = rng.randint(2, 12)
    d0 = dt.date(rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28))
    flows = []
    d = d0
    for k in range(n):
        a = rng.choice([-1, 1]) * rng.uniform(1, 1e6) * (rng.choice([1, 1, 1, 1e-6, 1e9]))
        if k == 0:
            a = -abs(a)
        flows.append((d, round(a, 2)))
        d += dt.timedelta(days=rng.choice([1, 30, 90, 365, rng.randint(0, 4000)]))
    if rng.random() < 0.3:
        far = dt.date(rng.choice([2080, 2300, 2600, 9999]), rng.randint(1, 12), rng.randint(1, 28))
        flows.append((far, 0.0 if rng.random() < 0.7 else round(rng.uniform(-1e3, 1e3), 2)))
    if rng.random() < 0.3:
        flows.append((rng.choice(flows)[0], 0.0))
    rng.shuffle(flows)
    return flows


def render_flows(flows, rng):
    quote = rng.random() < 0.2
    out = ["date,amount\n"]
    for d, a in flows:
        cells = [d.isoformat(), "%.2f" % a]
        if quote:
            cells = ['"%s"' % c for c in cells]
        out.append(",".join(cells) + "\n")
    return "".join(out).encode()


def base_fund(rng):
    d = dt.date(rng.randint(1995, 2020), rng.randint(1, 12), rng.randint(1, 28))
    fid = rng.choice(["F1", "GRW-II", "BUY VII"])
    commitment = rng.choice([1e6, 1e7, 5e7])
    rows = [(fid, d, "commitment", commitment, "", "")]
    called = 0.0
    for _ in range(rng.randint(1, 25)):
        d += dt.timedelta(days=rng.randint(1, 200))
        r = rng.random()
        if r < 0.4 and called < commitment:
            a = round(min(commitment - called, commitment * rng.uniform(0.02, 0.2)), 2)
            called += a
            due = d + dt.timedelta(days=rng.choice([0, 14, 30]))
            status = rng.choice(["", "", "PAID", "PENDING", "LATE", "OVERDUE"])
            rows.append((fid, d, "call", a, due.isoformat(), status))
        elif r < 0.7 and called > 0:
            rows.append((fid, d, "distribution", round(called * rng.uniform(0.01, 0.5), 2), "", ""))
        elif called > 0:
            rows.append((fid, d, "nav", round(called * rng.uniform(0, 2), 2), "", ""))
    if rng.random() < 0.3:
        far = dt.date(rng.choice([2080, 2300, 9999]), 1, 1)
        rows.append((fid, far, "nav", 0.0 if rng.random() < 0.7 else 1000.0, "", ""))
    return rows


def render_fund(rows, rng):
    out = ["fund_id,date,type,amount,due_date,status\n"]
    for fid, d, ty, a, due, st in rows:
        out.append("%s,%s,%s,%.2f,%s,%s\n" % (fid, d.isoformat(), ty, a, due, st))
    return "".join(out).encode()


def read_fund_flows(data: bytes):
    """Per fund, the IRR flows by the documented rule: paid calls (status PAID or none) negative at their call
    date, distributions positive, the latest NAV (by date; ties: last in the file) positive at its date. Only
    the cells the flows need are checked (the engine's further rules, such as a commitment first, may still
    reject the file: that is a rejection, never a failure)."""
    try:
        return fund_flows(data)
    except (IndexError, KeyError, ValueError, ArithmeticError, UnicodeDecodeError) as e:
        raise Invalid("%s: %s" % (type(e).__name__, e))


def fund_flows(data: bytes):
    lines = lines_of(data)
    header = [c.lower() for c in tokenize(lines[0][1])]
    idx = {h.decode(): k for k, h in enumerate(header)}
    funds = {}
    for _, raw in lines[1:]:
        cells = tokenize(raw)
        if len(cells) != len(header):
            raise Invalid("column count")
        fid = cells[idx["fund_id"]].decode()
        d = dt.date.fromisoformat(cells[idx["date"]].decode())
        ty = cells[idx["type"]].decode().lower()
        number(cells[idx["amount"]])  # the grammar, finite
        a = Decimal(cells[idx["amount"]].decode())
        st = cells[idx["status"]].decode().upper() if "status" in idx else ""
        f = funds.setdefault(fid, {"flows": [], "nav": None})
        if ty == "call" and st in ("", "PAID"):
            f["flows"].append((d, -a))
        elif ty == "distribution":
            f["flows"].append((d, a))
        elif ty == "nav":
            if f["nav"] is None or d >= f["nav"][0]:
                f["nav"] = (d, a)
    out = {}
    for fid, f in funds.items():
        flows = list(f["flows"])
        if f["nav"] is not None:
            flows.append(f["nav"])
        out[fid] = flows
    return out


# ---------------------------------------------------------------------------------------------------------------
# Cases.

class Runner:
    def __init__(self, sentio, timeout, workdir):
        self.sentio, self.timeout, self.workdir = sentio, timeout, workdir

    def run(self, args):
        try:
            p = subprocess.run([self.sentio] + args, capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return None, b"", b""
        return p.returncode, p.stdout, p.stderr


def reason(err: bytes) -> str:
    """The kind of a rejection: its message without the file name, numbers and quoted values."""
    text = err.decode("utf-8", "replace").strip().split("\n")[0]
    text = re.sub(r"^error: \S+?(:\d+)?:? ", "", text)
    text = re.sub(r"'[^']*'|[-+]?\d[\d.e+-]*", "#", text)
    return text[:70]


def check_exit(code, err):
    if code is None:
        return "hang"
    if code not in (0, 2):
        return "crash (exit %d): %s" % (code, err[-300:].decode("utf-8", "replace"))
    if code == 2 and not err.strip():
        return "rejected without a message"
    return None


def write_mutated(data, rng, kind, path, mutation_counts):
    for _ in range(rng.choice(mutation_counts)):
        data = mutate_lines(data, rng, kind)
    with open(path, "wb") as f:
        f.write(data)
    return data


def judge(code, err, data, reader):
    """(problem, outcome, parsed): a failure, or the outcome when no value is left to compare, or the oracle's
    reading of an accepted file."""
    problem = check_exit(code, err)
    if problem:
        return problem, None, None
    try:
        parsed = reader(data)
    except Invalid as e:
        if code == 0:
            return "accepted-invalid (%s)" % e, None, None
        return None, "rejected", None
    if code == 2:
        return None, "rejected-valid:" + reason(err), None
    return None, None, parsed


def case_ohlcv(rng, runner, path):
    rows = base_ohlcv(rng)
    if rng.random() < 0.5:
        spike_rows(rows, rng)
    data = write_mutated(render_ohlcv(rows, rng), rng, "ohlcv", path, [0, 1, 1, 2, 3])
    p_ma, p_vol = rng.choice([1, 2, 3, 5, 20]), rng.choice([1, 2, 3, 20])
    p_rsi, p_atr = rng.choice([1, 2, 14]), rng.choice([1, 2, 14])
    code, out, err = runner.run(["indicators", path, "--format", "csv", "--ma-period", str(p_ma), "--volume-window",
                                 str(p_vol), "--rsi-period", str(p_rsi), "--atr-period", str(p_atr)])
    problem, outcome, expected = judge(code, err, data, read_ohlcv)
    if expected is None:
        return problem, outcome
    got = [line.split(",") for line in out.decode().strip().split("\n")[1:]]
    if len(got) != len(expected):
        return "wrong-number: %d rows printed, %d expected" % (len(got), len(expected)), None
    closes = [r[4] for r in expected]
    vols = [r[5] for r in expected]
    rsi = rsi_series(closes, p_rsi)
    atr = atr_series([r[2] for r in expected], [r[3] for r in expected], closes, p_atr)
    ema = ema_series(closes, p_ma)
    checked = 0
    for i, (row, cells) in enumerate(zip(expected, got)):
        where = "row %d" % (i + 1)
        if parse_iso(cells[0]) != row[0]:
            return "wrong-number: %s timestamp %s, expected epoch %d" % (where, cells[0], row[0]), None
        for k in range(1, 6):
            if float(cells[k]) != row[k]:
                return "wrong-number: %s column %d = %s, expected %r" % (where, k, cells[k], row[k]), None
        # SMA and volume ratio: exact windows.
        sma, vr = cells[9], cells[7]
        if i >= p_ma - 1:
            window = closes[i - p_ma + 1:i + 1]
            exact = exact_mean(window)
            if sma == "" or not close_rel(float(sma), exact, 1e-12):
                return "wrong-number: %s sma %r, exact %.17g" % (where, sma, float(exact)), None
            checked += 1
        elif sma != "":
            return "wrong-number: %s sma %r before its lookback" % (where, sma), None
        if i >= p_vol - 1:
            mean = exact_mean(vols[i - p_vol + 1:i + 1])
            if mean != 0:
                exact = Fraction(vols[i]) / mean
                if vr == "" or not close_rel(float(vr), exact, 1e-12):
                    return "wrong-number: %s volume_ratio %r, exact %.17g" % (where, vr, float(exact)), None
                checked += 1
        elif vr != "":
            return "wrong-number: %s volume_ratio %r before its lookback" % (where, vr), None
        # Recurrences: a double reimplementation, 1e-9 relative (or absolute for RSI in 0...100).
        for name, col, ref, absolute in (("rsi", 6, rsi, True), ("atr", 8, atr, False), ("ema", 10, ema, False)):
            r = ref[i]
            if r is None or not math.isfinite(r):
                if cells[col] != "" and r is None:
                    return "wrong-number: %s %s %r before its lookback" % (where, name, cells[col]), None
                continue
            if cells[col] == "":
                return "wrong-number: %s %s empty, expected %.17g" % (where, name, r), None
            v = float(cells[col])
            tol = 1e-9 * (100 if absolute else max(abs(r), 1e-300))
            if not abs(v - r) <= tol:
                return "wrong-number: %s %s %.17g, expected %.17g" % (where, name, v, r), None
            checked += 1
    return None, "accepted:%d" % checked


def case_xirr(rng, runner, path):
    flows = base_flows(rng)
    data = write_mutated(render_flows(flows, rng), rng, "xirr", path, [0, 0, 1, 1, 2])
    code, out, err = runner.run(["xirr", path, "--format", "json"])
    problem, outcome, parsed = judge(code, err, data, read_flows)
    if parsed is None:
        return problem, outcome
    result = json.loads(out)
    rates = [result["xirr"]] + list(result.get("otherRoots", []))
    for k, r in enumerate(rates):
        bad = xnpv_ok(parsed, r, "root" if k else "xirr")
        if bad:
            return "wrong-number: " + bad, None
    # Metamorphic: zero-amount rows removed, rows shuffled.
    nonzero = [(d, a) for d, a in parsed if a != 0]
    rng.shuffle(nonzero)
    variant = ("date,amount\n" + "".join("%s,%s\n" % (d.isoformat(), a) for d, a in nonzero)).encode()
    vpath = path + ".v.csv"
    with open(vpath, "wb") as f:
        f.write(variant)
    code2, out2, err2 = runner.run(["xirr", vpath, "--format", "json"])
    if code2 != 0:
        return "metamorphic: without zero rows / shuffled the exit is %s: %s" % (code2, err2[-200:]), None
    r2 = json.loads(out2)
    if r2["xirr"] != result["xirr"] or sorted(r2.get("otherRoots", [])) != sorted(result.get("otherRoots", [])):
        return "metamorphic: %r vs %r after dropping zero rows and shuffling" % (rates, [r2["xirr"]] + r2.get("otherRoots", [])), None
    return None, "accepted:%d" % len(rates)


def case_fund(rng, runner, path):
    data = write_mutated(render_fund(base_fund(rng), rng), rng, "fund", path, [0, 0, 1, 1, 2])
    code, out, err = runner.run(["fund", path, "--format", "json"])
    problem, outcome, flows = judge(code, err, data, read_fund_flows)
    if flows is None:
        return problem, outcome
    checked = 0
    for fund in json.loads(out)["funds"]:
        irr = fund.get("irr")
        if irr is None:
            continue
        bad = xnpv_ok(flows[fund["id"]], irr, "fund %s irr" % fund["id"])
        if bad:
            return "wrong-number: " + bad, None
        checked += 1
    return None, "accepted:%d" % checked


def case_talib(rng, runner, path):
    """`indicators --only`: the TA-Lib columns the oracle computes independently — SUM (exact window, 1e-12 of
    Σ|x|), MAX, MIN, MIDPRICE, MOM, TRANGE, BOP (each one correctly rounded operation on inputs: exact), OBV (the
    same sums in the same order: exact)."""
    rows = base_ohlcv(rng)
    if rng.random() < 0.5:
        spike_rows(rows, rng)
    data = write_mutated(render_ohlcv(rows, rng), rng, "ohlcv", path, [0, 0, 1])
    n_sum, n_ext, n_mom = rng.choice([2, 3, 5, 30]), rng.choice([2, 3, 14]), rng.choice([1, 2, 10])
    code, out, err = runner.run(["indicators", path, "--format", "csv", "--only", "sum,max,min,midprice,mom,trange,bop,obv",
                                 "--set", "sum.timeperiod=%d" % n_sum, "--set", "max.timeperiod=%d" % n_ext,
                                 "--set", "min.timeperiod=%d" % n_ext, "--set", "midprice.timeperiod=%d" % n_ext,
                                 "--set", "mom.timeperiod=%d" % n_mom])
    problem, outcome, expected = judge(code, err, data, read_ohlcv)
    if expected is None:
        return problem, outcome
    lines = out.decode().strip().split("\n")
    header = lines[0].split(",")
    want = ["timestamp", "open", "high", "low", "close", "volume", "sum", "max", "min", "midprice", "mom", "trange", "bop", "obv"]
    if header != want:
        return "wrong-header: %s" % lines[0], None
    got = [line.split(",") for line in lines[1:]]
    if len(got) != len(expected):
        return "wrong-number: %d rows printed, %d expected" % (len(got), len(expected)), None
    o, h, l, c, v = ([r[k] for r in expected] for k in range(1, 6))
    checked = 0
    obv = 0.0
    for i, cells in enumerate(got):
        where = "row %d" % (i + 1)
        if i == 0:
            obv = v[0]
        elif c[i] > c[i - 1]:
            obv += v[i]
        elif c[i] < c[i - 1]:
            obv -= v[i]
        refs = {
            "sum": (n_sum - 1, lambda: exact_mean(c[i - n_sum + 1:i + 1]) * n_sum, 1e-12),
            "max": (n_ext - 1, lambda: Fraction(max(c[i - n_ext + 1:i + 1])), 0),
            "min": (n_ext - 1, lambda: Fraction(min(c[i - n_ext + 1:i + 1])), 0),
            "midprice": (n_ext - 1, lambda: Fraction((max(h[i - n_ext + 1:i + 1]) + min(l[i - n_ext + 1:i + 1])) / 2.0), 0),
            "mom": (n_mom, lambda: Fraction(c[i] - c[i - n_mom]), 0),
            "trange": (1, lambda: Fraction(max(h[i] - l[i], abs(h[i] - c[i - 1]), abs(l[i] - c[i - 1]))), 0),
            "bop": (0, lambda: Fraction((c[i] - o[i]) / (h[i] - l[i]) if h[i] - l[i] >= 1e-14 else 0.0), 0),
            "obv": (0, lambda: Fraction(obv), 0),
        }
        for k, name in enumerate(want[6:]):
            cell = cells[6 + k]
            lookback, ref, tol = refs[name]
            if i < lookback:
                if cell != "":
                    return "wrong-number: %s %s %r before its lookback" % (where, name, cell), None
                continue
            exact = ref()
            if cell == "":
                return "wrong-number: %s %s empty, expected %.17g" % (where, name, float(exact)), None
            scale = exact_mean([abs(x) for x in c[i - n_sum + 1:i + 1]]) * n_sum if name == "sum" else abs(exact)
            if not abs(Fraction(float(cell)) - exact) <= Fraction(tol) * scale:
                return "wrong-number: %s %s %s, expected %.17g" % (where, name, cell, float(exact)), None
            checked += 1
    return None, "accepted:%d" % checked


CASES = {"ohlcv": case_ohlcv, "xirr": case_xirr, "fund": case_fund, "talib": case_talib}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentio", default=".build/debug/sentio", help="the sentio binary (default: %(default)s)")
    ap.add_argument("--cases", type=int, default=10000, help="files per run, spread over the kinds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kinds", default="ohlcv,xirr,fund,talib")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before a case counts as a hang")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--findings", default="fuzz-findings", help="folder for failing inputs")
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    work = tempfile.mkdtemp(prefix="sentio-fuzz-")
    runner = Runner(os.path.abspath(args.sentio), args.timeout, work)
    counts = {k: {} for k in kinds}
    failures = []
    reasons = {}
    lock = threading.Lock()

    def one(index):
        kind = kinds[index % len(kinds)]
        rng = random.Random("%d/%d" % (args.seed, index))
        path = os.path.join(work, "case-%d.csv" % index)
        try:
            problem, outcome = CASES[kind](rng, runner, path)
        except Exception as e:  # an oracle bug is a failure too: it must not hide a case
            problem, outcome = "oracle error: %r" % e, None
        with lock:
            if problem:
                os.makedirs(args.findings, exist_ok=True)
                keep = os.path.join(args.findings, "%s-%d.csv" % (kind, index))
                shutil.copyfile(path, keep)
                failures.append((kind, index, problem, keep))
                tag = problem.split(":")[0].split(" (")[0]
            else:
                tag = outcome.split(":")[0]
                if outcome.startswith("rejected-valid:"):
                    why = reasons.setdefault(kind, {})
                    why[outcome[15:]] = why.get(outcome[15:], 0) + 1
                if outcome.startswith("accepted:"):
                    counts[kind]["values checked"] = counts[kind].get("values checked", 0) + int(outcome.split(":")[1])
            counts[kind][tag] = counts[kind].get(tag, 0) + 1
        for p in (path, path + ".v.csv"):
            if os.path.exists(p):
                os.remove(p)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, range(args.cases)))
    shutil.rmtree(work, ignore_errors=True)
    print("sentio fuzz: %d cases, seed %d" % (args.cases, args.seed))
    for kind in kinds:
        print("  %-6s %s" % (kind, ", ".join("%s %d" % kv for kv in sorted(counts[kind].items()))))
    for kind in kinds:
        for why, n in sorted(reasons.get(kind, {}).items(), key=lambda kv: -kv[1])[:5]:
            print("    %-6s rejected-valid %5d  %s" % (kind, n, why))
    for kind, index, problem, keep in failures[:50]:
        print("FAIL %s case %d: %s (%s)" % (kind, index, problem, keep))
    print("failures: %d" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
