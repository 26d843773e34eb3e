#!/usr/bin/env bash
# Load test on loopback: peppolgate's cached lookup and search (demo network) next to a
# trivial net/http handler, with wrk (Debian package "wrk"). The three cases run in
# ROUNDS interleaved rounds of DURATION each, so that drift on a shared machine hits all
# of them alike; the summary gives each case's median and its share of the trivial one.
# Bounded: 3 x ROUNDS x DURATION in all.
# Usage: scripts/load.sh [DURATION] [ROUNDS]   (defaults 5s, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-5s}
rounds=${2:-5}
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
results=$bin/results
for r in $(seq "$rounds"); do
  for c in "trivial http://127.0.0.1:18081/" "cached-participant $p" "cached-search $s"; do
    set -- $c
    out=$(wrk -t2 -c32 -d"$dur" --latency "$2")
    rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {print $2}' <<<"$out")
    printf 'round %d  %-20s %12s req/s   p99 %s\n' "$r" "$1" "$rps" "$p99"
    echo "$1 $rps" >>"$results"
  done
done
echo
awk '{v[$1]=v[$1]" "$2} END {
  n = split("trivial cached-participant cached-search", order, " ")
  for (i = 1; i <= n; i++) {
    k = order[i]; m = split(substr(v[k], 2), a, " ")
    for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
    med[k] = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    printf "median %-20s %10.0f req/s   %5.1f %% of trivial\n", k, med[k], 100 * med[k] / med["trivial"]
  }
}' "$results"
