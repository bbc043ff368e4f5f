#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pkg.deb: the Debian package, built, judged and installed for real.
#
#   package.sh SRC WORK RDMAPERF
#
# 1. copies the tree SRC (its files git knows, or all but build*/) to
#    WORK/src and builds the packages there: dpkg-buildpackage -b;
# 2. its version is the one RDMAPERF (this build) prints;
# 3. lintian, every tag up to pedantic, fails on any not overridden
#    (debian/*.lintian-overrides say why each one is);
# 4. a clean root: mmdebstrap, Debian's minbase of this host's release
#    from this host's apt sources, with only the packages' Depends (each
#    first alternative, as apt chooses); inside it dpkg -i of both
#    packages, then rdmaperf --version, the user the units run as, a
#    loopback test over TCP from the installed files, the --matrix
#    module's libraries and a 2-rank --matrix under mpirun (the launcher,
#    openmpi-bin, is the one package beyond the Depends), and the server
#    unit's command (rdmaperf -s with /etc/default/rdmaperf-server's
#    options) as the user rdmaperf serving a test (serve_as_user.sh);
#    each JSON document checked against the installed schemas;
# 5. systemd-analyze verify of both units against that root (no output
#    allowed: it warns and exits 0 on an unknown key), and
#    systemd-analyze security, whose exposure must stay at or below 2.5.
#
# Needs root (a chroot), dpkg-dev, debhelper, lintian, mmdebstrap and apt
# reaching the mirror; exit 77 where one is missing, unless CI=true.
# Everything is under WORK; the root is removed when the test passes.
set -euo pipefail

src=$1 work=$2 built=$3
skip()
{
	echo "pkg.deb: SKIP: $*"
	if [ "${CI:-}" = true ]; then
		echo "pkg.deb: CI=true: scripts/install-deps.sh installs it" >&2
		exit 1
	fi
	exit 77
}
fail()
{
	echo "pkg.deb: FAIL: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || skip "not root: the clean root is a chroot"
for t in dpkg-buildpackage dh lintian mmdebstrap systemd-analyze; do
	command -v "$t" >/dev/null || skip "$t is not installed"
done
python3 -c 'import jsonschema' 2>/dev/null || skip "no python3-jsonschema"

rm -rf "$work"
mkdir -p "$work/src"
# 1. the tree as git sees it (no build directories), or all but build*/
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$src" && git ls-files -co --exclude-standard -z |
		xargs -0 cp -a --parents -t "$work/src")
else
	(cd "$src" && tar --exclude='./build*' -cf - .) |
		tar -xf - -C "$work/src"
fi
echo "== dpkg-buildpackage -b (log: $work/build.log)"
start=$SECONDS
if ! (cd "$work/src" && dpkg-buildpackage -b -uc -us -j"$(nproc)") \
	>"$work/build.log" 2>&1; then
	tail -30 "$work/build.log"
	fail "dpkg-buildpackage failed"
