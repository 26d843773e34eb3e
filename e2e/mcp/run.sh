#!/usr/bin/env bash
# MCP end-to-end tests against the built binary on the offline demo network:
#   1. the official TypeScript SDK client (client.test.mjs) over streamable HTTP and stdio;
#   2. the official MCP conformance suite (active server scenarios), with the committed
#      baseline conformance-expected-failures.yml.
# Node 22, the SDK and the suite come from the npm registry, pinned by package-lock.json, and
# are installed with `npm ci` into .tools/mcp-e2e (git-ignored) only when the lock changes;
# the system needs only Go, npm (any Node >= 18 to run npm itself) and curl.
# Prints a one-line summary; exits non-zero if anything failed. Run from anywhere:
#   e2e/mcp/run.sh        (or: make mcp-e2e)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=e2e/mcp
tools=$root/.tools/mcp-e2e
start=$(date +%s.%N)

go build -o bin/peppolgate ./cmd/peppolgate

# npm ci wipes and rebuilds node_modules, so it runs only when package.json or the lock
# differ from what the stamp says was installed.
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ ! -x "$tools/node_modules/.bin/node" ] || [ "$(cat "$tools/.stamp" 2>/dev/null)" != "$want" ]; then
  echo "mcp-e2e: installing Node 22, @modelcontextprotocol/sdk and conformance into .tools/mcp-e2e"
  rm -rf "$tools"
  mkdir -p "$tools"
  cp "$here/package.json" "$here/package-lock.json" "$tools/"
  (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --update-notifier=false --engine-strict=false \
    --fetch-timeout=60000 --fetch-retries=2 --loglevel=error)
  echo "$want" >"$tools/.stamp"
fi
# ESM resolves packages from the test file's folder upwards; the link (git-ignored) points
# there, and keeps node_modules itself out of the Go tree (./... does not follow links).
if [ -e "$here/node_modules" ] && [ ! -L "$here/node_modules" ]; then
  echo "mcp-e2e: $here/node_modules is a real folder; remove it (run.sh links it to .tools/mcp-e2e)" >&2
  exit 1
fi
ln -sfn ../../.tools/mcp-e2e/node_modules "$here/node_modules"
export PATH="$tools/node_modules/.bin:$PATH" # node is now Node 22
node_version=$(node --version)
case $node_version in v22.*) ;; *) echo "mcp-e2e: expected Node 22, got $node_version" >&2; exit 1 ;; esac

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ "${keep:-}" = 1 ]; then echo "mcp-e2e: logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
# Interrupted: stop after the running step instead of going on to the next one.
trap 'exit 130' INT
trap 'exit 143' TERM
keep=1

# Port 0: the kernel picks a free port, the server reports it in its "listening" log line,
# so there is no window in which another process can take a port chosen in advance.
bin/peppolgate -network demo -addr 127.0.0.1:0 >"$work/server.stdout" 2>"$work/server.stderr" &
pid=$!
port=
deadline=$(($(date +%s) + 30))
until [ -n "$port" ] && curl -sf --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "mcp-e2e: peppolgate exited during start-up:" >&2
    cat "$work/server.stderr" >&2
    exit 1
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "mcp-e2e: peppolgate not healthy within 30s:" >&2
    cat "$work/server.stderr" >&2
    exit 1
  fi
  port=$(sed -n 's/.*"msg":"listening".*"addr":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$work/server.stderr" | head -1)
  sleep 0.1
done
# localhost, not 127.0.0.1: the suite's dns-rebinding-protection scenario needs it.
url="http://localhost:$port/mcp"

status=0
MCP_URL=$url PEPPOLGATE_BIN=$root/bin/peppolgate \
  node --test --test-reporter=spec --test-timeout=60000 "$here/client.test.mjs" \
  >"$work/node.txt" 2>&1 || status=1
if [ $status -ne 0 ]; then
  echo "mcp-e2e: Node client tests failed:"
  cat "$work/node.txt"
fi

conf_status=0
conformance server --url "$url" --suite active \
  --expected-failures "$here/conformance-expected-failures.yml" -o "$work/conformance" \
  >"$work/conformance.txt" 2>&1 || conf_status=1
if [ $conf_status -ne 0 ]; then
  status=1
  echo "mcp-e2e: conformance suite failed (per-scenario checks.json in $work/conformance):"
  sed -n '/=== SUMMARY ===/,$p' "$work/conformance.txt" | sed 's/\x1b\[[0-9;]*m//g'
fi

seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
node "$here/summary.mjs" "$work/node.txt" "$work/conformance" \
  "$here/conformance-expected-failures.yml" "$seconds"

if [ $status -eq 0 ]; then keep=0; fi
exit $status
