#!/usr/bin/env python3
"""Parameter sweep head-to-head: `sentio sweep` against vectorbt 1.2.0, and the Ray driver, in one run.

Run through `Benchmarks/compare/run-sweep.sh` (it creates the virtual environments and builds `sentio` in release).
The workload (issue 16): the RSI strategy's 27-combination grid rsi-period 7,14,21 x rsi-lower 20,25,30 x
rsi-upper 70,75,80 over 12 symbols x 200,000 minute bars (`sentio generate --seed 42`, the files of the
existing head-to-head in Benchmarks/compare/work).

Same fills and costs as the existing head-to-head (compare.py, workload backtest-rsi): one $100,000 portfolio over
the 12 symbols with shared cash, decisions at bar t's close filled at bar t+1's open, all-in sizing (each entry
buys as many whole shares as the cash allows after the 0.1 % commission), sells before buys within a bar.

Each side runs as a child process of this script, measured the same way: wall time and peak RSS (os.wait4's
ru_maxrss of that child alone).
- Sentio: `sentio sweep FILES --strategy rsi --grid ... --sizing all-in --format json --threads T`, T = 1 and 2;
  end to end (CSV load included).
- vectorbt: a fresh Python process (this script with --vectorbt-worker): imports and a JIT warm-up on 2,000 bars
  first (timed apart), then the CSV load (pandas) and the sweep: RSI with the parameter list, entries and exits
  for the 27 x 12 columns, one `Portfolio.from_signals` over all of them grouped per combination, total return
  and trade counts. Two RSI definitions:
    * `vbt.RSI.run(close, window=[7, 14, 21])`: vectorbt's own RSI (a simple rolling mean of gains and losses;
      its ewm=True variant uses span = window, alpha 2/(w+1)) - neither is Wilder's RSI, which Sentio uses
      (alpha 1/w), so the signals and results differ;
    * `vbt.talib("RSI").run(close, timeperiod=[7, 14, 21])`: the same parameter-list machinery with TA-Lib's Wilder
      RSI, Sentio's definition: results must agree per combination.
- Agreement per combination (matched by parameter values): total return (percent) and trade counts (Sentio's
  closed tradeCount and openPositionCount against vectorbt's closed and open trades).
- Sentio's per-shard fixed cost: a 1-combination sweep against the 27-combination one (one thread):
  T(c) = a + b*c gives the per-shard cost a (process start, CSV load, shared indicators) and b per combination.
- Ray (Cluster/sweep_ray.py, a private local Ray instance): the same sweep in 9 shards with 1 and 2 worker
  processes (--local-cpus 1 and 2); the merged result is compared with the single-process sweep byte for byte.
  Per-task overhead: 40 one-combination tasks on a 1-symbol x 300-bar market, so that a task is nearly all
  overhead: slot time per task = compute wall x workers / tasks, of which sentio's process (start-up, its fixed
  work) as timed inside the task, the rest Ray's (scheduling, the task's round trip).

Writes Benchmarks/compare/results-sweep.json and prints a table. A benchmark, not a test.
"""
import argparse
import datetime as dt
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UNIVERSE = ["TQQQ", "SQQQ", "SOXL", "SOXS", "SPXL", "SPXS", "TNA", "TZA", "FAS", "FAZ", "LABU", "LABD"]
PERIODS = [7, 14, 21]
LOWERS = [20, 25, 30]
UPPERS = [70, 75, 80]
GRID = "rsi-period=7,14,21;rsi-lower=20,25,30;rsi-upper=70,75,80"
FIXED = ["--strategy", "rsi", "--sizing", "all-in", "--metric", "total-return"]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def measure(command, **kwargs):
    """Runs command as a child; returns (wall seconds, peak RSS in MiB of that child alone, stdout, stderr)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, **kwargs)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage (ru_maxrss in KiB)
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} exited {code}: {stderr.strip()}")
    return wall, usage.ru_maxrss / 1024, stdout, stderr


# ------------------------------------------------------------------------------------------- vectorbt side

def load(files, nrows=None):
    import numpy as np
    import pandas as pd
    frames = [pd.read_csv(f, usecols=["open", "close"], nrows=nrows) for f in files]
    close = pd.DataFrame({s: fr["close"].to_numpy(dtype=float) for s, fr in zip(UNIVERSE, frames)})
    open_ = pd.DataFrame({s: fr["open"].to_numpy(dtype=float) for s, fr in zip(UNIVERSE, frames)})
    return close, open_


def vectorbt_sweep(close, open_, rsi_kind):
    """The 27-combination sweep in vectorbt's way: every combination x every bar in memory at once."""
    import numpy as np
    import pandas as pd
    import vectorbt as vbt
    n, symbols = close.shape
    phases = {}
    mark = time.perf_counter()
    if rsi_kind == "vbt":
        rsi = vbt.RSI.run(close, window=PERIODS).rsi
    else:
        rsi = vbt.talib("RSI").run(close, timeperiod=PERIODS).real
    # Columns are parameter-major: (period, symbol) for each period in order.
    values = rsi.to_numpy().reshape(n, len(PERIODS), symbols)
    phases["rsi"], mark = time.perf_counter() - mark, time.perf_counter()
    combos = list(itertools.product(PERIODS, LOWERS, UPPERS))
    entries = np.zeros((n, len(combos) * symbols), dtype=bool)
    exits = np.zeros_like(entries)
    with np.errstate(invalid="ignore"):
        for c, (period, lower, upper) in enumerate(combos):
            r = values[:, PERIODS.index(period), :]
            # Decided at bar t's close, filled at bar t+1's open: shift by one bar, trade at the open.
            entries[1:, c * symbols:(c + 1) * symbols] = r[:-1] < lower
            exits[1:, c * symbols:(c + 1) * symbols] = r[:-1] > upper
    columns = pd.MultiIndex.from_tuples([(p, lo, up, s) for p, lo, up in combos for s in close.columns],
                                        names=["period", "lower", "upper", "symbol"])
    close_t = pd.DataFrame(np.tile(close.to_numpy(), len(combos)), columns=columns)
    open_t = pd.DataFrame(np.tile(open_.to_numpy(), len(combos)), columns=columns)
    entries_t = pd.DataFrame(entries, columns=columns)
    exits_t = pd.DataFrame(exits, columns=columns)
    phases["signals"], mark = time.perf_counter() - mark, time.perf_counter()
    pf = vbt.Portfolio.from_signals(
        close_t, entries_t, exits_t, price=open_t, fees=0.001, init_cash=100_000, size=np.inf, size_granularity=1,
        group_by=["period", "lower", "upper"], cash_sharing=True, call_seq="auto", freq="1min")
    phases["fromSignals"], mark = time.perf_counter() - mark, time.perf_counter()
    total_return = pf.total_return()
    final_value = pf.final_value()
    trades = pf.trades
    closed = trades.closed.count()
    open_count = trades.open.count()
    out = []
    for key in total_return.index:
        out.append(dict(period=int(key[0]), lower=int(key[1]), upper=int(key[2]),
                        totalReturnPercent=float(total_return[key]) * 100, finalEquity=float(final_value[key]),
                        closedTrades=int(closed[key]), openTrades=int(open_count[key])))
    phases["statistics"] = time.perf_counter() - mark
    return out, phases


