#!/usr/bin/env bash
# Installs everything gpuquota needs to build and test, from Debian's packages.
# Idempotent: packages already present are not fetched again.
# --bench: also what `make bench-cluster` needs (gnuplot for its plot).
set -euo pipefail

PKGS=(build-essential pkg-config slurm-wlm slurmctld slurmd slurm-client
      libslurm-dev munge libmunge-dev libjson-c-dev check
      dpkg-dev patch jq procps iproute2 debootstrap rpm
      mariadb-server slurmdbd
      libmicrohttpd-dev prometheus curl clang stress-ng)
# stress-ng: `make soak-busy` keeps the cores busy;
# libmicrohttpd: `gpuquota metrics --listen`; prometheus: its promtool
# checks the exposition in the tests and runs the alerts' test (make
# check-rules); curl scrapes it; clang: libFuzzer
# (make fuzz); debootstrap: the version matrix's roots; rpm: make rpm.
BENCH_PKGS=(gnuplot-nox)
for a in "$@"; do
	case $a in
	--bench) PKGS+=("${BENCH_PKGS[@]}") ;;
	*) echo "install-deps: unknown argument '$a' (use --bench or nothing)" >&2; exit 2 ;;
	esac
done
# Services the packages may start; the project runs private copies
# (scripts/cluster.sh --accounting) and stops the system ones it installed
# (prometheus itself is not needed, only its promtool).
DB_SERVICES=(mariadb slurmdbd prometheus)

# service_running NAME / stop_service NAME: systemd when it runs, else the
# init script (containers without systemd).
service_running() {
	if [ -d /run/systemd/system ]; then
		systemctl is-active --quiet "$1" 2>/dev/null
	elif [ -x "/etc/init.d/$1" ]; then
		"/etc/init.d/$1" status >/dev/null 2>&1
	else
		return 1
	fi
}
stop_service() {
	if [ -d /run/systemd/system ]; then
		systemctl stop "$1" >/dev/null 2>&1 || true
	elif [ -x "/etc/init.d/$1" ]; then
		"/etc/init.d/$1" stop >/dev/null 2>&1 || true
	fi
}

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
# A system mariadb/slurmdbd already running before we came is left alone.
was_running=()
for s in "${DB_SERVICES[@]}"; do
	if service_running "$s"; then was_running+=("$s"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
# apt may start services on some systems; the project runs its own daemons.
for s in slurmctld slurmd munge; do
	stop_service "$s"
done
for s in "${DB_SERVICES[@]}"; do
	case " ${was_running[*]} " in
	*" $s "*) ;;
	*) if service_running "$s"; then stop_service "$s"; fi ;;
	esac
done
echo "install-deps: ok"
