#!/usr/bin/env bash
# Installs everything gpuquota needs to build and test, from Debian's packages.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

PKGS=(build-essential pkg-config slurm-wlm slurmctld slurmd slurm-client
      libslurm-dev munge libmunge-dev libjson-c-dev check
      dpkg-dev patch jq procps iproute2)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
		|| missing+=("$p")
done

# deb-src is needed to fetch Slurm's source (scripts/prepare-slurm.sh).
src=/etc/apt/sources.list.d/gpuquota-deb-src.sources
need_update=0
if [ ! -f "$src" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
	sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
		| grep -v '^#' > "$src"
	need_update=1
fi

if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
# apt may start services on some systems; the project runs its own daemons.
for s in slurmctld slurmd munge; do
	systemctl stop "$s" >/dev/null 2>&1 || true
done
echo "install-deps: ok"
