#!/usr/bin/env bash
# ensure-redis.sh installs Debian's redis-server package when redis-server is missing, as
# root or through password-less sudo, for the tests that run a real Redis (fleet/redistest:
# each test starts its own redis-server on a free loopback port and stops it, and the
# package's own service is not needed). On a Debian machine with systemd, installing the
# package also enables and starts that service, redis-server on 127.0.0.1:6379; it is left
# as the package set it up (stop it with `systemctl disable --now redis-server` if
# unwanted); the tests never use it. The package lists are updated first: a fresh machine
# may have none.
set -euo pipefail
command -v redis-server >/dev/null && exit 0
sudo=()
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
    echo "ensure-redis: redis-server is missing and installing it needs root or password-less sudo:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends redis-server" >&2
    exit 1
  fi
  sudo=(sudo -n)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
echo "ensure-redis: installing Debian's redis-server with apt-get (once per machine)"
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)
if ! { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends redis-server; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
command -v redis-server >/dev/null || { echo "ensure-redis: apt-get installed redis-server but it is not on PATH" >&2; exit 1; }
echo "ensure-redis: $(redis-server --version | cut -d' ' -f1-3) installed in $(( $(date +%s) - t0 ))s"
