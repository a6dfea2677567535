#!/usr/bin/env bash
# Prints a Sign in with Apple identity token for tests and benchmarks: RS256, signed by openssl with the test key
# (Tests/Fixtures/investing/apple-test-key.pem, kid test-key-1: the JWKS apple-test-jwks.json beside it).
# Usage: Tests/SentioServerTests/apple-test-token.sh SUB AUDIENCE [SECONDS_VALID (default 86400)]
set -euo pipefail
cd "$(dirname "$0")/../.."
SUB="$1"; AUDIENCE="$2"; VALID="${3:-86400}"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
NOW="$(date +%s)"
HEADER="$(printf '{"alg":"RS256","kid":"test-key-1","typ":"JWT"}' | b64url)"
PAYLOAD="$(printf '{"iss":"https://appleid.apple.com","aud":"%s","sub":"%s","iat":%s,"exp":%s}' "$AUDIENCE" "$SUB" "$NOW" "$((NOW + VALID))" | b64url)"
SIGNATURE="$(printf '%s.%s' "$HEADER" "$PAYLOAD" | openssl dgst -sha256 -sign Tests/Fixtures/investing/apple-test-key.pem | b64url)"
printf '%s.%s.%s\n' "$HEADER" "$PAYLOAD" "$SIGNATURE"
