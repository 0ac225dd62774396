#!/usr/bin/env bash
# Prepares the internal headers of a Slurm for building plugins, in
# build/slurm: src (the source tree) and build (config.h and
# slurm/slurm_version.h from ./configure, no Makefiles, no make).  A plugin
# must be built with the headers of the exact Slurm it is loaded into.
#
#   prepare-slurm.sh                the installed slurm-wlm (Debian): fetches
#                                   its Debian source (apt-get source),
#                                   applies Debian's patches
#   prepare-slurm.sh --source PATH  any Slurm: PATH is its source tree or
#                                   tarball (from SchedMD or the
#                                   distribution), of the exact version
#                                   the plugins will be loaded into;
#                                   SLURM_CONFIGURE_FLAGS adds ./configure
#                                   options (use the ones it was built with)
# Cached: does nothing when build/slurm/VERSION already names that Slurm.
# Exit status 3: the Debian mirror serves no source of the installed Slurm.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${SLURM_PREP_DIR:-$top/build/slurm}
source_path=""
if [ "${1:-}" = "--source" ]; then
	source_path=${2:?prepare-slurm: --source needs a path}
	[ -e "$source_path" ] || { echo "prepare-slurm: --source: $source_path not found" >&2; exit 1; }
	source_path=$(cd "$(dirname "$source_path")" && pwd)/$(basename "$source_path")
	ver="source $source_path"
else
	ver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
	if [ -z "$ver" ]; then
		echo "prepare-slurm: slurmctld is not installed; run scripts/install-deps.sh," >&2
		echo "  or give Slurm's source: scripts/prepare-slurm.sh --source PATH" >&2
		exit 1
	fi
fi
if [ -f "$out/VERSION" ] && [ "$(cat "$out/VERSION")" = "$ver" ] \
	&& [ -f "$out/build/config.h" ]; then
	exit 0
fi

echo "prepare-slurm: preparing Slurm $ver headers in $out"
rm -rf "$out"
mkdir -p "$out/dl"
cd "$out/dl"
if [ -n "$source_path" ]; then
	mkdir -p "$out/src"
	if [ -d "$source_path" ]; then
		cp -a "$source_path/." "$out/src/"
	else
		tar -xf "$source_path" -C "$out/src" --strip-components=1
	fi
	[ -x "$out/src/configure" ] && [ -f "$out/src/slurm/slurm.h" ] \
		|| { echo "prepare-slurm: --source: $source_path is not Slurm's source (no configure, slurm/slurm.h)" >&2; exit 1; }
elif apt-get source --download-only -qq "slurm-wlm=$ver" >apt-source.log 2>&1; then
	dsc=$(ls ./*.dsc | head -n 1)
	dpkg-source --no-check --skip-patches -x "$dsc" "$out/src" >/dev/null
else
	# Some mirrors serve a release's upstream tarball but not Debian's
	# packaging of it (seen: trixie's 24.11.5): Slurm's own source, no
	# Debian patches (they change packaging and paths, not the plugin API).
	# apt-get --print-uris: 'URL' NAME SIZE SHA256:HASH per file (run
	# elsewhere: it leaves out files already in the current directory)
	read -r url name _ hash < <(cd / && apt-get source --print-uris -qq "slurm-wlm=$ver" 2>/dev/null \
		| tr -d "'" | awk '$2 ~ /\.orig\.tar\./') || true
	if [ -z "${name:-}" ] || { [ "$(sha256sum "$name" 2>/dev/null | cut -d' ' -f1)" != "${hash#SHA256:}" ] &&
		! /usr/lib/apt/apt-helper download-file "$url" "$out/dl/$name" "$hash" \
			>>apt-source.log 2>&1; }; then
		echo "prepare-slurm: the mirror serves no source of slurm-wlm $ver (see $out/dl/apt-source.log)" >&2
		exit 3
	fi
	echo "prepare-slurm: Debian's packaging of $ver is not served; using its upstream tarball"
	mkdir -p "$out/src"
	tar -xf "$out/dl/$name" -C "$out/src" --strip-components=1
fi
cd "$out/src"
if [ -z "$source_path" ] && [ -f debian/patches/series ]; then
	grep -v '^\s*#' debian/patches/series | while read -r p _; do
		[ -n "$p" ] || continue
		patch -s -p1 < "debian/patches/$p"
	done
fi
mkdir -p "$out/build"
cd "$out/build"
if [ -n "$source_path" ]; then
	# shellcheck disable=SC2086
	flags=(--prefix=/usr --sysconfdir=/etc/slurm --disable-debug ${SLURM_CONFIGURE_FLAGS:-})
else
	# as Debian's slurm-wlm is configured
	flags=(--prefix=/usr --sysconfdir=/etc/slurm
	       --libdir=/usr/lib/x86_64-linux-gnu
	       --with-pkglibdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
	       --with-munge --enable-pam --without-rpath --disable-debug --enable-multiple-slurmd)
	[ -f /usr/lib/x86_64-linux-gnu/pmix2/include/pmix.h ] \
		&& flags+=(--with-pmix=/usr/lib/x86_64-linux-gnu/pmix2)
fi
# (not with the flags gpuquota is built with: make exports them)
# --no-create, then config.status for the two headers only: the plugins
# need config.h and slurm/slurm_version.h, not the tree's hundreds of
# Makefiles (most of configure's time).
env -u CFLAGS -u CPPFLAGS -u LDFLAGS "$out/src/configure" --no-create "${flags[@]}" >configure.log 2>&1 \
	&& ./config.status config.h slurm/slurm_version.h >>configure.log 2>&1 \
	|| { echo "prepare-slurm: configure failed, see $out/build/configure.log" >&2; exit 1; }
echo "$ver" > "$out/VERSION"
echo "prepare-slurm: ok"
