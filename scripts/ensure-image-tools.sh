#!/usr/bin/env bash
# ensure-image-tools.sh installs Debian's skopeo and umoci packages when either is missing,
# as root or through password-less sudo, for `make image-check` (scripts/build-image's test:
# skopeo inspects the OCI image `make image` builds and umoci unpacks it without a container
# runtime). The package lists are updated first: a fresh machine may have none.
set -euo pipefail
missing=()
for t in skopeo umoci; do command -v "$t" >/dev/null || missing+=("$t"); done
# The image carries the build machine's CA bundle (Debian's ca-certificates package).
[ -f /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=()
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
    echo "ensure-image-tools: ${missing[*]} missing and installing needs root or password-less sudo:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo -n)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
echo "ensure-image-tools: installing Debian's ${missing[*]} with apt-get (once per machine)"
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)
if ! { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
for t in "${missing[@]}"; do
  [ "$t" = ca-certificates ] && continue
  command -v "$t" >/dev/null || { echo "ensure-image-tools: apt-get installed $t but it is not on PATH" >&2; exit 1; }
done
echo "ensure-image-tools: $(skopeo --version), $(umoci --version) installed in $(( $(date +%s) - t0 ))s"
