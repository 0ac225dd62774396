#!/usr/bin/env bash
# Owns the Slurm daemons built from SchedMD's source for testing gpuquota on
# releases Debian does not package: builds release V from
# SLURM_SRC_DIR/slurm-V.tar.xz (by default the cache build/slurm-src, where
# an admin puts SchedMD's tarball), its checksum checked against
# scripts/slurm-releases.sha256, into the prefix
# build/slurm-V/install (slurmctld, slurmd, the client commands, munge auth,
# select/cons_tres, gres/gpu, slurmdbd with accounting_storage/mysql for
# the tests in accounting mode; no slurmrestd).
# Cached: a stamp (install/.built: the tarball's checksum and the configure
# flags) makes a second run do nothing.  Also prepares build/slurm-V's internal headers
# (scripts/prepare-slurm.sh --source) when they are missing.
#
#   slurm-build.sh V          build (nice make -j2, src/ and the headers: no
#                             docs, contribs); log build/slurm-V/make.log
#   slurm-build.sh --prefix V print the prefix (exit 1 when not built)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
srcdir=${SLURM_SRC_DIR:-$top/build/slurm-src}
print=0
if [ "${1:-}" = "--prefix" ]; then print=1; shift; fi
v=${1:?usage: slurm-build.sh [--prefix] VERSION (e.g. 25.05.8)}
out=$top/build/slurm-$v
prefix=$out/install
stamp=$prefix/.built
if ((print)); then
	[ -f "$stamp" ] || { echo "slurm-build: $v is not built" >&2; exit 1; }
	echo "$prefix"
	exit 0
fi

tarball=$srcdir/slurm-$v.tar.xz
[ -f "$tarball" ] || { echo "slurm-build: $tarball not found" >&2; exit 1; }
want=$(awk -v f="slurm-$v.tar.xz" '$2 == f { print $1 }' "$top/scripts/slurm-releases.sha256")
have=$(sha256sum "$tarball" | cut -d' ' -f1)
[ -n "$want" ] && [ "$want" = "$have" ] \
	|| { echo "slurm-build: checksum of $tarball does not match scripts/slurm-releases.sha256" >&2; exit 1; }
flags=(--prefix="$prefix" --sysconfdir="$prefix/etc" --with-munge
       --enable-multiple-slurmd --disable-debug --disable-slurmrestd
       --disable-x11 --without-hdf5 --without-rrdtool --without-ucx --without-pmix
       --without-nvml --without-rsmi --without-hwloc
       --without-freeipmi --without-libcurl --without-jwt
       --without-yaml --without-http-parser --without-bpf)
want_stamp="$have ${flags[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then
	exit 0
fi

# Build dependencies (idempotent, as scripts/install-deps.sh).
deps=(build-essential pkg-config libmunge-dev munge python3 libjson-c-dev
      libmariadb-dev libmariadb-dev-compat)
missing=()
for p in "${deps[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "slurm-build: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The headers gpuquota builds against (same tree, configured for /usr).
SLURM_PREP_DIR=$out "$top/scripts/prepare-slurm.sh" --source "$tarball"

echo "slurm-build: building Slurm $v into $prefix (log $out/make.log)"
work=$out/daemons
rm -rf "$work" "$prefix"
mkdir -p "$work/src" "$work/build"
tar -xf "$tarball" -C "$work/src" --strip-components=1
cd "$work/build"
t0=$SECONDS
{
	env -u CFLAGS -u CPPFLAGS -u LDFLAGS "$work/src/configure" "${flags[@]}" \
		&& nice make -j2 -C src \
		&& nice make -C src install \
		&& nice make install-pkgincludeHEADERS
} >"$out/make.log" 2>&1 \
	|| { echo "slurm-build: building $v failed, see $out/make.log" >&2; exit 1; }
[ -x "$prefix/sbin/slurmctld" ] && [ -x "$prefix/sbin/slurmd" ] \
	&& [ -f "$prefix/lib/slurm/priority_multifactor.so" ] \
	&& [ -f "$prefix/lib/slurm/gres_gpu.so" ] && [ -f "$prefix/lib/slurm/auth_munge.so" ] \
	&& [ -x "$prefix/sbin/slurmdbd" ] && [ -f "$prefix/lib/slurm/accounting_storage_mysql.so" ] \
	|| { echo "slurm-build: $v built without a daemon or a plugin the tests need (see $out/make.log)" >&2; exit 1; }
rm -rf "$work"
echo "$want_stamp" >"$stamp"
echo "slurm-build: Slurm $v built in $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s"
