#!/usr/bin/env bash
# The sanitizer runs of scripts/test.sh (issue 13, point 5; docs/TESTING.md "Sanitizers").
#   bash scripts/sanitize.sh [JOBS] [asan|tsan]...   (default: both, JOBS = nproc)
#
# asan: configures build-clang/ with clang 14, -DGATEHOUSE_SANITIZE=address,undefined (and
#       the clang build), builds everything (warnings and
#       -Wthread-safety findings are errors) and runs CTest on it: the unit, storm and
#       end-to-end tests, LeakSanitizer included.
# tsan: configures build-tsan/ with -DGATEHOUSE_SANITIZE=thread, builds the thread storm
#       (tests/storm_test) and the engine tests (engine/*_test) and runs them.
# Every finding aborts its process (-fno-sanitize-recover=all, halt_on_error), so its test fails
# and this script exits non-zero. The PostgreSQL tests run when GATEHOUSE_TEST_PG_URL is set
# (scripts/test.sh starts the cluster before calling this) and skip otherwise.
#
# clang 14's ThreadSanitizer aborts with "unexpected memory mapping" when the kernel places
# mappings where its shadow layout does not expect them (high ASLR entropy, vm.mmap_rnd_bits >
# 28). Rather than lowering the sysctl (root only, machine-wide), the TSan tests then run under
# `setarch -R` (no address randomization for that process tree; unprivileged).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${1:-$(nproc)}"
shift || true
steps=("$@")
[ "${#steps[@]}" -gt 0 ] || steps=(asan tsan)

# A cold ccache makes the sanitizer builds the longest step; see docs/TESTING.md for the times.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:check_initialization_order=1:strict_init_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"

# The ASan + UBSan run: every test of the suite.
asan() {
  echo "== build (clang 14, ASan + UBSan; warnings and thread-safety findings are errors) =="
  cmake -S . -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER=clang++ -DGATEHOUSE_WERROR=ON \
    -DGATEHOUSE_SANITIZE=address,undefined >/dev/null
  ninja -C build-clang -j "$jobs"
  echo "== tests under ASan + UBSan (build-clang/) =="
  (cd build-clang && ctest --output-on-failure -j "$jobs" --timeout 1800)
}

# The binaries TSan checks: the thread storm and every engine/ test.
tsan_binaries=(storm_test engine_test router_test inbox_router_test sweeper_test
               delivery_resolver_test)

# Prints the command prefix TSan binaries need on this machine ("" or "setarch ARCH -R"), or
# fails saying why none works.
tsan_prefix() {
  local probe=build-tsan/engine_test out
  if out="$("$probe" --gtest_list_tests 2>&1)"; then
    echo ""
    return
  fi
  if grep -q "unexpected memory mapping" <<<"$out" &&
     out="$(setarch "$(uname -m)" -R "$probe" --gtest_list_tests 2>&1)"; then
    echo "sanitize.sh: this kernel's ASLR layout breaks clang 14 TSan; running under setarch -R" >&2
    echo "setarch $(uname -m) -R"
    return
  fi
  echo "sanitize.sh: a ThreadSanitizer binary does not start on this machine:" >&2
  echo "$out" | head -n 5 >&2
  return 1
}

tsan() {
  echo "== build (clang 14, TSan: the thread storm and the engine tests) =="
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" \
    -DCMAKE_CXX_COMPILER=clang++ -DGATEHOUSE_WERROR=ON -DGATEHOUSE_SANITIZE=thread \
    -DGATEHOUSE_BENCH=OFF >/dev/null
  ninja -C build-tsan -j "$jobs" "${tsan_binaries[@]}"
  local prefix labels
  prefix="$(tsan_prefix)"
  labels="^($(IFS='|'; echo "${tsan_binaries[*]}"))\$"
  echo "== tests under TSan (build-tsan/: ${tsan_binaries[*]}) =="
  (cd build-tsan && $prefix ctest --output-on-failure -j "$jobs" --timeout 1800 -L "$labels")
}

for step in "${steps[@]}"; do
  case "$step" in
    asan) asan ;;
    tsan) tsan ;;
    *) echo "sanitize.sh: unknown step \"$step\" (asan or tsan)" >&2; exit 2 ;;
  esac
done
