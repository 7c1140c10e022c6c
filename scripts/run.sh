#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs gatehouse on an embedded SQLite
# file:   bash scripts/run.sh [serve options]
# Builds build/gatehouse, then runs `gatehouse serve --db ./gatehouse.db` in the foreground
# (Ctrl-C stops it gracefully), listening for GitHub webhooks on 127.0.0.1:8080/webhook.
#
# The webhook secret comes from GATEHOUSE_WEBHOOK_SECRET or GATEHOUSE_WEBHOOK_SECRET_FILE.
# When neither is set, a random secret is generated once into ./gatehouse.secret (mode 600)
# and used: give the same secret to GitHub (App settings -> Webhook secret).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ >/dev/null
ninja -C build gatehouse

if [ -z "${GATEHOUSE_WEBHOOK_SECRET:-}" ] && [ -z "${GATEHOUSE_WEBHOOK_SECRET_FILE:-}" ]; then
  if [ ! -s gatehouse.secret ]; then
    (umask 077 && openssl rand -hex 32 > gatehouse.secret)
    echo "run.sh: generated a webhook secret in ./gatehouse.secret (configure GitHub with it)"
  fi
  export GATEHOUSE_WEBHOOK_SECRET_FILE="$PWD/gatehouse.secret"
fi
exec build/gatehouse serve --db ./gatehouse.db "$@"
