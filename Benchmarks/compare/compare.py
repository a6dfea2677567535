#!/usr/bin/env python3
"""Head-to-head benchmarks: Sentio against its Python peers, on the same input files, in one run.

Run through `Benchmarks/compare/run.sh` (it creates the pinned virtual environment and builds `sentio` in
release first). Each workload runs on both sides in this process's run:

- the Sentio side through `sentio bench WORKLOAD --format json --input FILES...` (timed in-process by sentio:
  one untimed warm-up run, then --repeat timed runs; inputs read before timing), and
- the peer here, with the same protocol: inputs loaded untimed, one untimed warm-up call, then the median of
  repeated timed calls (time.perf_counter), in the peer's fastest reasonable configuration.

Agreement is checked on the outputs: Sentio writes its per-element outputs with `--dump` (raw float64), compared
element-wise here (max absolute difference); whole-run results (final equity) are compared directly.

Prints a table and writes the same as JSON (default Benchmarks/compare/results.json).
"""
import argparse
import datetime as dt
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
import warnings

os.environ.setdefault("TQDM_DISABLE", "1")  # backtesting.py's progress bars

os.environ.setdefault("POLARS_MAX_THREADS", "2")  # the peers' thread count (PEER_THREADS), set before import

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UNIVERSE = ["TQQQ", "SQQQ", "SOXL", "SOXS", "SPXL", "SPXS", "TNA", "TZA", "FAS", "FAZ", "LABU", "LABD"]

# Sizes: full (the workloads) and --quick (smaller; ratios are per unit of work, so they stay comparable
# as long as both sides run the same size, which they always do).
SIZES = {
    "full": dict(minute_bars=1_000_000, csv_rows=1_000_000, rsi=10_000_000, volume_ratio=10_000_000,
                 ols=1_000_000, xirr=100_000, backtest_bars=1_000_000, daily_bars=100_000),
    "quick": dict(minute_bars=200_000, csv_rows=200_000, rsi=2_000_000, volume_ratio=2_000_000,
                  ols=100_000, xirr=20_000, backtest_bars=200_000, daily_bars=20_000),
}


# ----------------------------------------------------------------------------------------------- utilities

def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def time_peer(fn, repeats, warmup=True):
    """Median, min, max seconds of `repeats` timed calls of fn() after one untimed warm-up call; last output."""
    out = fn() if warmup else None
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    times.sort()
    n = len(times)
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    return dict(median=median, min=times[0], max=times[-1], repeats=repeats), out


def fsum_finite(values):
    """The checksum reduction: exact (fsum) sum of the finite values; Sentio uses a Neumaier-compensated sum."""
    a = np.asarray(values, dtype=float).ravel()
    return math.fsum(a[np.isfinite(a)].tolist())


def max_abs_diff(a, b):
    """Max |a-b| over positions where both are finite, and the number of positions where exactly one is NaN."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        return math.inf, -1
    fa, fb = np.isfinite(a), np.isfinite(b)
    both = fa & fb
    diff = float(np.max(np.abs(a[both] - b[both]))) if both.any() else 0.0
    return diff, int(np.count_nonzero(fa != fb))


class Skipped(Exception):
    pass


class Sentio:
    def __init__(self, binary, work, dev_binary=None):
        self.binary = binary
        self.work = work
        # sentio-dev: the benchmark and test helpers that are not part of the user's sentio (allocation counting).
        self.dev_binary = dev_binary or os.path.join(os.path.dirname(binary), "sentio-dev")

    def bench(self, workload, *args, dump=False):
        """Runs `sentio bench WORKLOAD --format json ARGS`; returns (report dict, dumped float64 array or None)."""
        command = [self.binary, "bench", workload, "--format", "json", *map(str, args)]
        dump_path = os.path.join(self.work, f"dump-{workload}.f64")
        if dump:
            command += ["--dump", dump_path]
        log("sentio: " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command))
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            if "not yet available" in run.stderr or "unknown workload" in run.stderr:
                raise Skipped(f"sentio bench {workload} not available in this build")
            raise RuntimeError(f"sentio bench {workload} failed ({run.returncode}): {run.stderr.strip()}")
        report = json.loads(run.stdout)
        values = None
        if dump:
            values = np.fromfile(dump_path, dtype="<f8")
            os.remove(dump_path)
        return report, values

    def run(self, *args):
        log("sentio: " + " ".join(map(str, args)))
        return subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True, check=True).stdout

    def run_dev(self, *args):
        log("sentio-dev: " + " ".join(map(str, args)))
        return subprocess.run([self.dev_binary, *map(str, args)], capture_output=True, text=True, check=True).stdout


# --------------------------------------------------------------------------------------------------- inputs

def generate_inputs(sentio, work, sizes):
    """Shared inputs, made once by `sentio generate` (deterministic; reused while the parameters are unchanged)."""
    minute = os.path.join(work, f"minute-12x{sizes['minute_bars']}")
    daily = os.path.join(work, f"daily-1x{sizes['daily_bars']}")
    if not os.path.exists(os.path.join(minute, "LABD.csv")):
        sentio.run("generate", "--symbols", "12", "--bars", sizes["minute_bars"], "--freq", "minute",
                   "--seed", "42", "--out", minute)
    if not os.path.exists(os.path.join(daily, "TQQQ.csv")):
        # 100,000 business days are ~383 years: start in 1800 so pandas' datetime64[ns] range holds them.
        sentio.run("generate", "--symbols", "TQQQ", "--bars", sizes["daily_bars"], "--freq", "daily",
                   "--seed", "42", "--start", "1800-01-01", "--out", daily)
    xirr_path = os.path.join(work, f"xirr-{sizes['xirr']}x24.csv")
    if not os.path.exists(xirr_path):
        write_xirr_input(xirr_path, sizes["xirr"])
    return dict(minute_files=[os.path.join(minute, f"{s}.csv") for s in UNIVERSE],
                daily_file=os.path.join(daily, "TQQQ.csv"), xirr_file=xirr_path)


def write_xirr_input(path, count, flows=24, seed=7):
    """`count` private-equity-like series of `flows` monthly flows: 2-6 capital calls (negative, 1,000-10,000),
    then distributions (non-negative, one in five months zero) scaled to a multiple of 0.6-2.5x the calls, the
    last flow a NAV-like final value. Starts on the first of a random month in 2000-2019. Columns
    series,date,amount; rows grouped by series. Written atomically."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(count):
        start_month = int(rng.integers(0, 240))
        year, month = 2000 + start_month // 12, start_month % 12 + 1
        calls = int(rng.integers(2, 7))
        amounts = np.empty(flows)
        amounts[:calls] = -np.round(rng.uniform(1_000, 10_000, calls), 2)
        raw = rng.uniform(0, 1, flows - calls) * (rng.uniform(0, 1, flows - calls) > 0.2)
        raw[-1] = max(raw[-1], 0.5)
        multiple = rng.uniform(0.6, 2.5)
        amounts[calls:] = np.round(raw / raw.sum() * (-amounts[:calls].sum()) * multiple, 2)
        for m in range(flows):
            y, mo = year + (month - 1 + m) // 12, (month - 1 + m) % 12 + 1
            rows.append(f"{k},{y:04d}-{mo:02d}-01,{amounts[m]:.2f}")
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        f.write("series,date,amount\n")
        f.write("\n".join(rows))
        f.write("\n")
    os.replace(temporary, path)


