#!/usr/bin/env bash
# Creates the notebook environment (Notebooks/.venv, pinned by requirements.txt), makes sure a `sentio`
# binary exists, and executes every notebook headlessly. Fails on the first error in any cell.
#   bash Notebooks/run.sh              # executed copies go to Notebooks/.out/
#   bash Notebooks/run.sh --in-place   # refresh the committed notebooks' outputs
# Environment: SENTIO_BINARY (use this binary), PYTHON (interpreter for the venv, default python3).
set -euo pipefail
cd "$(dirname "$0")"
started=$(date +%s)

venv=.venv
if [[ ! -x $venv/bin/python ]] || ! cmp -s requirements.txt $venv/requirements.installed; then
    echo "== creating $PWD/$venv"
    rm -rf $venv
    "${PYTHON:-python3}" -m venv $venv
    $venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
    cp requirements.txt $venv/requirements.installed
fi

if [[ -z ${SENTIO_BINARY:-} && ! -x ../.build/release/sentio && ! -x ../.build/debug/sentio ]]; then
    echo "== building sentio (debug)"
    (cd .. && swift build --product sentio)
fi

# Notebooks named on the command line, else all of them; other arguments go to execute.py.
options=(); notebooks=()
for a in "$@"; do if [[ $a == *.ipynb ]]; then notebooks+=("$a"); else options+=("$a"); fi; done
(( ${#notebooks[@]} )) || notebooks=([0-9]*.ipynb)
echo "== executing ${notebooks[*]}"
$venv/bin/python execute.py ${options[@]+"${options[@]}"} "${notebooks[@]}"
echo "== notebooks done in $(( $(date +%s) - started )) s"
