#!/usr/bin/env bash
# Benchmarks of `sentio serve` (numbers for the closing note; not tests). Needs: wrk (Debian), a release build of
# sentio and sentio-dev (swift build -c release --product sentio; ... --product sentio-dev). Bounded in time:
# two wrk runs of DURATION, a concurrency sweep of 2 × (levels in SWEEP) runs of SWEEP_DURATION (40 s by default),
# then at most ROUNDS × 10 s of WebSocket rounds (each a few ms normally).
#  1. wrk, keep-alive, rate limit off: GET /api/v1/signals beside a minimal Hummingbird route returning a constant
#     body (the ceiling: `sentio-dev ceiling`, same build, same run): requests/s, p99, ratio. Then the sweep:
#     `wrk -t1 -cN` for each N in SWEEP, ceiling and signals back to back at each level (one wrk thread leaves the
#     2-core machine's other core to the server), one table row per level: requests/s and p99 of both, ratio.
#  2. `sentio-dev ws-load`: CLIENTS WebSocket clients; per round one new step POSTed; time from just before the
#     POST to the last client's signal_update (p50/p99 over rounds); server RSS before and with the clients.
#  3. The same on the investing app's /api/v1/ws (Apple test token, apple-test-token.sh): to the last client's
#     quote_updated.
#  4. `sentio-dev signalr-load`: the SignalR variant on the allowance app's hub /hubs/family: CLIENTS hub connections
#     over FAMILIES families' members; per round one transaction POSTed; time to the family's last TransactionCreated.
# Usage: Benchmarks/serve/run.sh [RELEASE_BUILD_DIR]   (default .build/release;
#        env: DURATION=10s CONNECTIONS=64 THREADS=2 SWEEP="8 16 32 64" SWEEP_THREADS=1 SWEEP_DURATION=5s
#             CLIENTS=1000 ROUNDS=50 FAMILIES=10; ROUNDS=0 skips the WebSocket and SignalR parts;
#             PARTS="http signals investing signalr" the parts to run; STORE_DIR=DIR puts the server's store there,
#             e.g. /dev/shm for tmpfs, instead of a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-.build/release}"
SENTIO="$BIN/sentio"; SENTIO_DEV="$BIN/sentio-dev"
DURATION="${DURATION:-10s}"; CONNECTIONS="${CONNECTIONS:-64}"; THREADS="${THREADS:-2}"
SWEEP="${SWEEP:-8 16 32 64}"; SWEEP_THREADS="${SWEEP_THREADS:-1}"; SWEEP_DURATION="${SWEEP_DURATION:-5s}"
CLIENTS="${CLIENTS:-1000}"; ROUNDS="${ROUNDS:-50}"; FAMILIES="${FAMILIES:-10}"
PARTS="${PARTS:-http signals investing signalr}"
part() { [[ " $PARTS " == *" $1 "* ]]; }
WORK="$(mktemp -d)"
STORE="$(mktemp -d "${STORE_DIR:-$WORK}/sentio-bench-store.XXXXXX")"
PID=""; CPID=""
cleanup() {
  for p in $PID $CPID; do kill "$p" 2>/dev/null || true; done
  for p in $PID $CPID; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK" "$STORE"
}
trap cleanup EXIT
export SENTIO_INGEST_TOKEN=bench-token
export SENTIO_JWT_SECRET=bench-jwt-secret-0123456789abcdef-0123
"$SENTIO_DEV" ceiling --port 0 2>"$WORK/ceiling-stderr" &
CPID=$!
"$SENTIO" serve --db "$STORE/store.sqlite" --port 0 --replay Data/market --speed max --rate-limit 0 \
  --ws-buffer 1024 --apple-jwks Tests/Fixtures/investing/apple-test-jwks.json --apple-audience app.growfolio.bench \
  --ws-heartbeat 3600 2>"$WORK/stderr" &
PID=$!
for _ in $(seq 1 600); do grep -q '^sentio serve: listening on ' "$WORK/stderr" && grep -q 'listening on ' "$WORK/ceiling-stderr" && break; sleep 0.1; done
URL="$(sed -n 's/^sentio serve: listening on //p' "$WORK/stderr" | head -1)"
CEILING="$(sed -n 's/^sentio-dev ceiling: listening on //p' "$WORK/ceiling-stderr" | head -1)"
[ -n "$URL" ] && [ -n "$CEILING" ] || { echo "a server did not start"; cat "$WORK/stderr" "$WORK/ceiling-stderr"; exit 1; }
# The replay (--speed max) is done when the newest signal stops changing.
last=""; for _ in $(seq 1 600); do
  now="$(curl -sf -D - -o /dev/null "$URL/api/v1/signals" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')"
  [ -n "$now" ] && [ "$now" = "$last" ] && break; last="$now"; sleep 0.5
