#!/usr/bin/env bash
# Regenerates golden fixtures under Tests/Fixtures with the pinned reference libraries
# (what each folder holds: Tests/Fixtures/README.md).
#
#   bash Tests/Fixtures/regenerate.sh [--python PYTHON] [--venv DIR | --no-venv] FOLDER... | all
#
# FOLDER: indicators, signals, backtest, orders, funds, dca_fx, evaluate, market_files. "all" runs every one in that order (signals reads
# indicators/goog_ohlcv.csv). Each generator writes only into its own folder. Works from any directory.
#   --python PYTHON  the interpreter that creates the venvs (default: $PYTHON, else python3; 3.11 tested)
#   --venv DIR       where the venvs live (default: $FIXTURES_VENV, else Tests/Fixtures/.venv, git-ignored): one venv
#                    per pin file (the folder's own requirements.txt if it has one, else Tests/Fixtures/requirements.txt),
#                    reinstalled when the pin file changes
#   --no-venv        run the generators with PYTHON itself (it must already have the pinned packages)
# Afterwards `git diff --stat Tests/Fixtures` shows what changed; with the same pins nothing should.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
venv_root="${FIXTURES_VENV:-$here/.venv}"
use_venv=1
folders=()

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --python) [[ $# -ge 2 ]] || usage; python="$2"; shift 2 ;;
    --venv) [[ $# -ge 2 ]] || usage; venv_root="$2"; shift 2 ;;
    --no-venv) use_venv=0; shift ;;
    -h|--help) usage ;;
    all) folders+=(indicators signals backtest orders funds dca_fx evaluate market_files); shift ;;
    indicators|signals|backtest|orders|funds|dca_fx|evaluate|market_files) folders+=("${1%/}"); shift ;;
    *) echo "unknown folder or option: $1" >&2; usage ;;
  esac
done
[[ ${#folders[@]} -gt 0 ]] || usage

# The interpreter for one folder: a venv built from its pin file, or PYTHON itself with --no-venv.
interpreter_for() {
  local folder="$1" pins name venv
  if [[ $use_venv = 0 ]]; then echo "$python"; return; fi
  if [[ -f "$here/$folder/requirements.txt" ]]; then
    pins="$here/$folder/requirements.txt"; name="$folder"
  else
    pins="$here/requirements.txt"; name="shared"
  fi
  venv="$venv_root/$name"
  if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$pins" "$venv/requirements.installed"; then
    echo "== creating $venv from ${pins#$root/}" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$pins" >&2
    cp "$pins" "$venv/requirements.installed"
  fi
  echo "$venv/bin/python"
}

cd "$root"
for folder in "${folders[@]}"; do
  interpreter="$(interpreter_for "$folder")"
  echo "== $folder: $interpreter Tests/Fixtures/$folder/generate_$folder.py" >&2
  "$interpreter" "Tests/Fixtures/$folder/generate_$folder.py"
done
