#!/usr/bin/env bash
# Fuzzes a live `sentio serve` on loopback against its own OpenAPI document with schemathesis (PyPI, pinned).
# Every response is checked against the document (status documented, body schema, content type) and no
# request may give a 5xx. Usage: Tests/SentioServerTests/schemathesis.sh [SENTIO_BINARY]
# Needs: python3 with pip; a built `sentio` (default .build/debug/sentio).
set -euo pipefail
cd "$(dirname "$0")/../.."
SENTIO="${1:-${SENTIO_BINARY:-.build/debug/sentio}}"
VENV="$(pwd)/${SCHEMATHESIS_VENV:-.build-schemathesis}"
if [ ! -x "$VENV/bin/st" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "schemathesis==4.32.5"
fi
WORK="$(mktemp -d)"
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
# Tokens for the fuzzer: the ingestion token, and an ADMIN account created with `sentio users add` whose token comes
# from logging in (POST /api/auth/callback/credentials), as the app gets one.
export SENTIO_INGEST_TOKEN="schemathesis-ingest"
export SENTIO_JWT_SECRET="schemathesis-secret-0123456789abcdef"
mkdir -p "$WORK/mail"
printf 'schemathesis admin password\n' | "$SENTIO" users add admin@example.com --role ADMIN --password-stdin --db "$WORK/store.sqlite" >/dev/null
# And a USER with no fund: its dashboard is the empty one (portfolioTvpi 0.0, portfolioTvpiDefined false).
printf 'schemathesis empty password\n' | "$SENTIO" users add empty@example.com --role USER --password-stdin --db "$WORK/store.sqlite" >/dev/null
"$SENTIO" serve --db "$WORK/store.sqlite" --port 0 --replay Data/market --speed max --rate-limit 0 \
  --funds Data/funds/events.csv --fund-metadata Data/funds/funds.csv \
  --holdings Data/funds/holdings.csv --prices Data/crypto --mail-dir "$WORK/mail" \
  --apple-jwks Tests/Fixtures/investing/apple-test-jwks.json --apple-audience app.growfolio.schemathesis 2>"$WORK/stderr" &
PID=$!
for _ in $(seq 1 600); do
  if grep -q '^sentio serve: listening on ' "$WORK/stderr"; then break; fi
  kill -0 "$PID" 2>/dev/null || { cat "$WORK/stderr"; exit 1; }
  sleep 0.1
done
URL="$(sed -n 's/^sentio serve: listening on //p' "$WORK/stderr" | head -1)"
[ -n "$URL" ] || { echo "sentio serve never became ready"; cat "$WORK/stderr"; exit 1; }
JWT="$(curl -sf -X POST -H 'Content-Type: application/json' \
  -d '{"email":"admin@example.com","password":"schemathesis admin password"}' "$URL/api/auth/callback/credentials" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"
EMPTY_JWT="$(curl -sf -X POST -H 'Content-Type: application/json' \
  -d '{"email":"empty@example.com","password":"schemathesis empty password"}' "$URL/api/auth/callback/credentials" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"
# The investing app: an Apple identity token signed with the test key (apple-test-token.sh), a sign-in, a deposit
# and a schedule, so that its endpoints have data.
APPLE="$(bash Tests/SentioServerTests/apple-test-token.sh schemathesis-investor app.growfolio.schemathesis)"
curl -sf -X POST -H 'Content-Type: application/json' -d "{\"identity_token\":\"$APPLE\",\"user_first_name\":\"Schema\"}" "$URL/api/v1/auth/token" >/dev/null
curl -sf -X POST -H "Authorization: Bearer $APPLE" -H 'Content-Type: application/json' \
  -d '{"direction":"INCOMING","amount":"1000","currency":"GBP"}' "$URL/api/v1/transfers" >/dev/null
curl -sf -X POST -H "Authorization: Bearer $APPLE" -H 'Content-Type: application/json' \
  -d '{"symbol":"TQQQ","amount_gbp":"100","every":"month","start":"2020-01-01"}' "$URL/api/v1/dca/schedules" >/dev/null
# Let the replay finish so that every endpoint has data.
for _ in $(seq 1 600); do
  curl -sf "$URL/api/v1/trades" >/dev/null && break
  sleep 0.1
done
# Ingestion with its own token (positive_data_acceptance excluded there: a bar's cross-field rules, high >= low
# and so on, are not expressible in JSON Schema, so schema-valid bars may rightly be 400), then everything else with the ADMIN JWT (run in $WORK: schemathesis leaves a cache dir).
cd "$WORK"
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  --include-path /api/v1/bars \
  --exclude-checks positive_data_acceptance \
  --header "Authorization: Bearer $SENTIO_INGEST_TOKEN" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
# The account endpoints whose schema-valid requests may rightly be refused (a token or invitation that does not exist,
# a password too weak, an email that is not one, uploads while the portal reads --funds FILE) run apart, without
# positive_data_acceptance; everything else with all checks.
ACCOUNT_POSTS=(/api/auth/callback/credentials /api/register /api/auth/request-password-reset /api/auth/reset-password
  /api/admin/invitations /api/admin/funds/{id}/events)
# The allowance app's endpoints run apart with a parent's token (a family member's; the ADMIN belongs to no family),
# without positive_data_acceptance: schema-valid ids of children and goals that do not exist are rightly 404.
ALLOWANCE_PATHS=(/api/v1/auth/register /api/v1/auth/login /api/v1/children /api/v1/families/current /api/v1/transactions
  /api/v1/transactions/categories /api/v1/transactions/children/{childId} /api/v1/children/{id}/pay-allowance
  /api/v1/dashboard/parent /api/v1/dashboard/child /api/v1/analytics/spending /api/v1/goals /api/v1/goals/{id}/progress
  /hubs/family/negotiate)
EXCLUDES=(--exclude-path /hubs/family)
# The investing app's endpoints take an Apple identity token: they run apart with it (below).
INVESTING=(/api/v1/auth/token /api/v1/account /api/v1/positions /api/v1/orders /api/v1/transfers /api/v1/dca/schedules
  /api/v1/dca/schedules/{id} /api/v1/positions/{symbol})
INCLUDES=()
ALLOWANCE_INCLUDES=()
for p in "${ACCOUNT_POSTS[@]}"; do EXCLUDES+=(--exclude-path "$p"); INCLUDES+=(--include-path "$p"); done
for p in "${ALLOWANCE_PATHS[@]}"; do EXCLUDES+=(--exclude-path "$p"); ALLOWANCE_INCLUDES+=(--include-path "$p"); done
INVESTING_EXCLUDES=()
for p in "${INVESTING[@]}"; do INVESTING_EXCLUDES+=(--exclude-path "$p"); done
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  --exclude-path /ws/signals \
  --exclude-path /api/v1/ws \
  --exclude-path /api/v1/bars \
  "${EXCLUDES[@]}" \
  "${INVESTING_EXCLUDES[@]}" \
  --header "Authorization: Bearer $JWT" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  "${INCLUDES[@]}" \
  --exclude-checks positive_data_acceptance \
  --header "Authorization: Bearer $JWT" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
PARENT_JWT="$(curl -sf -X POST -H 'Content-Type: application/json' \
  -d '{"email":"parent@example.com","password":"schemathesis parent password","firstName":"Pat","lastName":"Doe","familyName":"Doe"}' \
  "$URL/api/v1/auth/register" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"
curl -sf -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $PARENT_JWT" \
  -d '{"firstName":"Kim","lastName":"Doe","email":"kim@example.com","password":"schemathesis child password","weeklyAllowance":5}' \
  "$URL/api/v1/children" >/dev/null
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  "${ALLOWANCE_INCLUDES[@]}" \
  --exclude-checks positive_data_acceptance \
  --header "Authorization: Bearer $PARENT_JWT" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
# The investor without funds: its empty dashboard and fund list against the same schemas.
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  --include-path /api/dashboard \
  --include-path /api/funds \
  --header "Authorization: Bearer $EMPTY_JWT" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
# The investing app with the investor's Apple identity token: the reads and the deletion with all checks; the
# writes (a schema-valid deposit, withdrawal, schedule or sale may rightly be refused: an amount of 0, more than the
# cash or the position, an empty symbol; a sign-in token that does not verify) without positive_data_acceptance.
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  --include-path /api/v1/account \
  --include-path /api/v1/positions \
  --include-path /api/v1/orders \
  --include-path /api/v1/dca/schedules/{id} \
  --header "Authorization: Bearer $APPLE" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
"$VENV/bin/st" run "$URL/openapi.json" \
  --checks all \
  --include-path /api/v1/auth/token \
  --include-path /api/v1/transfers \
  --include-path /api/v1/dca/schedules \
  --include-path /api/v1/positions/{symbol} \
  --exclude-checks positive_data_acceptance \
  --header "Authorization: Bearer $APPLE" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-50}" \
  --seed 1 \
  --no-color
