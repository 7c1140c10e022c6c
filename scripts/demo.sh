#!/usr/bin/env bash
# The README's first command: sets everything up on a fresh Debian 12 machine, builds
# gatehouse and gatehouse-sim, and runs `gatehouse demo` — the whole product against a GitHub
# simulator on this machine (a fresh SQLite file, real HTTP on loopback, a fresh GitHub App key
# pair), ending with the invariant verdict:
#   bash scripts/demo.sh [demo options]      (bash scripts/demo.sh --help for them)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ >/dev/null
ninja -C build gatehouse gatehouse-sim
exec build/gatehouse demo "$@"
