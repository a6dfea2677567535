#!/usr/bin/env bash
# Runs the Growfolio minimal flow (growfolio_flow.py, the `websockets` package, pinned) against a server the caller
# started: Tests/SentioServerTests/growfolio-flow.sh BASE_URL INGEST_TOKEN KEY_PEM AUDIENCE
# The venv lives in .build-growfolio (made once, like schemathesis.sh's).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="$(pwd)/${GROWFOLIO_VENV:-.build-growfolio}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import websockets, jwt' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "websockets==15.0.1" "PyJWT==2.10.1" "cryptography==44.0.0"
fi
exec "$VENV/bin/python" -u Tests/SentioServerTests/growfolio_flow.py "$@"
