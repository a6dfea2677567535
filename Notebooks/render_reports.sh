#!/usr/bin/env bash
# Renders the two sample HTML reports and screenshots them with headless Chromium (Debian's `chromium`):
#   sentio backtest --report ...            (Sentio strategy on Data/market)
#   sentio fund Data/funds/events.csv ... --report ...
# Writes Notebooks/images/{backtest,fund}-report.{html,png} and backtest-report-dark.png. Environment: SENTIO_BINARY, CHROMIUM.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

sentio=${SENTIO_BINARY:-}
if [[ -z $sentio ]]; then
    for candidate in .build/release/sentio .build/debug/sentio; do
        if [[ -x $candidate ]]; then sentio=$root/$candidate; break; fi
    done
fi
if [[ -z $sentio ]]; then swift build --product sentio; sentio=$root/.build/debug/sentio; fi
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [[ -z $chromium ]]; then echo "chromium not found: apt-get install -y chromium" >&2; exit 1; fi

out=Notebooks/images
mkdir -p $out
"$sentio" backtest --report $out/backtest-report.html --format json > /dev/null
"$sentio" fund Data/funds/events.csv --meta Data/funds/funds.csv --index Data/funds/index.csv \
    --report $out/fund-report.html --format json > /dev/null

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for name in backtest fund; do
    "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
        --force-device-scale-factor=1 --window-size=1280,3500 \
        --screenshot="$root/$out/$name-report.png" "file://$root/$out/$name-report.html" 2> /dev/null
    echo "$out/$name-report.png: $(stat -c %s $out/$name-report.png) bytes"
done
# The dark variant (prefers-color-scheme: dark), top of the backtest report.
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" --force-dark-mode \
    --force-device-scale-factor=1 --window-size=1280,1000 \
    --screenshot="$root/$out/backtest-report-dark.png" "file://$root/$out/backtest-report.html" 2> /dev/null
echo "$out/backtest-report-dark.png: $(stat -c %s $out/backtest-report-dark.png) bytes"
