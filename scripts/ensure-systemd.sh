#!/usr/bin/env bash
# ensure-systemd.sh installs Debian's systemd package when systemd-analyze is missing, as
# root or through password-less sudo, for the test that checks deploy/systemd/'s unit with
# `systemd-analyze verify` (deploy/systemd/systemd_test.go). The package is only installed:
# on a machine (or container) that does not boot with systemd, nothing starts. The package
# lists are updated first: a fresh machine may have none.
set -euo pipefail
command -v systemd-analyze >/dev/null && exit 0
sudo=()
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
    echo "ensure-systemd: systemd-analyze is missing and installing it needs root or password-less sudo:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends systemd" >&2
    exit 1
  fi
  sudo=(sudo -n)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
echo "ensure-systemd: installing Debian's systemd (for systemd-analyze) with apt-get (once per machine)"
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)
if ! { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends systemd; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
command -v systemd-analyze >/dev/null || { echo "ensure-systemd: apt-get installed systemd but systemd-analyze is not on PATH" >&2; exit 1; }
echo "ensure-systemd: $(systemd-analyze --version | head -1) installed in $(( $(date +%s) - t0 ))s"
