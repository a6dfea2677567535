#!/usr/bin/env bash
# Benchmarks of `sentio serve` (numbers for the closing note; not tests). Needs: wrk (Debian), python3 (venv with
# the pinned `websockets`), a release build of sentio (swift build -c release).
#  1. wrk, keep-alive, rate limit off: GET /api/v1/signals beside a minimal Hummingbird route returning a constant
#     body (the ceiling: `sentio-dev ceiling`, same build, same run).
#  2. 1,000 WebSocket clients: time from just before a bar is POSTed to each client's signal_update,
#     p50/p99/max over the last client per bar; server RSS with the clients connected.
# Usage: Benchmarks/serve/run.sh [SENTIO_BINARY]   (env: DURATION=10s CONNECTIONS=64 THREADS=2 CLIENTS=1000 BARS=20)
set -euo pipefail
cd "$(dirname "$0")/../.."
SENTIO="${1:-.build/release/sentio}"
SENTIO_DEV="${SENTIO_DEV:-$(dirname "$SENTIO")/sentio-dev}"
DURATION="${DURATION:-10s}"; CONNECTIONS="${CONNECTIONS:-64}"; THREADS="${THREADS:-2}"
WORK="$(mktemp -d)"
VENV="${BENCH_VENV:-.build-bench-venv}"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install --quiet "websockets==15.0.1"; }
trap 'kill "$PID" "$CPID" 2>/dev/null || true; wait "$PID" "$CPID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SENTIO_INGEST_TOKEN=bench-token
CEILING_PORT="${CEILING_PORT:-18181}"
"$SENTIO_DEV" ceiling --port "$CEILING_PORT" 2>"$WORK/ceiling-stderr" &
CPID=$!
"$SENTIO" serve --db "$WORK/store.sqlite" --port 0 --replay Data/market --speed max --rate-limit 0 \
  --ws-buffer 1024 2>"$WORK/stderr" &
PID=$!
for _ in $(seq 1 600); do grep -q '^sentio serve: listening on ' "$WORK/stderr" && break; sleep 0.1; done
URL="$(sed -n 's/^sentio serve: listening on //p' "$WORK/stderr" | head -1)"
for _ in $(seq 1 600); do curl -sf "$URL/api/v1/trades" >/dev/null && break; sleep 0.1; done
sleep 1
echo "== machine: $(nproc) cores; $(uname -r)"
echo "== wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency: ceiling (constant Hummingbird route)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "http://127.0.0.1:$CEILING_PORT/constant" | tee "$WORK/ceiling.txt"
echo "== wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency: GET /api/v1/signals"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$URL/api/v1/signals" | tee "$WORK/signals.txt"
c=$(awk '/Requests\/sec/ {print $2}' "$WORK/ceiling.txt"); s=$(awk '/Requests\/sec/ {print $2}' "$WORK/signals.txt")
echo "== signals / ceiling = $(python3 -c "print(round($s/$c, 3))")"
echo "== RSS before WebSocket clients: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)"
"$VENV/bin/python" Benchmarks/serve/ws_fanout.py "$URL" "$PID" "${CLIENTS:-1000}" "${BARS:-20}"
