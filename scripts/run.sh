#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs gatehouse on an embedded SQLite
# file:   bash scripts/run.sh [serve options]
# Builds build/gatehouse, then runs `gatehouse serve --db ./gatehouse.db` in the foreground
# (Ctrl-C stops it gracefully). In another terminal:
#   build/gatehouse work signal acme/app#1 --reason pushed
#   build/gatehouse work ls
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ >/dev/null
ninja -C build gatehouse
exec build/gatehouse serve --db ./gatehouse.db "$@"
