#!/usr/bin/env bash
# Owns `make deb`: builds build/gpuquota_<version>_<arch>.deb from what
# `make all` built, with dpkg's own tools and the metadata in debian/:
# control (Depends on the Slurm built against), changelog, copyright,
# install (what goes where).  The version is the changelog's plus
# "+slurm<X.Y.Z>": a package per Slurm version.  Prints the path.
#
# BUILD, SLURM (make's; default build, build/slurm): where the plugins and
# the prepared headers are.  Headers of the installed slurm-wlm: the package
# depends on that exact slurmctld.  Headers prepared from a source
# (`make deb SLURM_VERSION=V` or `SLURM_SRC=PATH`): a Slurm Debian does not
# package; the version from the source's META, the command from
# BUILD/pkg/gpuquota (linked against SLURM_PREFIX's libslurm, no rpath), and
# the package depends on slurmctld of that upstream version, any revision
# (GQ_DEB_SLURM_DEPENDS overrides, e.g. SchedMD's slurm-smd-slurmctld).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "make-deb: error: $*" >&2; exit 1; }

build=${BUILD:-build}
sdir=${SLURM:-$build/slurm}
prepared=$(cat "$sdir/VERSION" 2>/dev/null || true)
cli=$build/gpuquota
if [[ $prepared == source\ * ]]; then
	upstream=$(awk '$1 == "Version:" { print $2; exit }' "$sdir/src/META")
	[[ -n $upstream ]] || die "$sdir/src/META has no Version"
	slurm=$upstream
	depends=${GQ_DEB_SLURM_DEPENDS:-slurmctld (>= $upstream), slurmctld (<< $upstream.0~)}
	[[ -n ${SLURM_PREFIX:-} && -f $SLURM_PREFIX/include/slurm/slurm.h ]] \
		|| die "Slurm $upstream from source: the command needs it installed (SLURM_PREFIX=DIR, or SLURM_VERSION=V)"
	cli=$build/pkg/gpuquota
	shlibs_opts=(--ignore-missing-info -l"$SLURM_PREFIX/lib")
else
	slurm=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) \
		|| die "slurmctld is not installed: the package depends on its exact version"
	[[ $prepared == "$slurm" ]] \
		|| die "$sdir is for Slurm '$prepared', slurmctld is $slurm: run make"
	upstream=${slurm#*:}
	upstream=${upstream%%-*}
	depends="slurmctld (= $slurm)"
	shlibs_opts=()
fi
for f in "$build"/libgpuquota.so "$build"/priority_gpuquota.so "$build"/preempt_gpuquota.so \
	"$build"/job_submit_gpuquota.so "$cli"; do
	[[ -f $f ]] || die "$f missing: run make"
done
version="$(dpkg-parsechangelog -S Version)+slurm$upstream"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

stage=$build/deb/gpuquota
rm -rf "$build/deb"
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
		# this build's files (debian/install names the host's build/)
		case $src in
		build/gpuquota) src=$cli ;;
		build/*) src=$build/${src#build/} ;;
		esac
		for f in $src; do
			[[ -f $f ]] || die "debian/install: $f not found"
			case $f in
			"$build"/*) install -m 755 "$f" "$dest/" ;;
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
# (a Slurm built from source: its libslurm belongs to no package here)
dpkg-shlibdeps -T"$build/deb/substvars" "${shlibs_opts[@]}" -l"$stage/usr/lib/$multiarch/slurm-wlm" \
	"$stage"/usr/lib/*/slurm-wlm/*.so "$stage/usr/bin/gpuquota" 2>"$build/deb/shlibdeps.log" \
	|| { cat "$build/deb/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
dpkg-gencontrol -pgpuquota -v"$version" -T"$build/deb/substvars" -f"$build/deb/files" \
	-P"$stage" -Vslurm:Depends="$depends" -Vmisc:Depends=
out=build/gpuquota_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out"