def vectorbt_worker(args):
    started = time.perf_counter()
    import numpy as np  # noqa: F401
    import vectorbt as vbt
    imported = time.perf_counter()
    close, open_ = load(args.files, nrows=2000)
    vectorbt_sweep(close, open_, args.rsi)  # JIT compilation and caches
    warmed = time.perf_counter()
    close, open_ = load(args.files)
    loaded = time.perf_counter()
    rows, phases = vectorbt_sweep(close, open_, args.rsi)
    finished = time.perf_counter()
    json.dump(dict(version=vbt.__version__, importSeconds=imported - started, warmupSeconds=warmed - imported,
                   loadSeconds=loaded - warmed, sweepSeconds=finished - loaded, sweepPhases=phases, rows=rows), sys.stdout)


# --------------------------------------------------------------------------------------------- harness

def generate(sentio, work, bars):
    minute = os.path.join(work, f"minute-12x{bars}")
    if not os.path.exists(os.path.join(minute, "LABD.csv")):
        log(f"generating 12 x {bars} minute bars")
        subprocess.run([sentio, "generate", "--symbols", "12", "--bars", str(bars), "--freq", "minute",
                        "--seed", "42", "--out", minute], check=True, capture_output=True)
    return [os.path.join(minute, f"{s}.csv") for s in UNIVERSE]


