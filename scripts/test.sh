#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs every test.
#   bash scripts/test.sh
# Installs the Debian packages (scripts/install-deps.sh), checks that includes follow the layer
# arrows (scripts/check-layers.sh), configures and builds with g++ into
# build/ (warnings are errors), runs the whole CTest suite, then checks that clang 14 also
# builds the tree warning-free (build-clang/, compile only).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

jobs=$(nproc)
echo "== layers (includes follow the arrows of docs/ARCHITECTURE.md) =="
bash scripts/check-layers.sh

echo "== configure + build (g++) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=g++ -DGATEHOUSE_WERROR=ON >/dev/null
ninja -C build -j "$jobs"

echo "== tests =="
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900)

if [ "${GATEHOUSE_SKIP_CLANG:-0}" != "1" ]; then
  echo "== build (clang, warnings and thread-safety findings are errors) =="
  cmake -S . -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER=clang++ -DGATEHOUSE_WERROR=ON >/dev/null
  ninja -C build-clang -j "$jobs"
fi
echo "== all tests passed =="
