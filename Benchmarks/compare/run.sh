#!/usr/bin/env bash
# Head-to-head benchmarks of Sentio against its Python peers, in one command:
#
#   Benchmarks/compare/run.sh [--quick] [--only csv,rsi,...] [--update] [--output FILE.json] [--python PYTHON]
#
# 1. creates Benchmarks/compare/.venv with the pinned peers (requirements.txt; reinstalled when it changes),
# 2. builds `sentio` and `sentio-dev` (the allocation counter) in release,
# 3. generates the shared inputs with `sentio generate` into Benchmarks/compare/work (once, reused),
# 4. runs every workload on both sides (compare.py) and prints the table; writes Benchmarks/compare/results.json.
#
# Full run: about 10-15 minutes on a 2-core machine (plus the first venv install and release build);
# --quick: smaller sizes, a few minutes. --only runs some workloads; with --update the other rows of the previous
# results.json are kept (each row records when it was measured); --only windowed runs the windowed-statistics family
# (volume-ratio, sma, rolling-std), --only many the several-series kernels, --only talib-all every TA-Lib function in
# both shapes (1 x 10M, 12 x 1M; sentio-dev ta-bench --serve, about 13 minutes). Needs python3 (3.11 tested) with venv, Swift 6.x, and the system
# libraries of the main package (libopenblas-dev liblapacke-dev libsqlite3-dev); TA-Lib's wheel bundles its C library.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --python) python="$2"; shift 2 ;;
        --quick) args+=(--quick); shift ;;
        --only) args+=(--only "$2"); shift 2 ;;
        --update) args+=(--update); shift ;;
        --output) args+=(--output "$2"); shift 2 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

venv="$here/.venv"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" ]]; then
    echo "== creating $venv" >&2
    "$python" -m venv "$venv"
fi
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    echo "== installing the pinned peers" >&2
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
    echo "$wanted" > "$stamp"
fi

echo "== building sentio and sentio-dev (release)" >&2
(cd "$root" && swift build -c release --product sentio >&2 && swift build -c release --product sentio-dev >&2)
bin="$(cd "$root" && swift build -c release --show-bin-path)"
sentio="$bin/sentio"

export PYTHONWARNINGS="ignore"
exec "$venv/bin/python" "$here/compare.py" --sentio "$sentio" --sentio-dev "$bin/sentio-dev" --work "$here/work" "${args[@]}"