def sentio_sweep(sentio, files, threads, output, grid=GRID):
    command = [sentio, "sweep", *files, *FIXED, "--grid", grid, "--format", "json", "--output", output,
               "--threads", str(threads)]
    log("sentio: " + " ".join(os.path.basename(c) if c in files else c for c in command))
    wall, rss, _, _ = measure(command)
    with open(output) as f:
        return wall, rss, json.load(f)


def run_vectorbt(python, files, rsi_kind):
    log(f"vectorbt ({rsi_kind} RSI) in a fresh process")
    wall, rss, stdout, _ = measure([python, os.path.abspath(__file__), "--vectorbt-worker", "--rsi", rsi_kind,
                                    "--files", *files], env={**os.environ, "PYTHONWARNINGS": "ignore"})
    result = json.loads(stdout)
    result["processWallSeconds"] = wall
    result["peakRSSMiB"] = rss
    return result


def agreement(sentio_rows, vbt_rows):
    by_params = {(r["period"], r["lower"], r["upper"]): r for r in vbt_rows}
    max_return_diff = 0.0
    trade_mismatch = []
    for row in sentio_rows:
        p = row["parameters"]
        key = (int(p["rsi-period"]), int(float(p["rsi-lower"])), int(float(p["rsi-upper"])))
        peer = by_params[key]
        s = row["statistics"]
        max_return_diff = max(max_return_diff, abs(s["totalReturnPercent"] - peer["totalReturnPercent"]))
        if s["tradeCount"] != peer["closedTrades"] or s["openPositionCount"] != peer["openTrades"]:
            trade_mismatch.append(dict(parameters=key, sentio=(s["tradeCount"], s["openPositionCount"]),
                                       vectorbt=(peer["closedTrades"], peer["openTrades"])))
    return dict(combinations=len(sentio_rows), maxAbsTotalReturnDiffPercentPoints=max_return_diff,
                tradeCountMismatches=len(trade_mismatch), mismatchExamples=trade_mismatch[:5])


