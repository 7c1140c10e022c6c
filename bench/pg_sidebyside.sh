#!/usr/bin/env bash
# The PostgreSQL backend side by side with graphile-worker 0.17 and pg-boss 10 on the same
# PostgreSQL server, in one run (docs/BENCHMARKS.md, "PostgreSQL, side by side").
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/pg_sidebyside.sh --peerbench DIR [--dur 20s] [--keys 20000] [--pgboss-n 500] [--pgboss-drain KEYS]

Runs, in one go and on the peerbench PostgreSQL cluster (127.0.0.1:15432, started by DIR/setup.sh
if it is not running):
  gatehouse  build/pg_bench: enqueue signals/s; no-op passes/s with 1/2/8/16 workers drained
             from a backlog of --keys items; 3 processes x 8 workers vs 1 process x 8 workers;
             build/gatehouse serve --db postgresql://... under wrk (-t2 -c64, --dur, the
             peerbench wrk script and its 6.7 KB pr_synchronize payload): acks/s
  peers      graphile-worker 0.17 drain (concurrency 16, --keys jobs queued with addJobs;
             bench/peers/graphile_drain.mjs, the drain of peerbench's bench_graphile.mjs);
             pg-boss 10 drain (16 work() loops, notifyWorker, --pgboss-drain jobs queued with
             insert; default the same backlog as --keys: its fetch sorts the whole backlog, so
             its rate falls with the depth) after --pgboss-n one-by-one sends; the Node receiver
             (@octokit/webhooks verify) enqueueing to graphile-worker under the same wrk
Then prints one table with the target ratios. Raw output goes to DIR/results/pg_sidebyside/.

DIR is a scratch copy of ../shared/peerbench (see its README: copy it outside the repository
and run its setup.sh once). Needs build/pg_bench and build/gatehouse:
  ninja -C build pg_bench gatehouse
Stop the cluster and redis afterwards with DIR/stop_services.sh.
EOF
}

PB="" DUR=20s KEYS=20000 PGBOSS_N=500 PGBOSS_DRAIN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h) usage; exit 0 ;;
    --peerbench) PB=$2; shift 2 ;;
    --dur) DUR=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --pgboss-n) PGBOSS_N=$2; shift 2 ;;
    --pgboss-drain) PGBOSS_DRAIN=$2; shift 2 ;;
    *) echo "pg_sidebyside: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