def read_columns(files, columns):
    frames = [pd.read_csv(f, usecols=columns) for f in files]
    return {c: np.concatenate([fr[c].to_numpy(dtype=float) for fr in frames]) for c in columns}


# ------------------------------------------------------------------------------------------------ workloads

def workload_csv(sentio, inputs, sizes, repeats):
    path = inputs["minute_files"][0]
    rows = sizes["csv_rows"]
    report, closes = sentio.bench("csv", "--input", path, "--repeat", repeats["fast"], dump=True)
    results = []
    # pandas' default C engine; parse_dates so that both sides turn the timestamps into times (same work).
    peer, frame = time_peer(lambda: pd.read_csv(path, parse_dates=["timestamp"]), repeats["fast"])
    diff, nan_mismatch = max_abs_diff(closes, frame["close"].to_numpy())
    agreement = f"close max|diff| {diff:.3g}" + (f", {nan_mismatch} NaN mismatches" if nan_mismatch else "")
    results.append(row("csv read", rows, "rows", "pandas.read_csv(parse_dates)", peer, report, agreement,
                       target=("Sentio >= 3x pandas (ratio <= 0.333)", 1 / 3)))
    peer_plain, _ = time_peer(lambda: pd.read_csv(path), repeats["fast"])
    results.append(row("csv read", rows, "rows", "pandas.read_csv (timestamps left as text)", peer_plain, report,
                       agreement, target=("Sentio >= 3x pandas (ratio <= 0.333)", 1 / 3)))
    # Multi-threaded peers, 2 threads each (the machine's cores); both parse the ISO timestamps into times.
    import pyarrow
    import pyarrow.csv as arrow_csv
    pyarrow.set_cpu_count(PEER_THREADS)
    pyarrow.set_io_thread_count(PEER_THREADS)
    peer_arrow, table = time_peer(lambda: arrow_csv.read_csv(path), repeats["fast"])
    diff, nan_mismatch = max_abs_diff(closes, table.column("close").to_numpy())
    size_mb = os.path.getsize(path) / 1e6
    bandwidth = memory_bandwidth()
    throughput = (f"; Sentio {size_mb / report['medianSeconds']:.0f} MB/s of CSV, memory bandwidth "
                  f"{bandwidth['copyMBps']:.0f} MB/s (copy, read + write counted)")
    results.append(row("csv read", rows, "rows", f"pyarrow {pyarrow.__version__} csv.read_csv ({PEER_THREADS} threads)",
                       peer_arrow, report, f"close max|diff| {diff:.3g}" + throughput,
                       target=("Sentio >= 2x pyarrow (ratio <= 0.5)", 0.5)))
    import polars
    peer_polars, frame_polars = time_peer(lambda: polars.read_csv(path, try_parse_dates=True), repeats["fast"])
    diff, nan_mismatch = max_abs_diff(closes, frame_polars["close"].to_numpy())
    results.append(row("csv read", rows, "rows",
                       f"polars {polars.__version__} read_csv(try_parse_dates) ({polars.thread_pool_size()} threads)",
                       peer_polars, report, f"close max|diff| {diff:.3g}", target=None))
    results.append(floor_row("csv read", rows, "rows", report, memcpy_floor(os.path.getsize(path), repeats["fast"]),
                             f"memcpy of the file's {size_mb:.1f} MB (page cache to memory)"))
    return results


