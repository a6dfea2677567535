#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer and runs both side by side.
#   bash Tests/Fuzz/run-libfuzzer.sh [SECONDS]     (default 1800 each; both run at once, one core each)
# Findings are written to Tests/Fuzz/findings/<target>-crash-<hash>; the corpora grow in Tests/Fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-1800}"
scratch=../../.build-fuzz
# `--sanitize=fuzzer` makes SwiftPM link libFuzzer's main; the combined -sanitize=fuzzer,address is what gives
# coverage: two separate -sanitize= flags (SwiftPM's --sanitize=fuzzer --sanitize=address) keep only the last.
swift build --scratch-path "$scratch" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
mkdir -p corpus/ohlcv corpus/funds findings
for f in ../../Data/market/*.csv; do head -40 "$f" > "corpus/ohlcv/seed-$(basename "$f")"; done
{ printf '\x00'; printf 'date,amount\n2020-01-01,-100\n2021-01-01,50\n2022-01-01,70\n'; } > corpus/funds/seed-flows
{ printf '\x01'; head -30 ../../Data/funds/events.csv; } > corpus/funds/seed-events
{ printf '\x02'; cat ../../Data/funds/funds.csv; } > corpus/funds/seed-meta
{ printf '\x03'; head -30 ../../Data/funds/index.csv; } > corpus/funds/seed-index
export SWIFT_BACKTRACE=enable=no   # let AddressSanitizer and libFuzzer report, not the Swift backtracer
flags=(-max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1)
"$scratch/debug/FuzzOHLCVReader" corpus/ohlcv "${flags[@]}" -artifact_prefix=findings/ohlcv- > findings/ohlcv.log 2>&1 &
"$scratch/debug/FuzzFundReaders" corpus/funds "${flags[@]}" -artifact_prefix=findings/funds- > findings/funds.log 2>&1 &
status=0
wait -n || status=1
wait -n || status=1
for t in ohlcv funds; do
  echo "== $t"; grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs|fuzz finding|ERROR" "findings/$t.log" || true
done
exit $status
