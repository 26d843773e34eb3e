#!/usr/bin/env bash
# Lints the OpenAPI document peppolgate serves: builds the binary, starts it on the
# offline demo network on a free loopback port, fetches /openapi.json and runs the
# pinned Redocly CLI (`redocly lint`, recommended ruleset plus redocly.yaml) on the
# served URL. Zero errors required; warnings are printed.
# Node 22 and @redocly/cli come from the npm registry, pinned by package-lock.json, and
# are installed with `npm ci` into .tools/openapi-lint (git-ignored) only when the lock
# changes; the system needs only Go, npm (any Node >= 18 to run npm itself) and curl.
# Run from anywhere:
#   e2e/openapi/lint.sh        (or: make openapi-lint)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=e2e/openapi
tools=$root/.tools/openapi-lint
start=$(date +%s.%N)

go build -o bin/peppolgate ./cmd/peppolgate

name=openapi-lint
# shellcheck source=../lib.sh
. e2e/lib.sh
node_tools
# No usage data leaves the machine, and no update check.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

start_demo
url="http://127.0.0.1:$port/openapi.json"

# The document must be served as JSON before it is worth linting.
ctype=$(curl -sS --max-time 10 -o "$work/openapi.json" -w '%{http_code} %{content_type}' "$url")
case $ctype in
  "200 application/json"*) ;;
  *) echo "openapi-lint: GET /openapi.json answered $ctype" >&2; keep=1; exit 1 ;;
esac

status=0
timeout --foreground -k 10 300 redocly lint --config "$here/redocly.yaml" --format=stylish --max-problems=1000 "$url" \
  >"$work/lint.txt" 2>&1 || status=$?
# Paths in the report are the URL's; the port changes every run.
sed "s#http://127.0.0.1:$port#{served}#g" "$work/lint.txt" | grep -v '^\s*$' || true

errors=$(grep -cE '^\s*[0-9]+:[0-9]+\s+error' "$work/lint.txt" || true)
warnings=$(grep -cE '^\s*[0-9]+:[0-9]+\s+warning' "$work/lint.txt" || true)
seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
bytes=$(wc -c <"$work/openapi.json")
paths=$(grep -c '^    "/' "$work/openapi.json" || true)
if [ $status -ne 0 ]; then
  keep=1
  echo "openapi-lint: FAILED: $errors errors, $warnings warnings (redocly exit $status) on /openapi.json ($bytes bytes, $paths paths) in ${seconds}s"
  exit 1
fi
echo "openapi-lint: ok: 0 errors, $warnings warnings on /openapi.json ($bytes bytes, $paths paths; @redocly/cli $(redocly --version), Node $node_version) in ${seconds}s"
