#!/usr/bin/env bash
# The `sentio` command-line reference, generated from the CLI's own help by swift-argument-parser's
# generate-docc-reference plugin into the DocC catalog Sources/SentioCLI/SentioCLI.docc (sentio.md; built with
# the other catalogs by .ci/docs.sh).
#
#   bash .ci/cli-reference.sh           regenerate the reference (run after changing any command or option; commit it)
#   bash .ci/cli-reference.sh --check   regenerate and fail if the committed reference differs (CI)
#
# The plugin builds the package's executables in debug mode (reusing .build/debug) and runs each one that uses
# ArgumentParser with --experimental-dump-help; it writes Sources/<Target>/<Target>.docc/<command>.md.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  ""|--check) ;;
  *) echo "usage: bash .ci/cli-reference.sh [--check]" >&2; exit 2 ;;
esac

swift package --allow-writing-to-package-directory generate-docc-reference --configuration debug --style docc

if [ "$mode" = --check ]; then
  # The generated catalogs are the ones named after their target; Documentation.docc catalogs are written by hand.
  generated=()
  for dir in Sources/*/; do
    target="$(basename "$dir")"
    generated+=("Sources/$target/$target.docc")
  done
  changes="$(git status --porcelain --untracked-files=all -- "${generated[@]}")"
  if [ -n "$changes" ]; then
    git --no-pager diff -- "${generated[@]}" >&2
    echo "$changes" >&2
    echo "error: the generated CLI reference is out of date with the CLI's help." >&2
    echo "       Run \`bash .ci/cli-reference.sh\` and commit the files listed above (Sources/SentioCLI/SentioCLI.docc)." >&2
    exit 1
  fi
  echo "CLI reference is up to date."
fi
