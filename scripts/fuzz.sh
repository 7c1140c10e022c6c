#!/usr/bin/env bash
# The long fuzz run (docs/RELIABILITY.md "Fuzzing"): each libFuzzer target of a GATEHOUSE_FUZZ
# build, one at a time and in one process (no -jobs, which forks workers), for a number of
# executions or seconds each.
#
#   bash scripts/fuzz.sh --executions 10000000            # the documented full run
#   bash scripts/fuzz.sh --seconds 600 router_fuzz_test    # one target, ten minutes
#   options: --build DIR (default build-fuzz), --rss-mb N (default 2048),
#            --max-len BYTES (libFuzzer -max_len: the longest input it makes; by default
#            libFuzzer lets it grow with the corpus, to 4096 and past),
#            --timeout SECONDS (libFuzzer -timeout, wall time per input, default 10: on a
#            machine busy with builds a low-priority fuzzer can wait that long for a core)
#
# The build dir must have been configured with -DGATEHOUSE_FUZZ=ON and built (`ninja -C
# build-fuzz fuzz`); each target then knows its seed dirs (build-fuzz/fuzz-work/NAME.seeds,
# written by cmake/GatehouseFuzz.cmake). New inputs go to build-fuzz/fuzz-work/NAME/ (kept
# between runs, so a second run goes on from the first's corpus), crashes to
# build-fuzz/fuzz-work/crash-* (and timeout-*, oom-*). A progress line per target every 30 s;
# at the end one line per target: executions, seconds, corpus size, crashes. Exits non-zero
# when any target found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-fuzz
budget=(-runs=10000000)
rss=2048
maxlen=()
timeout=10
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --executions) budget=(-runs="$2"); shift 2 ;;
    --seconds) budget=(-max_total_time="$2"); shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --rss-mb) rss="$2"; shift 2 ;;
    --max-len) maxlen=(-max_len="$2"); shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
work="$build/fuzz-work"
if [ ! -d "$work" ]; then
  echo "fuzz.sh: $work not found: configure $build with -DGATEHOUSE_FUZZ=ON and build it" >&2
  exit 2
fi
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$work"/*.seeds; do targets+=("$(basename "$f" .seeds)"); done
fi

# Each run appends its rows to summary.tsv (runs of different targets may go on side by side)
# and prints its own at the end.
summary="$work/summary.tsv"
header=$'target\texecutions\tseconds\texec_per_s\tcorpus_files\tnew_crashes'
[ -s "$summary" ] || echo "$header" > "$summary"
mine="$(mktemp)"
trap 'rm -f "$mine"' EXIT
echo "$header" > "$mine"
failed=0
for name in "${targets[@]}"; do
  bin="$build/$name"
  [ -x "$bin" ] || { echo "fuzz.sh: $bin is not built (ninja -C $build fuzz)" >&2; exit 2; }
  mapfile -t seeds < "$work/$name.seeds"
  read -r -a extra < "$work/$name.args" || true
  mkdir -p "$work/$name"
  log="$work/$name.log"
  before=$(ls "$work" | grep -cE '^(crash|timeout|oom|leak)-' || true)
  start=$(date +%s)
  echo "[fuzz.sh] $name: ${budget[*]} ${maxlen[*]} (corpus $(ls "$work/$name" | wc -l) files)"
  "$bin" "${budget[@]}" "${maxlen[@]}" -rss_limit_mb="$rss" -timeout="$timeout" \
    -print_final_stats=1 -artifact_prefix="$work/" "${extra[@]}" \
    "$work/$name" "${seeds[@]}" > "$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null && sleep 1; done
    line=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    kill -0 "$pid" 2>/dev/null && echo "[fuzz.sh] $name: $(( $(date +%s) - start ))s ${line}"
  done
  rc=0
  wait "$pid" || rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  after=$(ls "$work" | grep -cE '^(crash|timeout|oom|leak)-' || true)
  crashes=$(( after - before ))
  files=$(ls "$work/$name" | wc -l)
  row=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$name" "${execs:-?}" "$secs" "${rate:-?}" "$files" \
    "$crashes")
  echo "$row" >> "$summary"
  echo "$row" >> "$mine"
  echo "[fuzz.sh] $name: done rc=$rc executions=${execs:-?} seconds=$secs exec/s=${rate:-?}" \
       "corpus=$files new_crashes=$crashes (log $log)"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then failed=1; fi
done
column -t -s $'\t' "$mine"
exit "$failed"