def workload_rsi(sentio, inputs, sizes, repeats):
    import talib
    n = sizes["rsi"]
    closes = read_columns(inputs["minute_files"], ["close"])["close"][:n]
    report, values = sentio.bench("rsi", "--size", n, *input_args(inputs["minute_files"]),
                                  "--repeat", repeats["fast"], dump=True)
    peer, out = time_peer(lambda: talib.RSI(closes, timeperiod=14), repeats["fast"])
    return [row("RSI(14)", n, "values", f"TA-Lib {talib.__version__} RSI", peer, report,
                agreement_text(values, out, report["checksum"]), target=("no slower than TA-Lib (ratio <= 1)", 1.0))]


def workload_volume_ratio(sentio, inputs, sizes, repeats):
    n = sizes["volume_ratio"]
    volumes = pd.Series(read_columns(inputs["minute_files"], ["volume"])["volume"][:n])
    report, values = sentio.bench("volume-ratio", "--size", n, *input_args(inputs["minute_files"]),
                                  "--repeat", repeats["fast"], dump=True)
    peer, out = time_peer(lambda: volumes / volumes.rolling(20).mean(), repeats["fast"])
    return [row("volume ratio(20)", n, "values", "pandas v / v.rolling(20).mean()", peer, report,
                agreement_text(values, out.to_numpy(), report["checksum"]), target=WINDOWED_TARGET),
            *windowed_floor_rows("volume ratio(20)", n, report, repeats["fast"])]


def workload_sma(sentio, inputs, sizes, repeats):
    import talib
    n = sizes["volume_ratio"]
    closes = read_columns(inputs["minute_files"], ["close"])["close"][:n]
    report, values = sentio.bench("sma", "--size", n, *input_args(inputs["minute_files"]),
                                  "--repeat", repeats["fast"], dump=True)
    series = pd.Series(closes)
    pandas_peer, pandas_out = time_peer(lambda: series.rolling(20).mean(), repeats["fast"])
    talib_peer, talib_out = time_peer(lambda: talib.SMA(closes, timeperiod=20), repeats["fast"])
    return [row("SMA(20)", n, "values", "pandas rolling(20).mean()", pandas_peer, report,
                agreement_text(values, pandas_out.to_numpy(), report["checksum"]), target=WINDOWED_TARGET),
            row("SMA(20)", n, "values", f"TA-Lib {talib.__version__} SMA", talib_peer, report,
                agreement_text(values, talib_out, report["checksum"]), target=None),
            *windowed_floor_rows("SMA(20)", n, report, repeats["fast"])]


def workload_rolling_std(sentio, inputs, sizes, repeats):
    n = sizes["volume_ratio"]
    closes = pd.Series(read_columns(inputs["minute_files"], ["close"])["close"][:n])
    report, values = sentio.bench("rolling-std", "--size", n, *input_args(inputs["minute_files"]),
                                  "--repeat", repeats["fast"], dump=True)
    peer, out = time_peer(lambda: closes.rolling(20).std(), repeats["fast"])
    return [row("rolling std(20)", n, "values", "pandas rolling(20).std()", peer, report,
                agreement_text(values, out.to_numpy(), report["checksum"]), target=WINDOWED_TARGET),
            *windowed_floor_rows("rolling std(20)", n, report, repeats["fast"])]


# The TA-Lib functions of issue 34 over the 12 series (Sentio: TAFunction.compute per series; TA-Lib: its
# function per series), defaults; every output compared.
TA_MANY = {
    "macd": ("MACD(12,26,9)", lambda talib, c: talib.MACD(c["close"])),
    "bbands": ("BBANDS(20,2,2)", lambda talib, c: talib.BBANDS(c["close"])),
    "stoch": ("STOCH(5,3,3)", lambda talib, c: talib.STOCH(c["high"], c["low"], c["close"])),
    "adx": ("ADX(14)", lambda talib, c: (talib.ADX(c["high"], c["low"], c["close"]),)),
}


def workload_many(kind):
    def run(sentio, inputs, sizes, repeats):
        import talib
        n = sizes["minute_bars"]
        files = inputs["minute_files"]
        frames = [pd.read_csv(f, usecols=["high", "low", "close"], nrows=n) for f in files]
        report, values = sentio.bench(f"{kind}-many", "--size", n, "--count", len(files), *input_args(files),
                                      "--repeat", repeats["fast"], dump=True)
        columns = [{c: fr[c].to_numpy(dtype=float) for c in ("high", "low", "close")} for fr in frames]
        if kind == "rsi":
            name, call = "RSI(14)", lambda: [talib.RSI(c["close"], timeperiod=14) for c in columns]
        elif kind == "ema":
            name, call = "EMA(20)", lambda: [talib.EMA(c["close"], timeperiod=20) for c in columns]
        elif kind in TA_MANY:
            name, fn = TA_MANY[kind]
            call = lambda: [out for c in columns for out in fn(talib, c)]
        else:
            name, call = "ATR(14)", lambda: [talib.ATR(c["high"], c["low"], c["close"], timeperiod=14) for c in columns]
        peer, out = time_peer(call, repeats["fast"])
        total = n * len(files)
        return [row(f"{name}, {len(files)} series at once", total, "values",
                    f"TA-Lib {talib.__version__} {name.split('(')[0]} looping over the {len(files)} series", peer, report,
                    agreement_text(values, np.concatenate(out), report["checksum"]),
                    target=(("<= 1x TA-Lib looping (ratio <= 1)", 1.0) if kind in TA_MANY
                            else ("<= 0.5x TA-Lib looping (ratio <= 0.5)", 0.5))),
                floor_row(f"{name}, {len(files)} series at once", total, "values", report,
                          memcpy_floor(8 * total * (3 if kind in ("atr", "stoch", "adx") else 1), repeats["fast"]),
                          f"memcpy of the {total:,} input values{' x 3 columns' if kind in ('atr', 'stoch', 'adx') else ''}",
                          limit=None)]
    return run


