#!/bin/bash
# A GATEHOUSE_BIN wrapper for bench/ingress/run.sh that also measures the server's CPU:
#   REAL_BIN=build/gatehouse GATEHOUSE_BIN=bench/ingress/cpu_wrap.sh bash bench/ingress/run.sh 10 64
# For `serve`, runs the real binary as a child and, when it exits, appends its user and system
# CPU time (bash `times`, children's line) to CPU_OUT (default build/bench-ingress-cpu.txt);
# divide by the requests wrk reports for the CPU per request. Other commands run as they are.
bin=${REAL_BIN:?set REAL_BIN to the gatehouse binary to run}
if [ "$1" = serve ]; then
  "$bin" "$@" &
  pid=$!
  trap 'kill -TERM $pid' TERM
  wait $pid
  wait $pid
  times > "${TMPDIR:-/tmp}/cpu_wrap.$$"
  tail -1 "${TMPDIR:-/tmp}/cpu_wrap.$$" >> "${CPU_OUT:-build/bench-ingress-cpu.txt}"
  rm -f "${TMPDIR:-/tmp}/cpu_wrap.$$"
else
  exec "$bin" "$@"
fi
