#!/usr/bin/env bash
# Load benchmark of the webhook front door: wrk drives the real `gatehouse serve` (durable
# settings: every 2xx follows an fsync'd commit) with a real, signed pull_request payload.
#
#   bash bench/ingress/run.sh [SECONDS] [CONNECTIONS]     (defaults 20 and 64)
#
# Needs build/gatehouse (ninja -C build gatehouse) and wrk (scripts/install-deps.sh).
# GATEHOUSE_BIN=path runs another build instead (an older commit's, to compare; the same
# machine, one after the other). GATEHOUSE_SERVE_FLAGS adds flags to `gatehouse serve` (e.g.
# "--route-defer-seconds 0" to route while the door is saturated; docs/INGRESS.md).
# The database goes to build/bench-ingress/ on the project's disk, not /tmp.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
connections=${2:-64}
gh=${GATEHOUSE_BIN:-build/gatehouse}
fixture=../shared/fixtures/github-webhooks/pull_request/synchronize.payload.json
dir=build/bench-ingress
rm -rf "$dir" && mkdir -p "$dir"

# The real payload, minified as GitHub sends it (about 23 KB). GATEHOUSE_BENCH_PAYLOAD=small
# drops its "*_url" fields instead (about 5.4 KB: the ~6 KB payload the issue's target names).
python3 bench/pylib/webhook_body.py "$fixture" "$dir/body.json" "${GATEHOUSE_BENCH_PAYLOAD:-full}"
export GATEHOUSE_WEBHOOK_SECRET="bench-$(openssl rand -hex 16)"
export GATEHOUSE_BENCH_BODY="$dir/body.json"
export GATEHOUSE_BENCH_SIGNATURE="sha256=$(openssl dgst -sha256 -hmac "$GATEHOUSE_WEBHOOK_SECRET" -r < "$dir/body.json" | cut -d' ' -f1)"

# shellcheck disable=SC2086  # GATEHOUSE_SERVE_FLAGS is a list of flags
"$gh" serve --db "$dir/g.db" --listen 127.0.0.1:0 --log-level warn ${GATEHOUSE_SERVE_FLAGS:-} \
  > "$dir/serve.out" 2> "$dir/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$dir/serve.out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's#^gatehouse: listening on \(http://[^ ]*\)$#\1#p' "$dir/serve.out")
base=${url%/webhook}
echo "ingress bench: $(wc -c < "$dir/body.json") byte payload, $connections connections, ${seconds}s, $(nproc) cores, $url"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s bench/ingress/post.lua "$base" | tail -n 1
# A clean stop routes what is still open first: with routing held back during the run
# (docs/INGRESS.md, "Ingest first"), that is the run's backlog.
stop_start=$(date +%s.%N)
kill -TERM $serve && wait $serve || true
echo "serve stopped $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$stop_start" "$(date +%s.%N)") s after wrk ended (a clean stop routes every open delivery first)"
trap - EXIT
"$gh" status --db "$dir/g.db" | head -9