def workload_talib_all(sentio, inputs, sizes, repeats):
    """Every TA-Lib function of Sentio's set (defaults) in issue 34's two shapes: one series of sizes["rsi"] values
    (the 12 files' columns concatenated, cut) and the 12 series of sizes["minute_bars"] bars one after another.
    Sentio: `sentio-dev ta-bench --serve` (TAFunction.compute; the protocol of `sentio bench`); TA-Lib: the function
    with its defaults, per series. One sentio-dev process reads the inputs once and times one function in one shape
    per request, timed right before TA-Lib's timing of the same function and shape, so that both sides of a row run
    under the same machine load (TALIB_ALL_ONLY=MACD,ADX in the environment restricts the functions). Agreement: per output, the wrapping sum of the values' IEEE-754 bit patterns (NaN
    included) must be equal on both sides (bit identity up to a hash), and the checksums of the valid values."""
    import talib
    n_one, n_many, files = sizes["rsi"], sizes["minute_bars"], inputs["minute_files"]
    fields = ["open", "high", "low", "close", "volume"]
    frames = [pd.read_csv(f, usecols=fields) for f in files]
    one = {c: np.ascontiguousarray(np.concatenate([fr[c].to_numpy(dtype=float) for fr in frames])[:n_one]) for c in fields}
    many = [{c: np.ascontiguousarray(fr[c].to_numpy(dtype=float)[:n_many]) for c in fields} for fr in frames]
    del frames
    command = [sentio.dev_binary, "ta-bench", "--serve", "--one-size", str(n_one), "--size", str(n_many),
               "--count", str(len(files)), "--repeat", str(repeats["fast"])] + [a for f in files for a in ("--input", f)]
    log("sentio-dev: ta-bench --serve (every function, both shapes)")
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = server.stdout.readline().split()
    if not ready or ready[0] != "ready":
        error = server.stderr.read()
        if "Unknown subcommand" in error or "Unknown option" in error or "Unexpected argument" in error:
            raise Skipped("sentio-dev ta-bench --serve not available in this build")
        raise RuntimeError(f"sentio-dev ta-bench failed: {error.strip()}")
    only = [n for n in os.environ.get("TALIB_ALL_ONLY", "").split(",") if n]
    names = [n for n in ready[1:] if not only or n in only]
    results = []
    for shape in ("one", "many"):
        for name in names:
            series = [one] if shape == "one" else many
            fn = getattr(talib, name)
            # Sentio's timing (its reply names the function's inputs), then TA-Lib's.
            server.stdin.write(f"{name} {shape}\n")
            server.stdin.flush()
            reply = server.stdout.readline()
            if not reply:
                raise RuntimeError(f"sentio-dev ta-bench failed: {server.stderr.read().strip()}")
            report = json.loads(reply)
            arguments = [[s[c] for c in report["inputs"]] for s in series]

            def call():
                out = []
                for a in arguments:
                    r = fn(*a)
                    out.append(r if isinstance(r, tuple) else (r,))
                return out

            peer, out = time_peer(call, repeats["fast"])
            bit_sums = [sum(int(o[j].view(np.uint64).sum(dtype=np.uint64)) for o in out) % (1 << 64)
                        for j in range(len(report["outputs"]))]
            identical = bit_sums == [int(b) for b in report["bitSums"]]
            values = np.concatenate([o[j] for o in out for j in range(len(o))])
            agreement = (("bits identical (bit sums equal)" if identical else "bit sums DIFFER")
                         + f"; checksum {checksum_match(report['checksum'], fsum_finite(values))}")
            label = f"{name}, " + (f"1 series of {n_one:,}" if shape == "one" else f"{len(files)} series of {n_many:,}")
            r = row(label, report["bars"], "values", f"TA-Lib {talib.__version__} {name}", peer, report, agreement,
                    target=("no slower than TA-Lib (ratio <= 1)", 1.0))
            r["function"], r["shape"], r["bitIdentical"] = name, shape, identical
            log(f"  {label}: TA-Lib {fmt_seconds(peer['median'])}, Sentio {fmt_seconds(report['medianSeconds'])}, "
                f"ratio {r['ratio']:.3f}; {agreement}")
            results.append(r)
            del out
    server.stdin.close()
    server.wait()
    return results


# ------------------------------------------------------------------------------------------ physical floors

PEER_THREADS = 2
WINDOWED_TARGET = ("<= 0.2x pandas (ratio <= 0.2)", 0.2)
_BANDWIDTH = {}


