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

# npm ci wipes and rebuilds node_modules, so it runs only when package.json or the lock
# differ from what the stamp says was installed.
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ ! -x "$tools/node_modules/.bin/node" ] || [ "$(cat "$tools/.stamp" 2>/dev/null)" != "$want" ]; then
  echo "openapi-lint: installing Node 22 and @redocly/cli into .tools/openapi-lint"
  rm -rf "$tools"
  mkdir -p "$tools"
  cp "$here/package.json" "$here/package-lock.json" "$tools/"
  (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --update-notifier=false --engine-strict=false \
    --fetch-timeout=60000 --fetch-retries=2 --loglevel=error)
  echo "$want" >"$tools/.stamp"
fi
export PATH="$tools/node_modules/.bin:$PATH" # node is now Node 22
node_version=$(node --version)
case $node_version in v22.*) ;; *) echo "openapi-lint: expected Node 22, got $node_version" >&2; exit 1 ;; esac
# No usage data leaves the machine, and no update check.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

work=$(mktemp -d)
pid=
keep=0
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ "$keep" = 1 ]; then echo "openapi-lint: logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Port 0: the kernel picks a free port, the server reports it in its "listening" log line,
# so there is no window in which another process can take a port chosen in advance.
bin/peppolgate -network demo -addr 127.0.0.1:0 >"$work/server.stdout" 2>"$work/server.stderr" &
pid=$!
port=
deadline=$(($(date +%s) + 30))
until [ -n "$port" ] && curl -sf --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "openapi-lint: peppolgate exited during start-up:" >&2
    cat "$work/server.stderr" >&2
    exit 1
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "openapi-lint: peppolgate not healthy within 30s:" >&2
    cat "$work/server.stderr" >&2
    exit 1
  fi
  port=$(sed -n 's/.*"msg":"listening".*"addr":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$work/server.stderr" | head -1)
  sleep 0.1
done
url="http://127.0.0.1:$port/openapi.json"

# The document must be served as JSON before it is worth linting.
ctype=$(curl -sS --max-time 10 -o "$work/openapi.json" -w '%{http_code} %{content_type}' "$url")
case $ctype in
  "200 application/json"*) ;;
  *) echo "openapi-lint: GET /openapi.json answered $ctype" >&2; keep=1; exit 1 ;;
esac

status=0
redocly lint --config "$here/redocly.yaml" --format=stylish --max-problems=1000 "$url" \
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
