#!/usr/bin/env bash
# Parameter sweep head-to-head (issue 16), in one command: `sentio sweep` against vectorbt 1.2.0 on the 27-combination
# RSI grid over 12 symbols x 200,000 minute bars, and the Ray driver (Cluster/sweep_ray.py) with 1 and 2 worker
# processes on this machine. Wall time and peak RSS of each side; agreement per combination.
#
#   Benchmarks/compare/run-sweep.sh [--bars N] [--skip-ray] [--output FILE.json] [--python PYTHON]
#
# 1. creates Benchmarks/compare/.venv (requirements.txt, vectorbt 1.2.0 pinned) and Cluster/.venv
#    (Cluster/requirements.txt, Ray pinned), each reinstalled when its requirements change,
# 2. builds `sentio` in release,
# 3. runs sweep_vs_vectorbt.py: prints the table, writes Benchmarks/compare/results-sweep.json.
# About 5-10 minutes on a 2-core machine (vectorbt's first JIT compilation is most of it), plus the installs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --python) python="$2"; shift 2 ;;
        --bars) args+=(--bars "$2"); shift 2 ;;
        --skip-ray) args+=(--skip-ray); shift ;;
        --output) args+=(--output "$2"); shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-sweep.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

venv_for() {  # venv_for DIR REQUIREMENTS
    local venv="$1/.venv" requirements="$2"
    local stamp="$venv/.requirements.sha256" wanted
    wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
    [[ -x "$venv/bin/python" ]] || "$python" -m venv "$venv"
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        echo "== installing $requirements" >&2
        "$venv/bin/pip" install --quiet -r "$requirements"
        echo "$wanted" > "$stamp"
    fi
}
venv_for "$here" "$here/requirements.txt"
venv_for "$root/Cluster" "$root/Cluster/requirements.txt"

echo "== building sentio (release)" >&2
(cd "$root" && swift build -c release --product sentio >&2)
sentio="$(cd "$root" && swift build -c release --show-bin-path)/sentio"

export PYTHONWARNINGS="ignore"
exec "$here/.venv/bin/python" "$here/sweep_vs_vectorbt.py" --sentio "$sentio" --work "$here/work" "${args[@]}"