def memcpy_floor(nbytes, repeats, fresh=False):
    """Timing of one plain memory pass over `nbytes`: numpy copy (memcpy) of a source array to a preallocated
    destination of the same size (both touched first), the same protocol as the peers. With `fresh`, each call
    copies into a newly allocated array instead (`source.copy()`: allocation, page faults and first touch of the
    output included, as for the kernels, which return a new array; numpy advises large arrays as huge pages, as
    Sentio's `makeDoubleArray` does)."""
    source = np.ones(max(1, nbytes // 8))
    if fresh:
        timing, _ = time_peer(lambda: source.copy(), repeats)
        return timing
    target = np.empty_like(source)
    np.copyto(target, source)
    timing, _ = time_peer(lambda: np.copyto(target, source), repeats)
    return timing


def windowed_floor_rows(workload, n, report, repeats):
    """The two floors of a windowed kernel over n doubles (in → new out array): the strict one (copy into a
    preallocated, already touched array; the issue's target: Sentio within 2x of it) and the one with the same
    output allocation as Sentio's functions (copy into a new array)."""
    return [floor_row(workload, n, "values", report, memcpy_floor(8 * n, repeats),
                      f"memcpy of the {n:,} input doubles to a preallocated, touched output array", limit=2.0),
            floor_row(workload, n, "values", report, memcpy_floor(8 * n, repeats, fresh=True),
                      f"copy of the {n:,} input doubles into a new array (allocation and page faults included, "
                      "as for the kernels)")]


def memory_bandwidth():
    """The machine's copy bandwidth, measured once per run: 256 MB copied, (read + write bytes) / time."""
    if not _BANDWIDTH:
        nbytes = 256 << 20
        timing = memcpy_floor(nbytes, 5)
        _BANDWIDTH.update(copyMBps=2 * nbytes / 1e6 / timing["median"], bytes=nbytes, seconds=timing["median"])
    return _BANDWIDTH


def floor_row(workload, size, unit, report, floor, description, limit=None):
    """A peer-shaped row whose "peer" is the physical floor: ratio = Sentio / floor (1 would be memory speed)."""
    result = row(workload, size, unit, f"floor: {description}", floor, report, "-",
                 target=(f"within {limit:g}x of the floor (ratio <= {limit:g})", limit) if limit else None)
    result["floor"] = True
    return result


def regression_design(closes, n):
    c = closes[: n + 4]
    r = np.log(c[1:] / c[:-1])
    y = r[3 : 3 + n]
    x = np.column_stack([r[2 : 2 + n], r[1 : 1 + n], r[0:n]])
    return y, x


def workload_rolling_ols(sentio, inputs, sizes, repeats):
    from statsmodels.regression.rolling import RollingOLS
    import statsmodels
    n = sizes["ols"]
    closes = read_columns(inputs["minute_files"][:2], ["close"])["close"]
    y, x = regression_design(closes, n)
    design = np.column_stack([np.ones(n), x])
    report, values = sentio.bench("rolling-ols", "--size", n, *input_args(inputs["minute_files"][:2]),
                                  "--repeat", repeats["fast"], dump=True)
    # Warm-up on a small slice (imports, caches); the full fit is slow, so it is timed `repeats["slow"]` times.
    RollingOLS(y[:1000], design[:1000], window=60).fit()
    peer, fit = time_peer(lambda: RollingOLS(y, design, window=60).fit(), repeats["slow"], warmup=False)
    params = np.asarray(fit.params)
    diff, nan_mismatch = max_abs_diff(values, params)
    scale = float(np.nanmax(np.abs(params)))
    agreement = (f"params max|diff| {diff:.3g} (max|param| {scale:.3g}); checksum "
                 f"{checksum_match(report['checksum'], fsum_finite(params))}")
    if nan_mismatch:
        agreement += f"; {nan_mismatch} NaN mismatches"
    return [row("rolling OLS W=60 k=3", n, "rows", f"statsmodels {statsmodels.__version__} RollingOLS.fit()",
                peer, report, agreement, target=("<= 1/100 of statsmodels (ratio <= 0.01)", 0.01))]


def workload_xirr(sentio, inputs, sizes, repeats):
    import pyxirr
    n = sizes["xirr"]
    frame = pd.read_csv(inputs["xirr_file"])
    dates = [dt.date.fromisoformat(d) for d in frame["date"]]
    amounts = frame["amount"].tolist()
    ids = frame["series"].to_numpy()
    bounds = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1], True])
    series = [(dates[a:b], amounts[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    assert len(series) == n

    def loop():
        out = []
        xirr = pyxirr.xirr
        for d, a in series:
            try:
                rate = xirr(d, a)
            except Exception:
                rate = None
            out.append(math.nan if rate is None else rate)
        return out

    sentio_runs = [(threads, *sentio.bench("xirr", "--input", inputs["xirr_file"], "--threads", threads,
                                           "--repeat", repeats["medium"], dump=True)) for threads in (1, 2)]
    peer, rates = time_peer(loop, repeats["medium"])
    results = []
    for threads, report, values in sentio_runs:
        diff, only_one = max_abs_diff(values, rates)
        agreement = f"rate max|diff| {diff:.3g}" + (f"; {only_one} series with a root on one side only" if only_one else "")
        results.append(row(f"XIRR 24 flows, Sentio {threads} thread{'s' if threads > 1 else ''}", n, "series",
                           f"pyxirr {pyxirr.__version__} xirr in a loop (1 core)", peer, report, agreement,
                           target=("2x pyxirr throughput on 1 core (ratio <= 0.5)", 0.5) if threads == 1 else
                           ("more with 2 threads (at least 10 % faster than 1 thread)", None)))
    results[1]["targetMet"] = results[1]["sentioMedianSeconds"] < 0.9 * results[0]["sentioMedianSeconds"]
    return results


def workload_backtest_vectorbt(sentio, inputs, sizes, repeats):
    import talib
    n = sizes["backtest_bars"]
    files = inputs["minute_files"]
    report, _ = sentio.bench("backtest-rsi", "--size", n, *input_args(files), "--repeat", repeats["medium"])
    import vectorbt as vbt
    frames = {s: pd.read_csv(f, usecols=["open", "close"], nrows=n) for s, f in zip(UNIVERSE, files)}
    close = pd.DataFrame({s: fr["close"].to_numpy() for s, fr in frames.items()})
    open_ = pd.DataFrame({s: fr["open"].to_numpy() for s, fr in frames.items()})
    rsi = close.apply(lambda c: pd.Series(talib.RSI(c.to_numpy(), timeperiod=14)))
    # As `sentio backtest --strategy rsi --sizing all-in` on 12 symbols: decisions on bar t's close fill at bar
    # t+1's open (shift the signals by one bar and trade at the open); one portfolio over the 12 symbols with
    # shared cash; each entry buys as many whole shares as the cash allows after the 0.1 % fee (size=inf,
    # granularity 1); call_seq="auto" executes sells before buys within a bar, as Sentio does. (vectorbt's
    # from_signals cannot size an entry at equity / N, Sentio's equal-weight rule, hence all-in on both sides.)
    entries = (rsi < 30).shift(1, fill_value=False)
    exits = (rsi > 70).shift(1, fill_value=False)

    def simulate(c, o, en, ex):
        return vbt.Portfolio.from_signals(
            c, en, ex, price=o, fees=0.001, init_cash=100_000, size=np.inf, size_granularity=1,
            group_by=True, cash_sharing=True, call_seq="auto", freq="1min")

    log("vectorbt: JIT warm-up")
    simulate(close.iloc[:1000], open_.iloc[:1000], entries.iloc[:1000], exits.iloc[:1000])
    peer, pf = time_peer(lambda: simulate(close, open_, entries, exits), repeats["medium"])
    final = float(np.asarray(pf.value())[-1])
    trades = int(pf.trades.count())
    agreement = (f"final equity Sentio {report['checksum']:.2f} vs vectorbt {final:.2f} "
                 f"(rel. diff {abs(report['checksum'] - final) / final:.2g}); vectorbt trades {trades}")
    return [row("RSI strategy backtest (end to end vs simulation only)", n * len(files), "bar-cells",
                f"vectorbt {vbt.__version__} Portfolio.from_signals (simulation only)", peer, report, agreement,
                target=("<= 1/2 of vectorbt's simulation (ratio <= 0.5)", 0.5))]


def workload_backtest_backtesting(sentio, inputs, sizes, repeats):
    import talib
    import backtesting
    from backtesting import Backtest, Strategy
    n = sizes["daily_bars"]
    path = inputs["daily_file"]
    report, _ = sentio.bench("backtest-rsi", "--size", n, "--count", 1, "--input", path, "--repeat", repeats["medium"])
    frame = pd.read_csv(path, parse_dates=["timestamp"], index_col="timestamp")
    frame.columns = ["Open", "High", "Low", "Close", "Volume"]

    def rsi(close, period):
        return talib.RSI(np.asarray(close, dtype=float), timeperiod=period)

    class RsiMeanReversion(Strategy):
        def init(self):
            self.rsi = self.I(rsi, self.data.Close, 14)

        def next(self):
            value = self.rsi[-1]
            if not self.position and value < 30:
                self.buy()
            elif self.position and value > 70:
                self.position.close()

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Backtest(frame, RsiMeanReversion, cash=100_000, commission=0.001, trade_on_close=False).run()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Backtest(frame.iloc[:2000], RsiMeanReversion, cash=100_000, commission=0.001).run()  # warm-up
    peer, stats = time_peer(run, repeats["medium"], warmup=False)
    final = float(stats["Equity Final [$]"])
    agreement = (f"final equity Sentio {report['checksum']:.2f} vs backtesting.py {final:.2f} "
                 f"(rel. diff {abs(report['checksum'] - final) / final:.2g}); backtesting.py trades {int(stats['# Trades'])}")
    return [row("RSI strategy backtest, 1 symbol daily", n, "bar-cells",
                f"backtesting.py {backtesting.__version__} Backtest.run", peer, report, agreement, target=None)]


def workload_backtest_sentio(sentio, inputs, sizes, repeats):
    n = sizes["backtest_bars"]
    files = inputs["minute_files"]
    report, _ = sentio.bench("backtest-sentio", "--size", n, *input_args(files), "--repeat", repeats["medium"])
    # The target is stated for 12 x 1,000,000 bars; at --quick sizes the row reports the time without a verdict.
    met = report["medianSeconds"] < 5.0 if n == 1_000_000 else None
    return [dict(workload="Sentio strategy backtest, CSV load included", size=n * len(files), unit="bar-cells",
                 peer="none", peerMedianSeconds=None, sentioMedianSeconds=report["medianSeconds"], ratio=None,
                 agreement=f"final equity {report['checksum']:.2f}", target="< 5 s for 12 x 1,000,000 bars",
                 targetMet=met, sentio=report, peerTiming=None)]


def workload_signals(sentio, inputs, sizes, repeats):
    bars = 20_000 if sizes is SIZES["full"] else 5_000
    text = sentio.run("bench", "signals", "--count", 12, "--bars", bars)
    update = re.search(r"per symbol-bar update \(ns\): p50 (\d+)\s+p90 (\d+)\s+p99 (\d+)\s+p99\.9 (\d+)\s+max (\d+)", text)
    tick = re.search(r"full 12-symbol tick \(ns\): p50 (\d+)\s+p90 (\d+)\s+p99 (\d+)", text)
    counted = json.loads(sentio.run_dev("allocations", "--count", 12, "--bars", bars, "--format", "json"))
    p99 = int(update.group(3))
    tick99 = int(tick.group(3))
    allocs = float(counted["allocationsPerUpdate"])
    return [dict(workload="signal update latency (12 symbols)", size=None, unit="updates", peer="none",
                 peerMedianSeconds=None, sentioMedianSeconds=None, ratio=None,
                 agreement=f"p50 {update.group(1)} ns, p99 {p99} ns, p99.9 {update.group(4)} ns; tick p99 {tick99} ns; "
                           f"allocations/update {allocs}",
                 target="p99 <= 1000 ns, 0 allocations, 12-symbol tick p99 < 15000 ns",
                 targetMet=p99 <= 1000 and tick99 < 15_000 and allocs == 0, sentio=dict(text=text, allocations=counted),
                 peerTiming=None)]


def input_args(files):
    out = []
    for f in files:
        out += ["--input", f]
    return out


def checksum_match(a, b):
    rel = abs(a - b) / max(abs(b), 1e-300)
    return f"{'match' if rel < 1e-9 else 'DIFFER'} (rel. {rel:.2g})"


def agreement_text(sentio_values, peer_values, sentio_checksum):
    diff, nan_mismatch = max_abs_diff(sentio_values, peer_values)
    text = f"max|diff| {diff:.3g}; checksum {checksum_match(sentio_checksum, fsum_finite(peer_values))}"
    return text + (f"; {nan_mismatch} NaN mismatches" if nan_mismatch else "")


def row(workload, size, unit, peer_name, peer, report, agreement, target):
    ratio = report["medianSeconds"] / peer["median"]
    target_text, limit = target if target else (None, None)
    return dict(workload=workload, size=size, unit=unit, peer=peer_name, peerMedianSeconds=peer["median"],
                sentioMedianSeconds=report["medianSeconds"], ratio=ratio, agreement=agreement, target=target_text,
                targetMet=(ratio <= limit) if limit is not None else None, sentio=report, peerTiming=peer)


WORKLOADS = [
    ("csv", workload_csv), ("rsi", workload_rsi), ("volume-ratio", workload_volume_ratio), ("sma", workload_sma),
    ("rolling-std", workload_rolling_std), ("rsi-many", workload_many("rsi")), ("ema-many", workload_many("ema")),
    ("atr-many", workload_many("atr")), ("macd-many", workload_many("macd")), ("bbands-many", workload_many("bbands")),
    ("stoch-many", workload_many("stoch")), ("adx-many", workload_many("adx")), ("talib-all", workload_talib_all),
    ("rolling-ols", workload_rolling_ols), ("xirr", workload_xirr), ("backtest-rsi", workload_backtest_vectorbt),
    ("backtest-rsi-daily", workload_backtest_backtesting), ("backtest-sentio", workload_backtest_sentio),
    ("signals", workload_signals),
]


# ----------------------------------------------------------------------------------------------- reporting

def machine_description():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    memory = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return dict(nproc=os.cpu_count(), cpu=model, memoryGiB=memory, os=platform.platform(),
                python=platform.python_version(), loadAverageAtStart=list(os.getloadavg()))


def fmt_seconds(x):
    if x is None:
        return "-"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def fmt_size(n, unit):
    if n is None:
        return "-"
    return f"{n:,} {unit}"


def render_table(results, machine):
    header = ["workload", "size", "peer", "peer median", "Sentio median", "ratio (Sentio/peer)", "agreement", "target"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in results:
        if r.get("skipped"):
            cells = [r["workload"], "-", r.get("peer", "-"), "-", "-", "-", f"skipped: {r['skipped']}", "-"]
        else:
            ratio = "-" if r["ratio"] is None else (f"{r['ratio']:.3f}" if r["ratio"] >= 0.1 else f"{r['ratio']:.2g}")
            met = {True: "met", False: "NOT met", None: "no verdict at this size"}[r["targetMet"]]
            target = f"{r['target']}: {met}" if r["target"] else "-"
            cells = [r["workload"], fmt_size(r["size"], r["unit"]), r["peer"], fmt_seconds(r["peerMedianSeconds"]),
                     fmt_seconds(r["sentioMedianSeconds"]), ratio, r["agreement"], target]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    lines.append("")
    if machine.get("memoryBandwidth"):
        lines.append(f"Memory bandwidth (numpy copy of 256 MB, read + write bytes counted): "
                     f"{machine['memoryBandwidth']['copyMBps']:.0f} MB/s. Floor rows: the same protocol timing a "
                     "plain memory pass over the workload's arrays (a copy into a preallocated, touched array; the windowed "
                     "kernels also a copy into a new array, allocation and page faults included); their ratio is "
                     "Sentio / floor.")
    lines.append(f"Machine: {machine['nproc']} CPUs ({machine['cpu']}), {machine['memoryGiB']} GiB RAM, "
                 f"{machine['os']}, Python {machine['python']}; load average at start "
                 f"{machine['loadAverageAtStart'][0]:.2f}, at end {machine['loadAverageAtEnd'][0]:.2f}.")
    if machine.get("previousRuns"):
        lines.append(f"Rows come from {len(machine['previousRuns']) + 1} runs of the harness (run.sh --only ... --update); "
                     "each row's measuredAt and loadAverage1m are in results.json.")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentio", required=True, help="path of the release sentio binary")
    parser.add_argument("--sentio-dev", default=None,
                        help="path of the release sentio-dev binary (allocation counting; default: beside --sentio)")
    parser.add_argument("--work", default=os.path.join(HERE, "work"), help="directory for generated inputs")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (about 3 minutes instead of ~12)")
    parser.add_argument("--only", default="", help="comma-separated workloads: " + ",".join(n for n, _ in WORKLOADS)
                        + "; or a kernel family: windowed (volume-ratio,sma,rolling-std), many (rsi-many,ema-many,atr-many), talib (macd-many,bbands-many,stoch-many,adx-many); talib-all times every TA-Lib function in both shapes (sentio-dev ta-bench)")
    parser.add_argument("--update", action="store_true",
                        help="with --only: keep the other workloads' rows of the existing results file")
    parser.add_argument("--output", default=os.path.join(HERE, "results.json"), help="JSON results path")
    args = parser.parse_args()

    sizes = SIZES["quick" if args.quick else "full"]
    repeats = dict(fast=7, medium=5, slow=1) if not args.quick else dict(fast=5, medium=3, slow=2)
    os.makedirs(args.work, exist_ok=True)
    sentio = Sentio(os.path.abspath(args.sentio), args.work,
                    os.path.abspath(args.sentio_dev) if args.sentio_dev else None)
    machine = machine_description()
    started = dt.datetime.now(dt.timezone.utc)
    log("generating shared inputs (once)")
    inputs = generate_inputs(sentio, args.work, sizes)

    selected = [w for w in args.only.split(",") if w]
    # Kernel families: `--only windowed` = the windowed statistics (volume ratio, SMA, rolling std).
    families = {"windowed": ["volume-ratio", "sma", "rolling-std"], "many": ["rsi-many", "ema-many", "atr-many"],
                "talib": ["macd-many", "bbands-many", "stoch-many", "adx-many"]}
    selected = [name for w in selected for name in families.get(w, [w])]
    results = []
    for name, fn in WORKLOADS:
        if selected and name not in selected:
            continue
        log(f"workload {name}")
        try:
            rows = fn(sentio, inputs, sizes, repeats)
        except Skipped as skipped:
            log(f"  skipped: {skipped}")
            results.append(dict(key=name, workload=name, skipped=str(skipped)))
            continue
        for r in rows:
            r["key"] = name
            r["measuredAt"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
            r["loadAverage1m"] = os.getloadavg()[0]
            log(f"  {r['workload']}: peer {fmt_seconds(r['peerMedianSeconds'])}, "
                f"sentio {fmt_seconds(r['sentioMedianSeconds'])}; {r['agreement']}")
        results.extend(rows)

    machine["loadAverageAtEnd"] = list(os.getloadavg())
    machine["memoryBandwidth"] = memory_bandwidth()
    if args.update and selected and os.path.exists(args.output):
        # Keep the previous run's rows for the workloads not selected now (each row carries its measuredAt).
        with open(args.output) as f:
            previous = json.load(f)
        fresh = {r["key"] for r in results}
        kept = [r for r in previous.get("results", []) if r.get("key") not in fresh]
        order = {n: i for i, (n, _) in enumerate(WORKLOADS)}
        results = sorted(kept + results, key=lambda r: order.get(r.get("key"), len(order)))
        machine["previousRuns"] = previous.get("machine", {}).get("previousRuns", []) + [
            dict(started=previous.get("started"), command=previous.get("command"),
                 loadAverageAtStart=previous.get("machine", {}).get("loadAverageAtStart"))]
    table = render_table(results, machine)
    print(table)
    command = ("Benchmarks/compare/run.sh" + (" --quick" if args.quick else "") + (f" --only {args.only}" if args.only else "")
               + (" --update" if args.update else ""))
    document = dict(command=command, quick=args.quick, started=started.isoformat(timespec="seconds"),
                    finished=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), machine=machine,
                    sizes=sizes, repeats=repeats, results=results, table=table)
    temporary = args.output + ".tmp"
    with open(temporary, "w") as f:
        json.dump(document, f, indent=2, default=lambda o: o.item() if hasattr(o, "item") else str(o))
        f.write("\n")
    os.replace(temporary, args.output)
    log(f"wrote {args.output}")


if __name__ == "__main__":
    main()