done
echo "== machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); build: $BIN; store: $STORE ($(stat -f -c %T "$STORE"))"
if part http; then
# The encoded body is cached: two GETs give the same ETag and the second is a cache hit.
e1="$(curl -sf -D - -o /dev/null "$URL/api/v1/signals" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')"
e2="$(curl -sf -D - -o /dev/null "$URL/api/v1/signals" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')"
echo "== GET /api/v1/signals: $(curl -sf "$URL/api/v1/signals" | wc -c) bytes, ETag $e1 then $e2"
echo "== wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency: ceiling (constant Hummingbird route)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$CEILING/constant" | tee "$WORK/ceiling.txt"
echo "== wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency: GET /api/v1/signals"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$URL/api/v1/signals" | tee "$WORK/signals.txt"
c=$(awk '/Requests\/sec/ {print $2}' "$WORK/ceiling.txt"); s=$(awk '/Requests\/sec/ {print $2}' "$WORK/signals.txt")
cp99=$(awk '$1 == "99%" {print $2}' "$WORK/ceiling.txt"); sp99=$(awk '$1 == "99%" {print $2}' "$WORK/signals.txt")
echo "== ceiling $c req/s (p99 $cp99); signals $s req/s (p99 $sp99); signals / ceiling = $(python3 -c "print(round($s/$c, 3))")"
# Only the server's own responses count: the 2xx in the wrk run (non-2xx would be listed by wrk).
if grep -q "Non-2xx" "$WORK/signals.txt"; then echo "!! non-2xx responses in the signals run"; fi
# The concurrency sweep: at each level the ceiling, then signals, same settings; p99 beside p99.
echo "== sweep: wrk -t$SWEEP_THREADS -cN -d$SWEEP_DURATION --latency, N in $SWEEP (load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| connections | ceiling req/s | ceiling p99 | signals req/s | signals p99 | signals / ceiling | signals p99 < 5 ms |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for n in $SWEEP; do
  wrk -t"$SWEEP_THREADS" -c"$n" -d"$SWEEP_DURATION" --latency "$CEILING/constant" > "$WORK/c$n.txt"
  wrk -t"$SWEEP_THREADS" -c"$n" -d"$SWEEP_DURATION" --latency "$URL/api/v1/signals" > "$WORK/s$n.txt"
  if grep -q "Non-2xx" "$WORK/s$n.txt"; then echo "!! non-2xx responses in the signals run at $n connections"; fi
  python3 - "$n" "$WORK/c$n.txt" "$WORK/s$n.txt" <<'PY'
import re, sys
def read(path):
    text = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
    return rps, float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]
(c, cp), (s, sp) = read(sys.argv[2]), read(sys.argv[3])
print(f"| {sys.argv[1]} | {c:,.0f} | {cp:.2f} ms | {s:,.0f} | {sp:.2f} ms | {s / c:.2f} | {'yes' if sp < 5 else 'no'} |")
PY
done
fi
# ROUNDS=0: the HTTP part only.
[ "$ROUNDS" -gt 0 ] || exit 0
if part signals; then
  timeout $((ROUNDS * 10 + 120)) "$SENTIO_DEV" ws-load --url "$URL" --pid "$PID" --clients "$CLIENTS" --steps "$ROUNDS"
fi
# 3. The investing app's WebSocket: CLIENTS sockets of one signed-in investor on /api/v1/ws, each subscribed to
#    TQQQ quotes; per round one new step POSTed; time to the last client's quote_updated (heartbeats off: 3600 s).
#    The server's part from /metrics, over the rounds: mean time of the live session's and brokerage's one commit,
#    of the fan-out (encoding and queueing on every socket) and of the encoding alone.
if part investing; then
  APPLE="$(bash Tests/SentioServerTests/apple-test-token.sh bench-investor app.growfolio.bench)"
  curl -sf -X POST -H 'Content-Type: application/json' -d "{\"identity_token\":\"$APPLE\"}" "$URL/api/v1/auth/token" >/dev/null
  curl -sf "$URL/metrics" > "$WORK/metrics-before"
  echo "== investing rounds: load average before $(cut -d' ' -f1-3 /proc/loadavg)"
  # The server's fsync calls over the rounds (perf's syscall tracepoints, if perf is there and allowed).
  PERF=""
  if command -v perf >/dev/null && perf stat -e syscalls:sys_enter_fsync -o /dev/null -- true 2>/dev/null; then
    perf stat -e syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync -p "$PID" -o "$WORK/fsyncs" &
    PERF=$!
  fi
  timeout $((ROUNDS * 10 + 120)) "$SENTIO_DEV" ws-load --url "$URL" --pid "$PID" --clients "$CLIENTS" --steps "$ROUNDS" \
    --investing-token "$APPLE"
  echo "== investing rounds: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "$PERF" ]; then
    kill -INT "$PERF"; wait "$PERF" || true
    echo "== the server's fsync calls over the $ROUNDS rounds: $(awk '/sys_enter_fsync/ {print $1}' "$WORK/fsyncs") fsync, $(awk '/sys_enter_fdatasync/ {print $1}' "$WORK/fsyncs") fdatasync"
  fi
  curl -sf "$URL/metrics" > "$WORK/metrics-after"
  python3 - "$WORK/metrics-before" "$WORK/metrics-after" <<'PY'
import re, sys
def read(path):
    values = {}
    for line in open(path):
        m = re.match(r"^(sentio_(?:journal_commit|investing_\w+?)_seconds_(?:sum|count))(?:\{\})? ([0-9.e+-]+)$", line.strip())
        if m: values[m.group(1)] = float(m.group(2))
    return values
a, b = read(sys.argv[1]), read(sys.argv[2])
for name in ["journal_commit", "investing_commit", "investing_fanout", "investing_encode"]:
    n = b.get(f"sentio_{name}_seconds_count", 0) - a.get(f"sentio_{name}_seconds_count", 0)
    total = b.get(f"sentio_{name}_seconds_sum", 0) - a.get(f"sentio_{name}_seconds_sum", 0)
    print(f"== /metrics over the rounds: sentio_{name}_seconds: {int(n)} batches, mean {total / n * 1000:.3f} ms" if n else f"== sentio_{name}_seconds: no batch")
PY
  echo "== server RSS at the end: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)"
fi
part signalr || exit 0
timeout $((ROUNDS * 10 + 300)) "$SENTIO_DEV" signalr-load --url "$URL" --pid "$PID" --clients "$CLIENTS" --families "$FAMILIES" --steps "$ROUNDS"
echo "== server RSS at the end: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)"
