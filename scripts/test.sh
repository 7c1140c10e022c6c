#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs every test.
#   bash scripts/test.sh
# Installs the Debian packages (scripts/install-deps.sh), checks that includes follow the layer
# arrows (scripts/check-layers.sh), configures and builds with g++ into
# build/ (warnings are errors), starts a throw-away PostgreSQL 15 cluster (scripts/pg-cluster.sh;
# its URL reaches the tests as GATEHOUSE_TEST_PG_URL, and it is stopped on exit whatever
# happens), runs the whole CTest suite, then the sanitizer runs (docs/TESTING.md "Sanitizers"),
# while the cluster is still up:
#   build-clang/  clang 14 with AddressSanitizer + UndefinedBehaviorSanitizer (warnings and
#                 thread-safety findings are errors, as in every clang build); the unit, storm and
#                 end-to-end tests run under it;
#   build-tsan/   clang 14 with ThreadSanitizer: the thread storm and the engine tests.
#   build-fuzz/   the libFuzzer targets, each over its corpus and then a few seconds of fuzzing.
# A sanitizer finding aborts its process, so the test fails. GATEHOUSE_SANITIZERS=0 skips these
# three (for a quick local run): clang then only compiles the tree (build-clang/, warning-free).
# GATEHOUSE_SKIP_CLANG=1 skips clang altogether.
#
# A cluster that cannot start fails the run: CI must test PostgreSQL for real. Only
# GATEHOUSE_SKIP_POSTGRES=1 runs the tests without it (the PostgreSQL tests then skip).
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

if [ "${GATEHOUSE_SKIP_POSTGRES:-0}" = "1" ]; then
  echo "== PostgreSQL: skipped (GATEHOUSE_SKIP_POSTGRES=1); its tests will skip =="
  unset GATEHOUSE_TEST_PG_URL
else
  echo "== PostgreSQL: a throw-away cluster (scripts/pg-cluster.sh) =="
  export GATEHOUSE_PG_STATE="$PWD/build/pg-cluster.state"
  trap 'bash scripts/pg-cluster.sh stop || true' EXIT
  if ! GATEHOUSE_TEST_PG_URL="$(bash scripts/pg-cluster.sh start)"; then
    echo "test.sh: the PostgreSQL test cluster did not start (see above); CI must test" >&2
    echo "test.sh: PostgreSQL for real. GATEHOUSE_SKIP_POSTGRES=1 runs without it." >&2
    exit 1
  fi
  export GATEHOUSE_TEST_PG_URL
  echo "GATEHOUSE_TEST_PG_URL=$GATEHOUSE_TEST_PG_URL"
fi

echo "== tests =="
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900)

if [ "${GATEHOUSE_SKIP_CLANG:-0}" != "1" ]; then
  if [ "${GATEHOUSE_SANITIZERS:-1}" = "1" ]; then
    bash scripts/sanitize.sh "$jobs"
    echo "== fuzz targets (build-fuzz/: regression over each corpus, then a few seconds each) =="
    cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER=clang++ -DGATEHOUSE_FUZZ=ON -DGATEHOUSE_TESTS=OFF \
      -DGATEHOUSE_BENCH=OFF >/dev/null
    ninja -C build-fuzz -j "$jobs" fuzz
    (cd build-fuzz && ctest -L fuzz -j "$jobs" --output-on-failure)
  else
    # GATEHOUSE_SANITIZERS=0: only check that clang builds the tree warning-free.
    echo "== build (clang, warnings and thread-safety findings are errors) =="
    cmake -S . -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_CXX_COMPILER=clang++ -DGATEHOUSE_WERROR=ON >/dev/null
    ninja -C build-clang -j "$jobs"
  fi
fi
echo "== all tests passed =="
