#!/usr/bin/env bash
# Runs clang-tidy (the repository's .clang-tidy) over gatehouse's sources, using the compile
# commands of an existing build (build/ by default; configure it first, see docs/BUILD.md).
#   bash scripts/tidy.sh                 every .cc in every layer folder, tests included
#   bash scripts/tidy.sh decide/gate.cc  just these files
# BUILD_DIR=build-clang picks another build. Findings are printed; the exit status is
# clang-tidy's (non-zero only for errors or checks listed in WarningsAsErrors).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${BUILD_DIR:-build}"
if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "tidy.sh: no $build_dir/compile_commands.json; configure the build first" >&2
  exit 2
fi

# Every folder of DESIGN.md §5, plus tests/ and bench/. Keep in step with .clang-tidy's
# HeaderFilterRegex.
folders=(base store github decide act engine http sim app tests bench)
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find "${folders[@]}" -name '*.cc' | sort)
fi
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build_dir" --quiet