def run_ray(ray_python, sentio, files, workers, shards, work, reference, grid=GRID, fixed=FIXED, tag=""):
    output = os.path.join(work, f"ray{tag}-{workers}.json")
    timings = os.path.join(work, f"ray{tag}-{workers}-timings.json")
    command = [ray_python, os.path.join(ROOT, "Cluster", "sweep_ray.py"), "--address", "local",
               "--local-cpus", str(workers), "--sentio", sentio, "--shards", str(shards), "--format", "json",
               "--output", output, "--timings", timings, "--", *files, *fixed, "--grid", grid]
    log(f"ray: {workers} worker process(es), {shards} shards{' (' + tag.strip('-') + ')' if tag else ''}")
    wall, _, _, _ = measure(command, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    with open(timings) as f:
        t = json.load(f)
    identical = None
    if reference:
        with open(output, "rb") as f, open(reference, "rb") as g:
            identical = f.read() == g.read()
    tasks = t["tasks"]
    sentio_total = sum(task["sentioSeconds"] for task in tasks)
    return dict(workers=workers, shards=shards, driverWallSeconds=wall, computeWallSeconds=t["wallSeconds"],
                mergeSeconds=t["mergeSeconds"], sumTaskSentioSeconds=sentio_total,
                meanTaskSentioSeconds=sentio_total / shards,
                # Busy share of the worker slots: the rest is Ray, process start-up and idle slots at the end.
                efficiency=sentio_total / (t["wallSeconds"] * workers),
                slotSecondsPerTask=t["wallSeconds"] * workers / shards,
                identicalToSingleProcess=identical)


def task_overhead(ray_python, sentio, work, workers, shards=40):
    """Per-task overhead: `shards` tasks of one combination each over a tiny market (1 symbol x 300 bars), so that
    almost all of a task is overhead: Ray's scheduling, the process start of sentio and its fixed work."""
    tiny = os.path.join(work, "tiny-1x300")
    if not os.path.exists(os.path.join(tiny, "TQQQ.csv")):
        subprocess.run([sentio, "generate", "--symbols", "TQQQ", "--bars", "300", "--freq", "minute", "--seed", "1",
                        "--out", tiny], check=True, capture_output=True)
    grid = "rsi-period=" + ",".join(str(p) for p in range(2, 2 + shards))
    r = run_ray(ray_python, sentio, [os.path.join(tiny, "TQQQ.csv")], workers, shards, work, None, grid=grid,
                fixed=["--strategy", "rsi"], tag="-overhead")
    r["sentioProcessSecondsPerTask"] = r["meanTaskSentioSeconds"]
    r["rayPerTaskSeconds"] = r["slotSecondsPerTask"] - r["meanTaskSentioSeconds"]
    return r


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vectorbt-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rsi", choices=["vbt", "talib"], default="talib", help=argparse.SUPPRESS)
    parser.add_argument("--files", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--sentio", help="path of the release sentio binary")
    parser.add_argument("--ray-python", default=os.path.join(ROOT, "Cluster", ".venv", "bin", "python"),
                        help="Python of the Ray driver's environment (Cluster/requirements.txt)")
    parser.add_argument("--work", default=os.path.join(HERE, "work"), help="directory for generated inputs")
    parser.add_argument("--bars", type=int, default=200_000, help="minute bars per symbol (default: 200000)")
    parser.add_argument("--shards", type=int, default=9, help="shards of the Ray runs (default: 9)")
    parser.add_argument("--skip-ray", action="store_true", help="leave out the Ray runs")
    parser.add_argument("--output", default=os.path.join(HERE, "results-sweep.json"), help="JSON results path")
    args = parser.parse_args()
    if args.vectorbt_worker:
        return vectorbt_worker(args)
    if not args.sentio:
        parser.error("--sentio is required")

    sentio = os.path.abspath(args.sentio)
    os.makedirs(args.work, exist_ok=True)
    started = dt.datetime.now(dt.timezone.utc)
    load_start = list(os.getloadavg())
    files = generate(sentio, args.work, args.bars)
    scratch = tempfile.mkdtemp(prefix="sweep-bench-", dir=args.work)
    results = dict(workload=f"RSI sweep, 27 combinations, 12 symbols x {args.bars:,} minute bars", grid=GRID,
                   fixedOptions=FIXED)

    runs = {}
    for threads in (1, 2):
        wall, rss, document = sentio_sweep(sentio, files, threads, os.path.join(scratch, f"sentio-{threads}.json"))
        runs[threads] = document
        results[f"sentio{threads}Thread"] = dict(wallSeconds=wall, peakRSSMiB=rss)
        log(f"  sentio --threads {threads}: {wall:.2f} s, peak RSS {rss:.0f} MiB")
    with open(os.path.join(scratch, "sentio-1.json"), "rb") as f, open(os.path.join(scratch, "sentio-2.json"), "rb") as g:
        results["sentioThreadsIdentical"] = f.read() == g.read()

    one_wall, _, _ = sentio_sweep(sentio, files, 1, os.path.join(scratch, "sentio-one.json"),
                                  grid="rsi-period=14;rsi-lower=30;rsi-upper=70")
    per_combination = (results["sentio1Thread"]["wallSeconds"] - one_wall) / 26
    results["sentioShardModel"] = dict(
        oneCombinationWallSeconds=one_wall, perCombinationSeconds=per_combination,
        perShardFixedSeconds=one_wall - per_combination)

    python = sys.executable
    for kind in ("talib", "vbt"):
        peer = run_vectorbt(python, files, kind)
        rows = peer.pop("rows")
        peer["agreement"] = agreement(runs[1]["rows"], rows)
        peer["timedSeconds"] = peer["loadSeconds"] + peer["sweepSeconds"]
        results[f"vectorbt_{kind}"] = peer
        log(f"  vectorbt {kind}: load {peer['loadSeconds']:.2f} s + sweep {peer['sweepSeconds']:.2f} s "
            f"(process {peer['processWallSeconds']:.2f} s), peak RSS {peer['peakRSSMiB']:.0f} MiB; "
            f"{peer['agreement']}")

    if not args.skip_ray:
        results["ray"] = [run_ray(args.ray_python, sentio, files, workers, args.shards, scratch,
                                  os.path.join(scratch, "sentio-1.json")) for workers in (1, 2)]
        results["rayTaskOverhead"] = [task_overhead(args.ray_python, sentio, scratch, workers) for workers in (1, 2)]
        for r in results["ray"]:
            log(f"  ray {r['workers']} worker(s): {r}")

    s1, s2, peer = results["sentio1Thread"], results["sentio2Thread"], results["vectorbt_talib"]
    results["ratios"] = dict(
        timeSentio1VsVectorbt=s1["wallSeconds"] / peer["timedSeconds"],
        timeSentio2VsVectorbt=s2["wallSeconds"] / peer["timedSeconds"],
        peakRSSSentio1VsVectorbt=s1["peakRSSMiB"] / peer["peakRSSMiB"],
        peakRSSSentio2VsVectorbt=s2["peakRSSMiB"] / peer["peakRSSMiB"])
    results["machine"] = dict(nproc=os.cpu_count(), os=platform.platform(), python=platform.python_version(),
                              loadAverageAtStart=load_start, loadAverageAtEnd=list(os.getloadavg()))
    results["started"] = started.isoformat(timespec="seconds")
    results["finished"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    print(render(results))
    temporary = args.output + ".tmp"
    with open(temporary, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    os.replace(temporary, args.output)
    log(f"wrote {args.output}")


def render(r):
    lines = ["| run | wall | peak RSS | notes |", "|---|---|---|---|"]
    for threads in (1, 2):
        s = r[f"sentio{threads}Thread"]
        lines.append(f"| sentio sweep --threads {threads} (end to end, CSV load included) | {s['wallSeconds']:.2f} s "
                     f"| {s['peakRSSMiB']:.0f} MiB | |")
    for kind, name in (("talib", 'vbt.talib("RSI").run (Wilder RSI)'), ("vbt", "vbt.RSI.run (rolling-mean RSI)")):
        p = r[f"vectorbt_{kind}"]
        a = p["agreement"]
        lines.append(f"| vectorbt {p['version']}, {name} + from_signals: load + sweep | {p['timedSeconds']:.2f} s "
                     f"(load {p['loadSeconds']:.2f}, sweep {p['sweepSeconds']:.2f}: {', '.join(f'{k} {v:.2f}' for k, v in p['sweepPhases'].items())}; process {p['processWallSeconds']:.2f} "
                     f"with import {p['importSeconds']:.2f} and JIT warm-up {p['warmupSeconds']:.2f}) | "
                     f"{p['peakRSSMiB']:.0f} MiB | total return max abs diff {a['maxAbsTotalReturnDiffPercentPoints']:.3g} "
                     f"points; trade-count mismatches {a['tradeCountMismatches']}/{a['combinations']} |")
    for ray in r.get("ray", []):
        lines.append(f"| Ray driver, {ray['workers']} worker process(es), {ray['shards']} shards | "
                     f"{ray['computeWallSeconds']:.2f} s (driver process {ray['driverWallSeconds']:.2f} s with Ray "
                     f"start-up; merge {ray['mergeSeconds']:.2f} s) | - | mean sentio time per task "
                     f"{ray['meanTaskSentioSeconds']:.2f} s; slots busy {ray['efficiency'] * 100:.0f} %; "
                     f"merged result identical to the single-process sweep: {ray['identicalToSingleProcess']} |")
    for o in r.get("rayTaskOverhead", []):
        lines.append(f"| Ray per-task overhead, {o['workers']} worker process(es), {o['shards']} one-combination tasks "
                     f"on 1 symbol x 300 bars | {o['computeWallSeconds']:.2f} s | - | per task: "
                     f"{o['slotSecondsPerTask'] * 1000:.0f} ms of a slot, of which sentio's process "
                     f"{o['sentioProcessSecondsPerTask'] * 1000:.0f} ms and Ray {o['rayPerTaskSeconds'] * 1000:.0f} ms |")
    m = r["sentioShardModel"]
    q = r["ratios"]
    lines.append("")
    lines.append(f"Sentio per shard: fixed {m['perShardFixedSeconds']:.3f} s (process, CSV load, shared indicators), "
                 f"{m['perCombinationSeconds']:.3f} s per combination (1 thread). Ratios against vectorbt (Wilder, "
                 f"load + sweep): time {q['timeSentio1VsVectorbt']:.3f} (1 thread), {q['timeSentio2VsVectorbt']:.3f} "
                 f"(2 threads); peak RSS {q['peakRSSSentio1VsVectorbt']:.3f}, {q['peakRSSSentio2VsVectorbt']:.3f}.")
    lines.append(f"Sentio 1 and 2 threads byte-identical: {r['sentioThreadsIdentical']}. Load average at start "
                 f"{r['machine']['loadAverageAtStart'][0]:.2f}, at end {r['machine']['loadAverageAtEnd'][0]:.2f} "
                 f"({r['machine']['nproc']} CPUs).")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
