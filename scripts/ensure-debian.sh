#!/usr/bin/env bash
# ensure-debian.sh installs Debian packages that make test's checks need, when what they
# provide is missing: each argument is WHAT=PACKAGE, WHAT being a command looked up on
# PATH or an absolute file path, e.g.
#   scripts/ensure-debian.sh redis-server=redis-server systemd-analyze=systemd
# It runs apt-get as root or through password-less sudo; the package lists are updated
# first (a fresh machine may have none), and it waits for another apt-get's lock (make
# -j). Installing a service's package may start its service (on a machine with systemd);
# the tests start their own servers on free ports and do not need it.
set -euo pipefail
have() { if [[ $1 == /* ]]; then [ -e "$1" ]; else command -v "$1" >/dev/null; fi; }
missing=() whats=()
for arg in "$@"; do
  what=${arg%%=*} pkg=${arg#*=}
  have "$what" || { missing+=("$pkg"); whats+=("$what"); }
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=()
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
    echo "ensure-debian: ${whats[*]} missing, and installing needs root or password-less sudo:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo -n)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
echo "ensure-debian: installing Debian's ${missing[*]} with apt-get (once per machine)"
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)
if ! { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
for what in "${whats[@]}"; do
  have "$what" || { echo "ensure-debian: apt-get installed ${missing[*]} but $what is still missing" >&2; exit 1; }
done
echo "ensure-debian: ${missing[*]} installed in $(( $(date +%s) - t0 ))s"
