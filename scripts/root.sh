#!/usr/bin/env bash
# Owns the cached Debian roots `make matrix` builds and tests in: one root
# per Debian release (each with its own Slurm), made with debootstrap from
# Debian's packages under build/roots/<codename>, entered with chroot.
#
#   root.sh make  CODENAME    make the root, or reuse it when it is ready
#   root.sh mount CODENAME    bind /proc, /dev, /sys (with its mounts) into it
#   root.sh umount CODENAME   undo mount (stop the root's daemons first)
#   root.sh run   CODENAME CMD...   CMD inside the root (mounted meanwhile;
#                             left mounted when it was before)
#   root.sh slurm CODENAME    the root's slurmctld version
#
# Inside: Slurm's daemons, clients and libslurm-dev, munge, the build and
# packaging tools, deb-src (for scripts/prepare-slurm.sh), the host's
# /etc/hosts, and a policy-rc.d so no package starts a service.  Daemons
# started in a root share the host's loopback network and /proc.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
roots=${GQ_ROOTS_DIR:-$top/build/roots}
mirror=${GQ_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PKGS=(build-essential pkg-config slurmctld slurmd slurm-client libslurm-dev
      munge libmunge-dev libpam0g-dev libjson-c-dev libmicrohttpd-dev dpkg-dev fakeroot patch jq procps iproute2 ca-certificates)
# Bumped when PKGS or the root's set-up change: older roots are completed.
STAMP="v1 ${PKGS[*]}"

die() { echo "root.sh: error: $*" >&2; exit 1; }
say() { echo "root.sh: $*" >&2; }

usage() { sed -n '6,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

check_name() {
	case $1 in
	bookworm | trixie | forky | sid) ;;
	*) die "unknown Debian release '$1' (bookworm, trixie, forky, sid)" ;;
	esac
}

# In the root, as root, with apt never asking and never starting services.
in_root() { # ROOT CMD...
	local r=$1
	shift
	chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

is_mounted() { mountpoint -q "$1"; }

cmd_mount() {
	local r=$roots/$1 d
	[[ -x $r/bin/bash ]] || die "root $1 is not made (root.sh make $1)"
	cp /etc/hosts "$r/etc/hosts"
	for d in proc dev; do
		is_mounted "$r/$d" || mount --bind "/$d" "$r/$d"
	done
	# with the mounts below it (22.05's slurmd needs /sys/fs/cgroup),
	# which unmounting the root's copy must leave alone
	if ! is_mounted "$r/sys"; then
		mount --rbind /sys "$r/sys"
		mount --make-rslave "$r/sys"
	fi
}

cmd_umount() {
	local r=$roots/$1 d
	for d in sys dev proc; do
		if is_mounted "$r/$d"; then
			umount -R "$r/$d" 2>/dev/null || umount -R -l "$r/$d"
		fi
	done
}

# Refuses to go on while anything is mounted at or below DIR: an rm -rf
# there would reach the host's /dev or /proc.
no_mounts_under() { # DIR
	local d
	d=$(realpath -m "$1")
	if awk -v d="$d" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; then
		die "something is still mounted under $d (see /proc/mounts); unmount it first"
	fi
}

cmd_make() {
	local name=$1 r=$roots/$1 script=() t0=$SECONDS
	if [[ -f $r/.gpuquota-root ]] && [[ $(cat "$r/.gpuquota-root") == "$STAMP" ]]; then
		return 0
	fi
	((EUID == 0)) || die "must run as root (debootstrap, chroot, mount)"
	command -v debootstrap >/dev/null || die "debootstrap not found (run scripts/install-deps.sh)"
	mkdir -p "$roots"
	if [[ ! -x $r/bin/bash ]]; then
		# forky has no debootstrap script of its own in bookworm: sid's.
		[[ $name == forky ]] && script=(/usr/share/debootstrap/scripts/sid)
		say "debootstrap $name into $r"
		cmd_umount "$name"
		no_mounts_under "$r"
		no_mounts_under "$r.tmp"
		rm -rf "$r.tmp"
		debootstrap --variant=minbase "$name" "$r.tmp" "$mirror" "${script[@]}" \
			>"$roots/$name.debootstrap.log" 2>&1 \
			|| die "debootstrap $name failed, see $roots/$name.debootstrap.log"
		rm -rf "$r"
		mv "$r.tmp" "$r"
	fi
	# Debian's testing/unstable Release files may be past Valid-Until on
	# the mirror (seen with forky); the packages are still the right ones.
	echo 'Acquire::Check-Valid-Until "false";' >"$r/etc/apt/apt.conf.d/99gpuquota"
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	if [[ -f $r/etc/apt/sources.list ]] && ! grep -q '^deb-src' "$r/etc/apt/sources.list"; then
		sed -n 's/^deb /deb-src /p' "$r/etc/apt/sources.list" >>"$r/etc/apt/sources.list"
	fi
	cmd_mount "$name"
	trap 'cmd_umount "$name"' EXIT
	say "installing Slurm and build tools in $name"
	in_root "$r" apt-get update -qq >"$roots/$name.apt.log" 2>&1 \
		|| die "apt-get update in $name failed, see $roots/$name.apt.log"
	in_root "$r" apt-get install -y -qq --no-install-recommends "${PKGS[@]}" \
		>>"$roots/$name.apt.log" 2>&1 \
		|| die "apt-get install in $name failed, see $roots/$name.apt.log"
	cmd_umount "$name"
	trap - EXIT
	echo "$STAMP" >"$r/.gpuquota-root"
	say "$name ready: Slurm $(cmd_slurm "$name") ($((SECONDS - t0))s)"
}

cmd_slurm() {
	chroot "$roots/$1" dpkg-query -W -f='${Version}' slurmctld
}

main() {
	(($# >= 2)) || usage
	local cmd=$1 name=$2
	shift 2
	check_name "$name"
	case $cmd in
	make) cmd_make "$name" ;;
	mount) cmd_mount "$name" ;;
	umount) cmd_umount "$name" ;;
	slurm) cmd_slurm "$name" ;;
	run)
		(($#)) || usage
		# unmounted after only when this call mounted it
		local rc=0 was=0
		is_mounted "$roots/$name/proc" && was=1
		cmd_mount "$name"
		in_root "$roots/$name" "$@" || rc=$?
		((was)) || cmd_umount "$name"
		return $rc
		;;
	*) usage ;;
	esac
}

main "$@"
