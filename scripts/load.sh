#!/usr/bin/env bash
# Load test on loopback: peppolgate's cached lookup and search (demo network) next to a
# trivial net/http handler, with wrk (Debian package "wrk"). Bounded: DURATION per case.
# Usage: scripts/load.sh [DURATION]   (default 10s)
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10s}
command -v wrk >/dev/null || { echo "load.sh needs wrk: apt-get install -y wrk" >&2; exit 2; }
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
go build -o "$bin/peppolgate" ./cmd/peppolgate
go build -o "$bin/trivial" ./scripts/trivial
"$bin/peppolgate" -network demo -addr 127.0.0.1:18080 -log-level error >/dev/null 2>&1 &
"$bin/trivial" -addr 127.0.0.1:18081 &
for _ in $(seq 50); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && curl -sf http://127.0.0.1:18081/ >/dev/null && break; sleep 0.2; done
p=http://127.0.0.1:18080/api/v1/participant/0208:0677424046
s='http://127.0.0.1:18080/api/v1/search?q=BE0677424046'
curl -sf "$p" >/dev/null && curl -sf "$s" >/dev/null # warm the cache
for c in "trivial http://127.0.0.1:18081/" "cached-participant $p" "cached-search $s"; do
  set -- $c
  out=$(wrk -t2 -c32 -d"$dur" --latency "$2")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  printf '%-20s %12s req/s   p99 %s\n' "$1" "$rps" "$p99"
done
