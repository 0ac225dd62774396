#!/usr/bin/env bash
# Prepares the internal headers of the installed Slurm for building plugins:
# fetches the Debian source of the exact installed slurm-wlm version, applies
# Debian's patches and runs ./configure (config.h only, no make).
# Result: build/slurm/src (source tree) and build/slurm/build (config.h).
# Cached: does nothing when build/slurm/VERSION matches the installed version.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${SLURM_PREP_DIR:-$top/build/slurm}
ver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
if [ -z "$ver" ]; then
	echo "prepare-slurm: slurmctld is not installed; run scripts/install-deps.sh" >&2
	exit 1
fi
if [ -f "$out/VERSION" ] && [ "$(cat "$out/VERSION")" = "$ver" ] \
	&& [ -f "$out/build/config.h" ]; then
	exit 0
fi

echo "prepare-slurm: preparing Slurm $ver headers in $out"
rm -rf "$out"
mkdir -p "$out/dl"
cd "$out/dl"
if apt-get source --download-only -qq "slurm-wlm=$ver" >apt-source.log 2>&1; then
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
		exit 1
	fi
	echo "prepare-slurm: Debian's packaging of $ver is not served; using its upstream tarball"
	mkdir -p "$out/src"
	tar -xf "$out/dl/$name" -C "$out/src" --strip-components=1
fi
cd "$out/src"
if [ -f debian/patches/series ]; then
	grep -v '^\s*#' debian/patches/series | while read -r p _; do
		[ -n "$p" ] || continue
		patch -s -p1 < "debian/patches/$p"
	done
fi
mkdir -p "$out/build"
cd "$out/build"
pmix=()
[ -f /usr/lib/x86_64-linux-gnu/pmix2/include/pmix.h ] && pmix=(--with-pmix=/usr/lib/x86_64-linux-gnu/pmix2)
"$out/src/configure" --prefix=/usr --sysconfdir=/etc/slurm \
	--libdir=/usr/lib/x86_64-linux-gnu \
	--with-pkglibdir=/usr/lib/x86_64-linux-gnu/slurm-wlm \
	--with-munge --enable-pam --without-rpath --disable-debug --enable-multiple-slurmd \
	"${pmix[@]}" >configure.log 2>&1 \
	|| { echo "prepare-slurm: configure failed, see $out/build/configure.log" >&2; exit 1; }
echo "$ver" > "$out/VERSION"
echo "prepare-slurm: ok"
