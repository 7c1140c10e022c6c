#!/usr/bin/env bash
# Installs every Debian package gatehouse needs to build, test and benchmark.
# Idempotent: packages already present are skipped, so a second run is fast.
# Boost comes from the 1.81 packages; never libboost-dev / libboost-all-dev
# (1.74), which conflict with them.
set -euo pipefail

packages=(
  build-essential g++ clang cmake ninja-build ccache pkg-config
  libsqlite3-dev sqlite3
  libssl-dev
  zlib1g-dev
  libdeflate-dev         # base/compress.cc: ZlibCompress (zlib's format, faster than zlib's deflate)
  libgoogle-perftools-dev  # tcmalloc_minimal, the server binaries' allocator (cmake/GatehouseAllocator.cmake)
  libcurl4-openssl-dev
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev
  libpq-dev              # store/ tests (libpq), the PostgreSQL backend (store/postgres/)
  postgresql-15          # the throw-away test cluster (scripts/pg-cluster.sh); util-linux's
                         # runuser runs it as the postgres OS user when we are root
  libyaml-cpp-dev
  libre2-dev             # review/secrets_scanner.cc
  clang-format clang-tidy
  wrk openssl
  python3-prometheus-client  # scripts/prom-parse.py: the reference parser checks /metrics
  chromium chromium-driver python3-selenium  # tests/browser/dashboard_browser_test.py: a real browser
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
