#!/usr/bin/env bash
# Owns `make deb`: builds build/gpuquota_<version>_<arch>.deb from what
# `make all` built, with dpkg's own tools and the metadata in debian/:
# control (Depends on the exact slurmctld built against), changelog,
# copyright, install (what goes where).  The version is the changelog's
# plus "+slurm<X.Y.Z>": a package per Slurm version.  Prints the path.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "make-deb: error: $*" >&2; exit 1; }

slurm=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) \
	|| die "slurmctld is not installed: the package depends on its exact version"
prepared=$(cat build/slurm/VERSION 2>/dev/null || true)
[[ $prepared == "$slurm" ]] \
	|| die "build/slurm is for Slurm '$prepared', slurmctld is $slurm: run make"
for f in build/libgpuquota.so build/priority_gpuquota.so build/preempt_gpuquota.so build/job_submit_gpuquota.so build/gpuquota; do
	[[ -f $f ]] || die "$f missing: run make"
done
upstream=${slurm#*:}
upstream=${upstream%%-*}
version="$(dpkg-parsechangelog -S Version)+slurm$upstream"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

stage=build/deb/gpuquota
rm -rf build/deb
mkdir -p "$stage/DEBIAN"
# debian/install: "SOURCE... DESTDIR" per line, ${DEB_HOST_MULTIARCH} as
# debhelper substitutes it.
while read -r line; do
	[[ -z $line || $line == \#* ]] && continue
	line=${line//'${DEB_HOST_MULTIARCH}'/$multiarch}
	read -ra words <<<"$line"
	dest=$stage/${words[-1]}
	install -d "$dest"
	for src in "${words[@]:0:${#words[@]}-1}"; do
		for f in $src; do
			[[ -f $f ]] || die "debian/install: $f not found"
			case $f in
			build/*) install -m 755 "$f" "$dest/" ;;
			*) install -m 644 "$f" "$dest/" ;;
			esac
		done
	done
done <debian/install
find "$stage/usr/share/man" -type f -exec gzip -9n {} +
install -d "$stage/usr/share/doc/gpuquota"
install -m 644 debian/copyright "$stage/usr/share/doc/gpuquota/"
gzip -9nc debian/changelog >"$stage/usr/share/doc/gpuquota/changelog.Debian.gz"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$stage"/usr/lib/*/slurm-wlm/*.so "$stage/usr/bin/gpuquota"

# Depends: the libraries the binaries link (dpkg-shlibdeps; our own
# libgpuquota.so is found beside the plugins) and slurmctld, exactly.
dpkg-shlibdeps -Tbuild/deb/substvars -l"$stage/usr/lib/$multiarch/slurm-wlm" \
	"$stage"/usr/lib/*/slurm-wlm/*.so "$stage/usr/bin/gpuquota" 2>build/deb/shlibdeps.log \
	|| { cat build/deb/shlibdeps.log >&2; die "dpkg-shlibdeps failed"; }
dpkg-gencontrol -pgpuquota -v"$version" -Tbuild/deb/substvars -fbuild/deb/files \
	-P"$stage" -Vslurm:Version="$slurm" -Vmisc:Depends=
out=build/gpuquota_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out"
