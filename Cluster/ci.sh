#!/usr/bin/env bash
# CI check of the Ray driver (called by .ci/run): a local Ray cluster of two nodes on this machine (a head and a
# worker, one CPU each, bound to 127.0.0.1), the driver on a small grid over a small generated market, and:
#   1. the merged result (json and csv) equals the single-process `sentio sweep` byte for byte, while one shard's
#      first attempt fails (exit 1) and is retried by Ray;
#   2. a shard that fails for good (bad input: exit 2) makes the driver exit non-zero naming the shard and the
#      sentio error.
# Ray is always stopped (trap). About a minute on a 2-core machine after the venv exists (first install ~40 s).
#
#   bash Cluster/ci.sh [--sentio PATH]   (default: the debug build, built if missing)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
python="${PYTHON:-python3}"
sentio=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sentio) sentio="$2"; shift 2 ;;
        *) echo "ci.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

# 1. The pinned driver environment (reinstalled when requirements.txt changes).
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    echo "== installing the pinned Ray driver requirements" >&2
    "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
    echo "$wanted" > "$stamp"
fi

if [[ -z "$sentio" ]]; then
    (cd "$root" && swift build --product sentio >&2)
    sentio="$(cd "$root" && swift build --show-bin-path)/sentio"
fi

work="$(mktemp -d)"
head_pid=""
worker_pid=""
stop_ray() {
    # `ray start --block` shuts its node down on SIGTERM (draining up to 30 s); give it a few seconds, then kill
    # what is left of each process group started here (each node was started in a session of its own).
    local pids=()
    [[ -n "$worker_pid" ]] && pids+=("$worker_pid")
    [[ -n "$head_pid" ]] && pids+=("$head_pid")
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
    for _ in 1 2 3 4 5; do
        local alive=0
        for pid in "${pids[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
        [[ $alive == 0 ]] && break
        sleep 1
    done
    for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap stop_ray EXIT

export RAY_USAGE_STATS_ENABLED=0
# Token authentication with a token of this run only (not ~/.ray/auth_token).
export RAY_AUTH_MODE=token
export RAY_AUTH_TOKEN_PATH="$work/auth_token"
"$venv/bin/python" -c "import secrets; print(secrets.token_hex(32), end='')" > "$RAY_AUTH_TOKEN_PATH"
port="$("$venv/bin/python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")"
address="127.0.0.1:$port"
ray="$venv/bin/ray"

# A small market: 3 symbols x 3,000 minute bars (deterministic).
"$sentio" generate --symbols 3 --bars 3000 --freq minute --seed 16 --out "$work/market" >/dev/null
grid='rsi-period=7,14,21;rsi-lower=20,30;rsi-upper=70,80'
sweep=("$work/market" --strategy rsi --grid "$grid" --sizing all-in --metric sharpe)

echo "== starting a local Ray cluster (head + 1 worker node) at $address" >&2
setsid "$ray" start --head --block --node-ip-address 127.0.0.1 --port "$port" --num-cpus 1 \
    --include-dashboard=false --disable-usage-stats --temp-dir "$work/ray" > "$work/head.log" 2>&1 &
head_pid=$!
disown "$head_pid"
wait_for_nodes() {
    local want="$1"
    for _ in $(seq 1 60); do
        if timeout 30 "$venv/bin/python" - "$address" "$want" > /dev/null 2>&1 <<'EOF'
import logging, sys, ray
ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)
alive = sum(1 for n in ray.nodes() if n["Alive"])
sys.exit(0 if alive >= int(sys.argv[2]) else 1)
EOF
        then return 0; fi
        sleep 1
    done
    echo "ci.sh: the Ray cluster did not reach $want node(s); head log:" >&2
    tail -20 "$work/head.log" >&2
    return 1
}
wait_for_nodes 1
setsid "$ray" start --block --address "$address" --node-ip-address 127.0.0.1 --num-cpus 1 \
    --disable-usage-stats > "$work/worker.log" 2>&1 &
worker_pid=$!
disown "$worker_pid"
wait_for_nodes 2

passed=0
# The reference: the single-process sweep, in each format.
"$sentio" sweep "${sweep[@]}" --format json --output "$work/single.json"
"$sentio" sweep "${sweep[@]}" --format csv --output "$work/single.csv"

# A sentio that fails the first attempt of shard 2 (exit 1, as an internal error would): Ray must retry it.
cat > "$work/flaky-sentio" <<EOF
#!/usr/bin/env bash
for argument in "\$@"; do
    if [[ "\$argument" == 2/* && ! -e "$work/failed-once" ]]; then
        touch "$work/failed-once"
        echo "flaky-sentio: injected failure" >&2
        exit 1
    fi
done
exec "$sentio" "\$@"
EOF
chmod +x "$work/flaky-sentio"

echo "== driver: 5 shards over 2 nodes, shard 2 failing once" >&2
"$venv/bin/python" "$here/sweep_ray.py" --address "$address" --sentio "$work/flaky-sentio" --merge-sentio "$sentio" \
    --shards 5 --max-retries 2 --format json --output "$work/ray.json" --keep-shards "$work/shards" \
    -- "${sweep[@]}"
[[ -e "$work/failed-once" ]] || { echo "ci.sh: FAIL: the injected failure did not happen" >&2; exit 1; }
cmp "$work/single.json" "$work/ray.json" || { echo "ci.sh: FAIL: merged json differs from the single-process sweep" >&2; exit 1; }
passed=$((passed + 1))
"$sentio" sweep merge "$work"/shards/*.json --format csv --output "$work/ray.csv"
cmp "$work/single.csv" "$work/ray.csv" || { echo "ci.sh: FAIL: merged csv differs from the single-process sweep" >&2; exit 1; }
passed=$((passed + 1))

echo "== driver: a grid name sentio rejects (every shard fails with exit 2, not retried)" >&2
set +e
"$venv/bin/python" "$here/sweep_ray.py" --address "$address" --sentio "$sentio" --shards 2 --max-retries 2 \
    --output "$work/bad.json" -- "$work/market" --strategy rsi --grid 'no-such-option=1,2' 2> "$work/bad.err"
status=$?
set -e
if [[ $status == 0 ]] || ! grep -q "shard [12]/2 failed: sentio exited 2" "$work/bad.err" \
        || ! grep -q "no-such-option" "$work/bad.err" || [[ -e "$work/bad.json" ]]; then
    echo "ci.sh: FAIL: a failing shard must exit non-zero naming the shard and sentio's error (status $status):" >&2
    cat "$work/bad.err" >&2
    exit 1
fi
passed=$((passed + 1))

echo "cluster: $passed passed, 0 failed"
