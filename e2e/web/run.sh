#!/usr/bin/env bash
# Browser tests of peppolgate's web pages (issue 19) against the built binary on the
# offline demo network, with a Directory mirror of it for the statistics page: Playwright
# (playwright-core, which bundles no browser) drives Debian's Chromium, headless; axe-core
# checks every page for accessibility violations;
# every page is opened with JavaScript on and off and at desktop and phone sizes, and a
# full-page screenshot of each is saved in .artifacts/web/ (git-ignored), named
# <page>-<viewport>[-nojs].png.
# Chromium comes from Debian only (/usr/bin/chromium; installed with apt-get when missing,
# as root or through sudo); no browser is ever downloaded by npm or Playwright.
# Node 22, playwright-core and axe-core come from the npm registry, pinned by
# package-lock.json, and are installed with `npm ci` into .tools/web-e2e (git-ignored)
# only when the lock changes; the system needs Go, npm (any Node >= 18 to run npm itself),
# curl and apt-get.
# Prints a one-line summary; exits non-zero if anything failed. Run from anywhere:
#   e2e/web/run.sh        (or: make web-e2e)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=e2e/web
tools=$root/.tools/web-e2e
artifacts=$root/.artifacts/web
chromium=/usr/bin/chromium
start=$(date +%s.%N)

# elapsed prints the seconds since $1 (a date +%s.%N) with one decimal.
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# install_chromium installs Debian's chromium package when $chromium is missing, as root
# or through password-less sudo. The package lists are updated first: a fresh machine may
# have none (container images ship without them) or stale ones, whose .debs the mirror no
# longer has once a Chromium security update is out (every few weeks).
install_chromium() {
  [ -x "$chromium" ] && return
  local sudo=() t0
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
      echo "web-e2e: $chromium is missing and installing it needs root or password-less sudo:" >&2
      echo "  apt-get update && apt-get install -y --no-install-recommends chromium" >&2
      exit 1
    fi
    sudo=(sudo -n)
  fi
  t0=$(date +%s.%N)
  echo "web-e2e: installing Debian's chromium with apt-get (once per machine)"
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0)
  if ! { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends chromium; } >"$work/apt.txt" 2>&1; then
    cat "$work/apt.txt" >&2
    exit 1
  fi
  [ -x "$chromium" ] || { echo "web-e2e: apt-get installed chromium but $chromium is missing" >&2; exit 1; }
  echo "web-e2e: chromium installed in $(elapsed "$t0")s ($(grep -o '^Need to get .*' "$work/apt.txt"))"
}

go build -o bin/peppolgate ./cmd/peppolgate

name=web-e2e
# shellcheck source=../lib.sh
. e2e/lib.sh
install_chromium
# playwright-core downloads nothing at install, and --ignore-scripts runs no install
# script; the variable keeps it so should a later version try.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
node_tools
# ESM resolves packages from the test file's folder upwards; the link (git-ignored) points
# there, and keeps node_modules itself out of the Go tree (./... does not follow links).
if [ -e "$here/node_modules" ] && [ ! -L "$here/node_modules" ]; then
  echo "web-e2e: $here/node_modules is a real folder; remove it (run.sh links it to .tools/web-e2e)" >&2
  exit 1
fi
ln -sfn ../../.tools/web-e2e/node_modules "$here/node_modules"
# Screenshots of this run only.
rm -rf "$artifacts"
mkdir -p "$artifacts"

# The statistics page counts from a Directory mirror, which the demo network has none of
# by default: with -mirror and -mirror-refresh (given through their environment variables,
# as start_demo takes no flags) the server downloads the demo Directory's export at start
# into the run's folder and loads it, within a second or so. From then on the demo's
# searches and the Directory half of its lookups are answered from the mirror, as on a
# server configured with one; the test network (?network=test) keeps none.
PEPPOLGATE_MIRROR=$work/demo-mirror.db PEPPOLGATE_MIRROR_REFRESH=1h start_demo
keep=1
# stats_loaded succeeds when GET /api/v1/stats answers 200: the mirror is loaded.
stats_loaded() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/api/v1/stats")" = 200 ]
}
# 120 s at most: the machine may be busy.
wait_server "the demo Directory's mirror (GET /api/v1/stats answering 200)" 120 stats_loaded

status=0
# --test-timeout bounds the file as a whole (node --test runs it as one test), only to stop
# a hang: on a busy shared machine the flows take minutes.
WEB_URL="http://127.0.0.1:$port" WEB_ARTIFACTS=$artifacts CHROMIUM=$chromium \
  node --test --test-reporter=spec --test-timeout=1800000 "$here/pages.test.mjs" \
  >"$work/node.txt" 2>&1 || status=1
if [ $status -ne 0 ]; then
  echo "web-e2e: browser tests failed:"
  cat "$work/node.txt"
fi

node "$here/summary.mjs" "$work/node.txt" "$("$chromium" --version 2>/dev/null)" \
  "${artifacts#"$root"/}" "$(elapsed "$start")"

if [ $status -eq 0 ]; then keep=0; fi
exit $status
