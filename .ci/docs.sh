#!/usr/bin/env bash
# Builds the DocC documentation of every target that has a catalog (Sources/<Target>/*.docc) with warnings
# treated as errors, so a broken link, symbol reference or missing image fails CI. The archives land in
# .build/plugins/Swift-DocC/outputs/<Target>.doccarchive (preview one with
# `swift package --disable-sandbox preview-documentation --target <Target>`).
#
# Only public symbols are documented (executable targets would otherwise document their internal ones); a
# cross-module symbol link (``RollingMoments`` from SentioIndicators) does not resolve: write it in code voice
# (`RollingMoments`) or qualify it in prose.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=()
for catalog in Sources/*/*.docc; do
  [ -d "$catalog" ] && targets+=(--target "$(basename "$(dirname "$catalog")")")
done

# Images in a catalog that are copies of rendered sample outputs must match them.
stale=0
for image in Sources/*/*.docc/*.png; do
  [ -e "$image" ] || continue
  original="Notebooks/images/$(basename "$image")"
  if [ -e "$original" ] && ! cmp -s "$image" "$original"; then
    echo "error: $image differs from $original; copy it: cp $original $image" >&2
    stale=1
  fi
done
[ "$stale" = 0 ] || exit 1

swift package generate-documentation "${targets[@]}" \
  --symbol-graph-minimum-access-level public --warnings-as-errors
