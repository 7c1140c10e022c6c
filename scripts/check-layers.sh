#!/usr/bin/env bash
# Checks that every #include "folder/..." in a layer's non-test code follows the arrows of
# docs/ARCHITECTURE.md ("Which way the arrows point"), including header-only includes the
# linker cannot catch. Prints each include against an arrow and exits 1 if there is one.
#   bash scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# layer -> the layers it may include (besides itself).
declare -A allowed=(
  [base]=""
  [store]="base"
  [github]="base"
  [decide]="base"
  [review]="base decide github"
  [act]="base decide github review store"
  [engine]="base decide act github store"
  [http]="base engine github"
  [admin]="base store github act engine http"
  [sim]="base github http"
  [app]="base store github decide review act engine http admin"
)

bad=0
for layer in base store github decide review act engine http admin sim app; do
  while IFS= read -r file; do
    while IFS= read -r line; do
      target=${line#*\"}
      target=${target%%/*}
      [ "$target" = "$layer" ] && continue
      if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
        echo "layer violation: $file includes \"${line#*\"} ($layer -> $target)"
        bad=1
      fi
    done < <(grep -E '^#include "[a-z_]+/' "$file" || true)
  done < <(find "$layer" \( -name '*.cc' -o -name '*.h' \) |
           grep -vE '_test\.cc$|_test_util\.h$|/test_client\.h$' | sort)
done
if [ "$bad" = 0 ]; then echo "layers: every include follows the arrows"; fi
exit "$bad"
