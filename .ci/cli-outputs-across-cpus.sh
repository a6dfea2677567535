#!/usr/bin/env bash
# The same bits on every x86-64 CPU (issue 28): runs the CLI's published outputs on the bundled sample data under
# every OpenBLAS kernel family (OPENBLAS_CORETYPE) and with glibc's FMA/AVX2 variants of exp/log/pow switched off
# (GLIBC_TUNABLES), compares every output byte for byte with the run under the machine's own detection, and runs
# the golden and contract suites (SentioAPITests) under each kernel family. Needs a build of the tests
# (`swift test` or `swift build --build-tests`) first; builds nothing itself.
#
#   bash .ci/cli-outputs-across-cpus.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(swift build --show-bin-path)"
sentio="$bin/sentio"
[ -x "$sentio" ] || { echo "error: $sentio is missing: run swift build --build-tests first" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Every command prints what the apps and users read; the live run journals into a fresh store each time.
run_outputs() {
  local out="$1"
  mkdir -p "$out"
  "$sentio" signals Data/market --format json > "$out/signals.json"
  "$sentio" backtest Data/market --format json > "$out/backtest-sentio.json"
  "$sentio" backtest Data/market --strategy rsi --format json > "$out/backtest-rsi.json"
  "$sentio" backtest Data/market --symbols TQQQ,SQQQ --strategy dca --currency GBP --fx Data/fx/GBPUSD.csv --format json > "$out/backtest-dca-gbp.json"
  "$sentio" evaluate Data/market --format json > "$out/evaluate.json"
  "$sentio" indicators Data/market/TQQQ.csv > "$out/indicators-TQQQ.csv"
  "$sentio" fund Data/funds/events.csv --meta Data/funds/funds.csv --view dashboard > "$out/fund-dashboard.txt"
  "$sentio" xirr "$work/30-47.csv" --format json > "$out/xirr-30-47.json"
  "$sentio" generate --symbols 2 --bars 400 --freq minute --format ndjson \
    | "$sentio" live --db "$work/live.sqlite" --symbols TQQQ,SQQQ > "$out/live.ndjson" 2> "$out/live.stderr"
  rm -f "$work/live.sqlite" "$work/live.sqlite-wal" "$work/live.sqlite-shm"
}

# pyxirr's ill-conditioned case (a root certified by a sign change), with the header `sentio xirr` reads.
{ echo "date,amount"; cat Tests/Fixtures/funds/pyxirr_samples/30-47.csv; } > "$work/30-47.csv"

run_outputs "$work/native"
failed=0
variants=(Prescott Nehalem Sandybridge Haswell SkylakeX Zen glibc-no-fma)
for variant in "${variants[@]}"; do
  if [ "$variant" = glibc-no-fma ]; then
    GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F run_outputs "$work/$variant"
  else
    OPENBLAS_CORETYPE="$variant" run_outputs "$work/$variant"
  fi
  same=0 differ=0
  for file in "$work/native"/*; do
    name="$(basename "$file")"
    if cmp -s "$file" "$work/$variant/$name"; then
      same=$((same + 1))
    else
      echo "error: $name differs under $variant from the native run" >&2
      differ=$((differ + 1))
      failed=1
    fi
  done
  echo "$variant: $same outputs identical to the native run, $differ differ" >&2
done

# The golden and contract suites (byte-for-byte goldens of every app contract) under each kernel family.
for variant in Prescott Nehalem Sandybridge Haswell SkylakeX Zen; do
  echo "== SentioAPITests with OPENBLAS_CORETYPE=$variant" >&2
  OPENBLAS_CORETYPE="$variant" swift test --skip-build --filter 'SentioAPITests' > "$work/tests-$variant.log" 2>&1 \
    || { tail -40 "$work/tests-$variant.log" >&2; failed=1; }
done
exit $failed