fi
echo "   $((SECONDS - start)) s"
version=$(cd "$work/src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$work/rdmaperf_${version}_$arch.deb
mpi=$work/rdmaperf-mpi_${version}_$arch.deb
if [ ! -f "$deb" ] || [ ! -f "$mpi" ]; then
	fail "no $deb or $mpi"
fi

# 2. debian/changelog says the version rdmaperf --version prints
said=$("$built" --version)
[ "$said" = "rdmaperf $version" ] ||
	fail "debian/changelog's version $version, the build's '$said'"
echo "   version $version, as rdmaperf --version"

# 2b. every line of the options files, and each commented example, is one
#     the binary takes (its key file made for the check)
key=$work/server.key
echo "a key for the check" >"$key"
chmod 600 "$key"
check_args()
{
	local file=$1 var=$2 line args
	shift 2
	grep -E "^#?$var=" "$file" | while IFS= read -r line; do
		args=${line#*=\"}
		args=${args%\"}
		args=${args//\/etc\/rdmaperf\/server.key/$key}
		# shellcheck disable=SC2086 # split, as systemd splits $VAR
		"$built" "$@" $args --help >/dev/null ||
			fail "${file##*/}: '$line' is refused (above)"
		echo "   ${file##*/}: $line"
	done
}
check_args "$work/src/dist/default/rdmaperf-server" RDMAPERF_SERVER_ARGS -s
if "$built" --help | grep -q 'rdmaperf monitor'; then
	check_args "$work/src/dist/default/rdmaperf-monitor" RDMAPERF_MONITOR_ARGS \
		monitor
fi

# 3. lintian: nothing left but what is overridden with a reason
echo "== lintian"
lint=$(lintian --info --pedantic --display-experimental --fail-on \
	error,warning,info,pedantic,experimental \
	"$work/rdmaperf_${version}_$arch.changes" 2>&1) || {
	echo "$lint"
	fail "lintian: the tags above"
}
echo "   clean (overrides: $(cat "$work"/src/debian/*.lintian-overrides |
	grep -vc '^#'))"

# 4. a clean root with the Depends alone, both packages installed by dpkg
deps=$( (dpkg-deb -f "$deb" Depends; dpkg-deb -f "$mpi" Depends) |
	tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' |
	grep -v '^rdmaperf$' | grep . | sort -u | paste -sd, -)
# and mpirun (openmpi-bin, which rdmaperf-mpi recommends) for --matrix
deps=$deps,openmpi-bin
# shellcheck disable=SC1091
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list
root=$work/root
out=$work/loopback.json
served=$work/served.json
matrix=$work/matrix.json
# mpirun as root in the root, two ranks on however many cores
mpi_env="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
mpi_env="$mpi_env OMPI_MCA_rmaps_base_oversubscribe=1"
here=$(cd "$(dirname "$0")" && pwd)
export here served matrix mpi_env
echo "== mmdebstrap --variant=minbase $codename, with $deps"
start=$SECONDS
# The hooks run on this host with the root as $1, /proc and /dev
# mounted in it; any that fails fails mmdebstrap. The module's libraries
# (Open MPI's) must all resolve in the root (a script for sh -c there).
# shellcheck disable=SC2016,SC2089,SC2090 # $1, $l: the hooks' shells'
mpi_libs='set -e; l=$(ldd /usr/lib/*/rdmaperf/rdmaperf-mpi.so); echo "$l" |
grep -q "libmpi[.]so.* => /"; if echo "$l" | grep "not found"; then exit 1; fi
echo "rdmaperf-mpi.so: $(echo "$l" | wc -l) libraries, all found"'
# shellcheck disable=SC2090
export mpi_libs
# shellcheck disable=SC2016
TMPDIR=$work mmdebstrap --variant=minbase --mode=root --quiet \
	--include="$deps" \
	--customize-hook="copy-in '$deb' '$mpi' /tmp" \
	--customize-hook='chroot "$1" dpkg -i /tmp/'"${deb##*/} /tmp/${mpi##*/}" \
	--customize-hook='chroot "$1" rdmaperf --version' \
	--customize-hook='chroot "$1" getent passwd rdmaperf' \
	--customize-hook='chroot "$1" rdmaperf --loopback -x tcp -S 64K -C 1000 --json --quiet >'"'$out'" \
	--customize-hook='chroot "$1" sh -c "$mpi_libs"' \
	--customize-hook='bash "$here/serve_as_user.sh" "$1" "$served"' \
	--customize-hook='chroot "$1" env $mpi_env timeout 120 mpirun -np 2 rdmaperf --matrix -a 127.0.0.1 -x tcp -S 4K -C 2000 --wait event --quiet --json >"$matrix"' \
	"$codename" "$root" "$sources" </dev/null >"$work/root.log" 2>&1 || {
	cat "$work/root.log"
	fail "the clean root: install or run failed (above)"
}
echo "   $((SECONDS - start)) s: $(grep -c . "$work/root.log") lines of output:"
sed 's/^/   | /' "$work/root.log"
python3 - "$here/../tools" "$root/usr/share/rdmaperf/schema" "$out" \
	"$served" "$matrix" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import check_json  # the suite's validator, $refs resolved offline
check_json.SCHEMA_DIR = sys.argv[2]  # the installed schemas


def valid(errors, what):
    assert not errors, "%s: %s" % (what, "\n".join(errors))


for path, size, what in ((sys.argv[3], 65536, "--loopback"),
                         (sys.argv[4], 4096, "the service's server")):
    doc = json.load(open(path))
    valid(check_json.validate_doc(doc), what)
    r = doc["results"][0]
    bps = r["throughput"]["bits_per_second"]
    assert r["transport"] == "tcp" and r["ok"] and bps > 0, r
    assert r["messages"] == 1000 and r["size"] == size, r
    print("   %s from the installed files: tcp, 1000 x %d B, %.2f Gb/s, "
          "valid against the installed schema" % (what, size, bps / 1e9))
doc = json.load(open(sys.argv[5]))
valid(check_json.validate_matrix(doc), "--matrix")
cells = doc["matrix"]["cells"]
assert len(cells) == 2 and all(c["ok"] for c in cells), cells
print("   --matrix under mpirun -np 2 from the installed module: 2 pairs "
      "ok, valid against the installed schema")
EOF

# 5. the units, against that root (its systemd, the installed binary and
#    man page)
echo "== systemd-analyze verify"
units=(rdmaperf-server.service rdmaperf-monitor.service)
v=$(MANPATH=$root/usr/share/man systemd-analyze verify --root="$root" \
	"${units[@]}" 2>&1) || fail "systemd-analyze verify: $v"
[ -z "$v" ] || fail "systemd-analyze verify warns: $v"
echo "   ${units[*]}: clean"
for u in "${units[@]}"; do
	e=$(systemd-analyze security --offline=yes --root="$root" "$u" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$e" ] || fail "systemd-analyze security $u: no exposure level"
	echo "   $u: exposure $e (systemd-analyze security; 10 is none)"
	python3 -c "import sys; sys.exit(float('$e') > 2.5)" ||
		fail "$u: exposure $e above 2.5: a hardening line was lost"
done
rm -rf "$root"
echo "pkg.deb: PASS"
