#!/usr/bin/env python3
"""Runs `sentio sweep` on a Ray cluster: one Ray task per shard, then `sentio sweep merge` on this machine.

    python Cluster/sweep_ray.py [DRIVER OPTIONS] -- [SWEEP ARGUMENTS]

SWEEP ARGUMENTS are those of `sentio sweep` (data paths, --strategy, --grid, fixed backtest options, --metric),
without --shard, --format, --output, --save, --label, --report, --heatmap and --threads, which the driver sets
(give them to the driver instead; --db after -- is a store of bars to read, the driver's --db the store to save
the merged sweep to). Example:

    python Cluster/sweep_ray.py --address auto --sentio /opt/sentio/bin/sentio --shards 64 \\
        --output sweep.csv --format csv -- /shared/market --strategy rsi \\
        --grid 'rsi-period=7,14,21;rsi-lower=20,25,30;rsi-upper=70,75,80' --sizing all-in

Every task runs `SENTIO sweep SWEEP-ARGUMENTS --shard K/N --format json --threads C` on the node Ray places it on,
in this process's working directory. Data reaches the nodes through a shared filesystem: the data paths, the
working directory and the sentio binary must exist at the same paths on every node (Cluster/README.md says why).

Failures: a task whose sentio exits 1 or is killed by a signal (an internal error, the out-of-memory killer), and
a task whose worker or node dies, is retried by Ray up to --max-retries times. Exit 2 (bad input: an unknown grid
name, a missing data file) is deterministic and is not retried. A shard that fails for good stops the run: the
driver cancels the other tasks and exits non-zero (2 for bad input, 1 otherwise), naming the shard and sentio's
error. The shard outputs are merged with `sentio sweep merge` into --output (standard output without it) and,
with --save --db FILE, the store.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

# Options of `sentio sweep` the driver sets itself; passing them after -- is an error.
# (--db after -- is the store the bars come from, read by every task; the driver's own --db is where merge saves.)
DRIVER_OWNED = ("--shard", "--format", "--output", "--save", "--threads", "--report", "--heatmap", "--label")


def log(message):
    print(f"sweep_ray: {message}", file=sys.stderr, flush=True)


def run_shard(sentio, sweep_args, index, count, threads, cwd):
    """The body of one Ray task: runs shard `index` (1-based) of `count` and returns its JSON text.

    Returns a dict. On success: {"ok": True, "output": JSON text, timings}. On bad input (sentio exit 2, a missing
    binary, data or working directory: deterministic, retrying cannot help) {"ok": False, "error": text} is
    returned rather than raised, so that Ray does not retry it. Anything else (exit 1, a signal) raises
    RuntimeError, which Ray retries (retry_exceptions=True)."""
    started = time.time()
    try:
        import ray
        node = f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:8]}"
    except Exception:  # outside a Ray worker (a direct call)
        node = socket.gethostname()
    if not os.path.isdir(cwd):
        return dict(ok=False, node=node, error=f"working directory {cwd} does not exist on node {node} "
                    "(the data and working directory must be at the same path on every node)")
    if not (os.path.isfile(sentio) and os.access(sentio, os.X_OK)):
        return dict(ok=False, node=node, error=f"sentio binary {sentio} is missing or not executable on node {node}")
    command = [sentio, "sweep", *sweep_args, "--shard", f"{index}/{count}", "--format", "json",
               "--threads", str(threads)]
    sentio_start = time.time()
    run = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    sentio_end = time.time()
    stderr = run.stderr.strip()
    if run.returncode == 2:
        return dict(ok=False, node=node, error=f"sentio exited 2 (bad input): {stderr}")
    if run.returncode != 0:
        how = f"was killed by signal {-run.returncode}" if run.returncode < 0 else f"exited {run.returncode}"
        raise RuntimeError(f"shard {index}/{count} on node {node}: sentio {how}: {stderr}")
    return dict(ok=True, node=node, output=run.stdout, taskStart=started, sentioStart=sentio_start,
                sentioEnd=sentio_end, taskEnd=time.time())


def parse_arguments(argv):
    if "--" in argv:
        split = argv.index("--")
        driver_argv, sweep_args = argv[:split], argv[split + 1:]
    else:
        driver_argv, sweep_args = argv, []
    parser = argparse.ArgumentParser(
        prog="sweep_ray.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="auto",
                        help="Ray cluster address (default: auto, the running cluster this node belongs to or "
                             "RAY_ADDRESS); 'local' starts a private Ray instance on this machine")
    parser.add_argument("--local-cpus", type=int, default=None,
                        help="with --address local: CPUs of the private instance (default: all)")
    parser.add_argument("--sentio", default=shutil.which("sentio") or "sentio",
                        help="path of the sentio binary, the same on every node (default: sentio on PATH)")
    parser.add_argument("--merge-sentio", default=None,
                        help="sentio binary on this machine for the merge (default: --sentio)")
    parser.add_argument("--shards", type=int, default=None,
                        help="number of shards, one Ray task each (default: the cluster's CPUs / --cpus-per-task)")
    parser.add_argument("--cpus-per-task", type=int, default=1,
                        help="CPUs Ray reserves for each task, passed to sentio as --threads (default: 1)")
    parser.add_argument("--max-retries", type=int, default=3,
                        help="Ray retries of a failed task: worker or node death, sentio exit 1 or a signal "
                             "(default: 3)")
    parser.add_argument("--format", choices=["table", "json", "csv"], default="table",
                        help="format of the merged result (default: table)")
    parser.add_argument("--output", default=None, help="merged result file (default: standard output)")
    parser.add_argument("--save", action="store_true", help="save the merged sweep to the store --db")
    parser.add_argument("--db", default=None, help="with --save: the SQLite store")
    parser.add_argument("--label", default=None, help="with --save: a label to recognise the sweep by")
    parser.add_argument("--report", default=None, help="also write the merged sweep's HTML report to this file")
    parser.add_argument("--heatmap", default=None, help="with --report: the two grid parameters of the heatmap, X,Y")
    parser.add_argument("--keep-shards", default=None, help="directory to keep the shard outputs in")
    parser.add_argument("--timings", default=None,
                        help="write per-task timings as JSON to this file (task, sentio and driver times)")
    args = parser.parse_args(driver_argv)
    for argument in sweep_args:
        name = argument.split("=", 1)[0]
        if name in DRIVER_OWNED:
            parser.error(f"{name} is set by the driver; pass it before -- (or drop it)")
    if not sweep_args:
        parser.error("no sweep arguments: add -- and the arguments of `sentio sweep` (data, --strategy, --grid)")
    if args.save and not args.db:
        parser.error("--save needs --db FILE")
    if args.shards is not None and args.shards < 1:
        parser.error("--shards must be at least 1")
    if args.cpus_per_task < 1:
        parser.error("--cpus-per-task must be at least 1")
    if args.max_retries < 0:
        parser.error("--max-retries must be 0 or more")
    return args, sweep_args


def absolute_binary(path):
    if os.sep in path:
        return os.path.abspath(path)
    found = shutil.which(path)
    return os.path.abspath(found) if found else path


def connect(args):
    import ray
    import logging
    if args.address == "local":
        # Bound to the loopback address: a private instance talks to nothing outside this machine.
        ray.init(num_cpus=args.local_cpus, include_dashboard=False, logging_level=logging.WARNING,
                 log_to_driver=False, _node_ip_address="127.0.0.1")
    else:
        ray.init(address=args.address, logging_level=logging.WARNING, log_to_driver=False)
    return ray


def main(argv):
    args, sweep_args = parse_arguments(argv)
    sentio = absolute_binary(args.sentio)
    merge_sentio = absolute_binary(args.merge_sentio or args.sentio)
    if not os.access(merge_sentio, os.X_OK):
        log(f"sentio binary {merge_sentio} (for the merge, on this machine) is missing or not executable")
        return 2
    ray = connect(args)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        shards = args.shards or max(1, cpus // args.cpus_per_task)
        log(f"{shards} shards on a cluster of {cpus} CPUs ({len(ray.nodes())} nodes), "
            f"{args.cpus_per_task} CPU(s) per task, up to {args.max_retries} retries")
        task = ray.remote(run_shard).options(num_cpus=args.cpus_per_task, max_retries=args.max_retries,
                                             retry_exceptions=True)
        cwd = os.getcwd()
        submitted = {}
        pending = {}
        started = time.time()
        for index in range(1, shards + 1):
            ref = task.remote(sentio, sweep_args, index, shards, args.cpus_per_task, cwd)
            pending[ref] = index
            submitted[index] = time.time()
        results = {}
        timings = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            index = pending.pop(ref)
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as error:
                cause = error.cause if getattr(error, "cause", None) is not None else error
                return fail(ray, pending, index, shards, f"failed after {args.max_retries} retries: {cause}", 1)
            except ray.exceptions.RayError as error:  # worker or node lost more often than max_retries
                return fail(ray, pending, index, shards,
                            f"failed after {args.max_retries} retries: {type(error).__name__}: {error}", 1)
            if not result["ok"]:
                return fail(ray, pending, index, shards, result["error"], 2)
            got = time.time()
            results[index] = result["output"]
            sentio_seconds = result["sentioEnd"] - result["sentioStart"]
            timings.append(dict(shard=index, node=result["node"], submitted=submitted[index],
                                taskStart=result["taskStart"], sentioStart=result["sentioStart"],
                                sentioEnd=result["sentioEnd"], taskEnd=result["taskEnd"], received=got,
                                sentioSeconds=sentio_seconds))
            log(f"shard {index}/{shards} done on {result['node']}: sentio {sentio_seconds:.3f} s "
                f"({len(results)}/{shards})")
        compute_seconds = time.time() - started
    finally:
        ray.shutdown()

    with tempfile.TemporaryDirectory(prefix="sweep_ray-") as scratch:
        directory = args.keep_shards or scratch
        os.makedirs(directory, exist_ok=True)
        files = []
        for index in range(1, shards + 1):
            path = os.path.join(directory, f"shard-{index:05d}-of-{shards:05d}.json")
            with open(path, "w") as f:
                f.write(results[index])
            files.append(path)
        command = [merge_sentio, "sweep", "merge", *files, "--format", args.format]
        if args.output:
            command += ["--output", args.output]
        if args.save:
            command += ["--save", "--db", args.db]
        if args.label:
            command += ["--label", args.label]
        if args.report:
            command += ["--report", args.report]
        if args.heatmap:
            command += ["--heatmap", args.heatmap]
        merge_start = time.time()
        merged = subprocess.run(command, capture_output=True, text=True)
        merge_seconds = time.time() - merge_start
        if merged.returncode != 0:
            log(f"sentio sweep merge exited {merged.returncode}: {merged.stderr.strip()}")
            return merged.returncode if merged.returncode in (1, 2) else 1
        sys.stdout.write(merged.stdout)
        if merged.stderr:
            sys.stderr.write(merged.stderr)
    if args.timings:
        with open(args.timings, "w") as f:
            json.dump(dict(shards=shards, cpusPerTask=args.cpus_per_task, wallSeconds=compute_seconds,
                           mergeSeconds=merge_seconds, tasks=sorted(timings, key=lambda t: t["shard"])), f, indent=2)
            f.write("\n")
    log(f"{shards} shards in {compute_seconds:.2f} s, merged in {merge_seconds:.2f} s"
        + (f" into {args.output}" if args.output else ""))
    return 0


def fail(ray, pending, index, shards, message, code):
    for ref in pending:
        ray.cancel(ref, force=True)
    log(f"shard {index}/{shards} failed: {message}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