PGBOSS_DRAIN=${PGBOSS_DRAIN:-$KEYS}
[ -n "$PB" ] || { echo "pg_sidebyside: --peerbench DIR is required" >&2; usage >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PB=$(cd "$PB" && pwd)
for bin in pg_bench gatehouse; do
  [ -x "$ROOT/build/$bin" ] || { echo "pg_sidebyside: build/$bin missing (ninja -C build $bin)" >&2; exit 1; }
done
OUT=$PB/results/pg_sidebyside/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
PG=postgresql://postgres@127.0.0.1:15432
log() { echo "[pg_sidebyside] $*" >&2; }

(cd "$PB" && ./setup.sh >"$OUT/setup.log" 2>&1) || { cat "$OUT/setup.log" >&2; exit 1; }
BODY=pr_synchronize_6k.json
if [ ! -f "$PB/data/$BODY" ]; then
  (cd "$PB" && PEERBENCH_FIXTURE=$ROOT/../shared/fixtures/github-webhooks/pull_request/synchronize.payload.json \
    node prep_payloads.mjs >"$OUT/prep.log")
fi
SIG=$(cat "$PB/data/$BODY.sig")
sed 's#wrk.format("POST", "/"#wrk.format("POST", os.getenv("WRK_PATH") or "/"#' \
  "$PB/wrk_webhook.lua" >"$OUT/wrk_webhook_path.lua"

# --- gatehouse: engine phases ---------------------------------------------------------------
log "pg_bench (enqueue, passes with 1/2/8/16 workers, 1 vs 3 processes)"
"$ROOT/build/pg_bench" --db "$PG/bench" --keys "$KEYS" >"$OUT/pg_bench.txt" 2>"$OUT/pg_bench.err"
result() { awk -v n="$1" '$1 == "RESULT" && $2 == n { print $3 }' "$OUT/pg_bench.txt"; }

# --- gatehouse: ingest under wrk ------------------------------------------------------------
log "gatehouse serve --db postgresql:// under wrk for $DUR"
psql -q -h 127.0.0.1 -p 15432 -U postgres bench -c 'DROP DATABASE IF EXISTS gh_ingest WITH (FORCE)' \
  -c 'CREATE DATABASE gh_ingest'
"$ROOT/build/gatehouse" migrate --db "$PG/gh_ingest" >"$OUT/migrate.log" 2>&1
GATEHOUSE_WEBHOOK_SECRET=bench-secret "$ROOT/build/gatehouse" serve --db "$PG/gh_ingest" \
  --listen 127.0.0.1:0 --log-level warn >"$OUT/serve.out" 2>"$OUT/serve.err" &
SERVE=$!
trap 'kill $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 200); do grep -q listening "$OUT/serve.out" 2>/dev/null && break; sleep 0.05; done
URL=$(grep -o 'http://[^ ]*' "$OUT/serve.out") || { cat "$OUT/serve.err" >&2; exit 1; }
WRK_PATH=/webhook WRK_BODY="$PB/data/$BODY" WRK_SIG="$SIG" \
  wrk -t2 -c64 -d"$DUR" --latency -s "$OUT/wrk_webhook_path.lua" "${URL%/webhook}/" >"$OUT/wrk_gatehouse.txt"
kill -TERM $SERVE; wait $SERVE || true
trap - EXIT
"$ROOT/build/gatehouse" status --db "$PG/gh_ingest" >"$OUT/status.txt" 2>&1 || true
psql -q -h 127.0.0.1 -p 15432 -U postgres bench -c 'DROP DATABASE IF EXISTS gh_ingest WITH (FORCE)'
wrkjson() { grep '^WRKJSON' "$1" | sed 's/^WRKJSON //'; }
GH_WRK=$(wrkjson "$OUT/wrk_gatehouse.txt")

# --- peers ----------------------------------------------------------------------------------
log "graphile-worker 0.17: addJobs $KEYS, drain with concurrency 16"
cp "$ROOT/bench/peers/graphile_drain.mjs" "$PB/"
(cd "$PB" && RUN=pgsbs node graphile_drain.mjs --n="$KEYS" >"$OUT/graphile.jsonl")
log "pg-boss 10: drain $PGBOSS_DRAIN"
(cd "$PB" && RUN=pgsbs node bench_pgboss.mjs --mode=plain --n="$PGBOSS_N" --ndrain="$PGBOSS_DRAIN" \
  >"$OUT/pgboss.jsonl")
log "Node receiver + graphile-worker under wrk for $DUR"
(cd "$PB" && RUN=pgsbs ./run_webhook.sh graphile "$BODY" "$DUR" >"$OUT/node_graphile.txt" 2>&1)

# --- table ----------------------------------------------------------------------------------
python3 - "$OUT" "$GH_WRK" "$(cat "$OUT/pg_bench.txt")" "$KEYS" "$PGBOSS_DRAIN" <<'PY' | tee "$OUT/table.md"
import json, sys
out, gh_wrk, pg_bench, keys, pgboss_drain = sys.argv[1:6]
r = {l.split()[1]: float(l.split()[2]) for l in pg_bench.splitlines() if l.startswith("RESULT")}
def jl(path):
    return [json.loads(l) for l in open(path) if l.startswith("{")]
g = {d["bench"]: d for d in jl(f"{out}/graphile.jsonl")}
b = {d["bench"]: d for d in jl(f"{out}/pgboss.jsonl")}
node = json.loads([l for l in open(f"{out}/node_graphile.txt") if l.startswith("{")][-1])
gw = json.loads(gh_wrk)
g_drain = g["plain-drain(after bulk)"]["drain_jobs_per_s"]
b_drain = b["plain-drain(notify, after bulk)"]["drain_jobs_per_s"]
rows = [
    ("no-op passes/s, 1 process, 1 worker", r["passes_per_s_w1"]),
    ("no-op passes/s, 1 process, 2 workers", r["passes_per_s_w2"]),
    ("no-op passes/s, 1 process, 8 workers", r["passes_per_s_w8"]),
    ("no-op passes/s, 1 process, 16 workers", r["passes_per_s_w16"]),
    ("no-op passes/s, 1 process x 8 workers (child)", r["passes_per_s_procs1"]),
    ("no-op passes/s, 3 processes x 8 workers", r["passes_per_s_procs3"]),
    ("enqueued signals/s (16 clients, Enqueuer, kRecoverable)", r["enqueue_signals_per_s"]),
    ("ingest acks/s, gatehouse serve --db postgresql:// (p99 %.1f ms, non-2xx %d)"
        % (gw["p99_ms"], gw["errors_status"]), gw["rps"]),
    ("graphile-worker 0.17 drain, concurrency 16, %s jobs" % keys, g_drain),
    ("graphile-worker 0.17 addJob one-by-one jobs/s", g["plain-enqueue-one(addJob)"]["jobs_per_s"]),
    ("graphile-worker 0.17 addJobs bulk jobs/s", g["plain-enqueue-bulk(addJobs)"]["jobs_per_s"]),
    ("pg-boss 10 drain, 16 work() loops, %s jobs" % pgboss_drain, b_drain),
    ("pg-boss 10 send one-by-one jobs/s", b["plain-enqueue-one(send)"]["jobs_per_s"]),
    ("Node receiver + graphile-worker acks/s (p99 %.1f ms, non-2xx %d)"
        % (node["p99_ms"], node["errors_status"]), node["rps"]),
]
print("| figure | per second |\n|---|---:|")
for name, v in rows:
    print(f"| {name} | {v:,.0f} |")
passes = [r[f"passes_per_s_w{w}"] for w in (1, 2, 8, 16)]
best = max(passes)
def verdict(x, t): return f"{x:.1f}x ({'met' if x >= t else 'MISSED'})"
print("\n| target | ratio |\n|---|---:|")
for w, p in zip((1, 2, 8, 16), passes):
    print(f"| passes ({w} workers) >= 2x graphile-worker drain | {verdict(p / g_drain, 2)} |")
for w, p in zip((1, 2, 8, 16), passes):
    print(f"| passes ({w} workers) >= 10x pg-boss drain | {verdict(p / b_drain, 10)} |")
print(f"| ingest >= 5x Node receiver + graphile-worker | {verdict(gw['rps'] / node['rps'], 5)} |")
print(f"| passes, 3 processes >= 1 process | {verdict(r['passes_per_s_procs3'] / r['passes_per_s_procs1'], 1)} |")
PY
log "raw output in $OUT"
