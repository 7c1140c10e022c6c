#!/usr/bin/env bash
# The front door, side by side (issue 15, point 4; docs/BENCHMARKS.md "The front door").
#
# In one run, alternating, with the same body, the same wrk script (-t2 -c64) and the same
# machine: `gatehouse serve` (durable, as shipped: fresh SQLite file, admin listener on), a
# Node receiver (@octokit/webhooks verify) adding each delivery to BullMQ on Redis, the same
# Node receiver storing nothing (../shared/peerbench/run_webhook.sh), and the HTTP floor:
# gatehouse's own HTTP server answering 202 with no work (build/http_floor,
# bench/http_floor.cc). gatehouse and the floor are driven as peerbench's
# sidebyside_ingress.sh drives gatehouse (its wrk script with the path /webhook); that script
# itself is not used because it takes every URL `gatehouse serve` prints for the webhook URL,
# and serve also prints the admin listener's.
#
# usage: bash bench/frontdoor/run.sh [ROUNDS] [DURATION]      (default 3 rounds of 15s)
#   env: PEERBENCH (default ../shared/peerbench), FRONTDOOR_DIR (the scratch working folder,
#        default build/bench-frontdoor), BUILD (default build)
# Needs root for the peers' setup (apt: redis-server wrk postgresql-15; npm: the Node peers).
# Prints one line per measurement, then the medians and the ratios the issue names; the raw
# JSON lines are FRONTDOOR_DIR/results/sidebyside.jsonl. Stops the services it started.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${1:-3}
DUR=${2:-15s}
PEERBENCH=${PEERBENCH:-$ROOT/../shared/peerbench}
BUILD=${BUILD:-$ROOT/build}
WORK=${FRONTDOOR_DIR:-$BUILD/bench-frontdoor}
GH=$BUILD/gatehouse
FLOOR=$BUILD/http_floor
FIXTURE=${FIXTURE:-$ROOT/../shared/fixtures/github-webhooks/pull_request/synchronize.payload.json}
for bin in "$GH" "$FLOOR"; do
  [ -x "$bin" ] || { echo "frontdoor: $bin is missing (ninja -C $BUILD gatehouse http_floor)" >&2; exit 2; }
done
[ -d "$PEERBENCH" ] || { echo "frontdoor: no peerbench at $PEERBENCH" >&2; exit 2; }

mkdir -p "$WORK"
cp -rn "$PEERBENCH"/* "$WORK"/
cd "$WORK"
mkdir -p logs
echo "frontdoor: setting up the peers in $WORK (redis, node modules; first run takes minutes)"
./setup.sh >logs/setup.log 2>&1 || { echo "frontdoor: peer setup failed, see $WORK/logs/setup.log" >&2; exit 1; }
trap './stop_services.sh >/dev/null 2>&1 || true' EXIT
PEERBENCH_FIXTURE="$FIXTURE" node prep_payloads.mjs >/dev/null
rm -f results/sidebyside.jsonl

sed 's#wrk.format("POST", "/"#wrk.format("POST", os.getenv("WRK_PATH") or "/"#' wrk_webhook.lua >wrk_webhook_path.lua

# wrk against URL with BODY; prints wrk's WRKJSON object.
drive() { # URL BODY
  WRK_PATH=/webhook WRK_BODY="data/$2" WRK_SIG="$(cat "data/$2.sig")" \
    wrk -t2 -c64 -d"$DUR" --latency -s wrk_webhook_path.lua "$1/" | grep '^WRKJSON' | sed 's/^WRKJSON //'
}
# Waits for LOG to show "PREFIX: listening on http://…/webhook"; prints the URL without the path.
url_of() { # LOG PREFIX
  for _ in $(seq 200); do grep -q "^$2: listening on" "$1" 2>/dev/null && break; sleep 0.05; done
  local url; url=$(sed -n "s#^$2: listening on \\(http://[^ ]*\\)/webhook\$#\\1#p" "$1" | head -1)
  [ -n "$url" ] || { echo "frontdoor: $2 did not start:" >&2; cat "$1" >&2; exit 1; }
  echo "$url"
}
line() { # WHO JSON
  python3 -c 'import json,sys;d=json.loads(sys.argv[2]);print(sys.argv[1],"rps=%.0f p50=%.2f p99=%.2f non2xx=%d"%(d["rps"],d["p50_ms"],d["p99_ms"],d["errors_status"]))' "$1" "$2"
}

run_gatehouse() { # BODY
  local dir; dir=$(mktemp -d -p "$PWD" gh.XXXX)
  GATEHOUSE_WEBHOOK_SECRET=bench-secret "$GH" serve --db "$dir/g.db" --listen 127.0.0.1:0 \
    --admin-listen 127.0.0.1:0 --log-level warn >"$dir/out" 2>"$dir/err" &
  local pid=$!
  local url; url=$(url_of "$dir/out" gatehouse)
  local w; w=$(drive "$url" "$1")
  kill -TERM "$pid"; wait "$pid" || true
  local st; st=$("$GH" status --db "$dir/g.db" --json)
  echo "{\"who\":\"gatehouse\",\"body\":\"$1\",\"wrk\":$w,\"status\":$st}" >>results/sidebyside.jsonl
  echo "gatehouse $1 $(line "" "$w") received=$(python3 -c 'import json,sys;d=json.loads(sys.argv[1]);print(d.get("received"),"in_flight=%s"%d.get("in_flight"))' "$st")"
  rm -rf "$dir"
}
run_node() { # BACKEND BODY
  local j; j=$(RUN=frontdoor ./run_webhook.sh "$1" "$2" "$DUR" 2>&1 | tail -1)
  echo "$j" >>results/sidebyside.jsonl
  echo "node+$1 $2 $(line "" "$j")"
}
run_floor() { # BODY
  local log; log=$(mktemp -p "$PWD" floor.XXXX)
  "$FLOOR" >"$log" 2>&1 &
  local pid=$!
  local url; url=$(url_of "$log" http_floor)
  local w; w=$(drive "$url" "$1")
  kill -TERM "$pid"; wait "$pid" || true
  rm -f "$log"
  echo "{\"who\":\"floor\",\"body\":\"$1\",\"wrk\":$w}" >>results/sidebyside.jsonl
  echo "floor $1 $(line "" "$w")"
}

echo "frontdoor: $ROUNDS rounds of $DUR each, $(nproc) cores, $(uname -r)"
for r in $(seq "$ROUNDS"); do
  for body in pr_synchronize_6k.json pr_synchronize.json; do
    echo "== round $r, $body"
    run_gatehouse "$body"; run_node bullmq "$body"; run_node none "$body"; run_floor "$body"
  done
done

python3 "$ROOT/bench/frontdoor/summarize.py" results/sidebyside.jsonl
