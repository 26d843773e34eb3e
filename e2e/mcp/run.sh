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

name=mcp-e2e
# shellcheck source=../lib.sh
. e2e/lib.sh
node_tools
# ESM resolves packages from the test file's folder upwards; the link (git-ignored) points
# there, and keeps node_modules itself out of the Go tree (./... does not follow links).
if [ -e "$here/node_modules" ] && [ ! -L "$here/node_modules" ]; then
  echo "mcp-e2e: $here/node_modules is a real folder; remove it (run.sh links it to .tools/mcp-e2e)" >&2
  exit 1
fi
ln -sfn ../../.tools/mcp-e2e/node_modules "$here/node_modules"

start_demo
keep=1
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
timeout --foreground -k 10 600 conformance server --url "$url" --suite active \
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
