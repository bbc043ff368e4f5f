#!/usr/bin/env bash
# NFS over RDMA against NFS over TCP, beside the raw RDMA link, in one
# rdmaperf command and so in one comparison table. In the Soft-RoCE guest
# (tests/vm/rxe-run), tests/vm/nfs_setup.sh exports a tmpfs with the
# kernel NFS server over TCP and RDMA and mounts it twice from 10.77.0.1
# (vers=4.2,proto=rdma,port=20049 on /mnt/rdma; vers=4.2,proto=tcp on
# /mnt/tcp); an rdmaperf server listens on rxe0; then:
#   rdmaperf -c -a 10.77.0.1 -p PORT -x rdma,file:/mnt/rdma/f,file:/mnt/tcp/f
#       -o R -S 4K,64K,1M -q 16 --file-size 64M -t SEC --warmup 50
#       --lat-iterations 200
# The rdma column is the link itself (RDMA reads from the server's
# memory), the two file columns the same export read through each mount
# (O_DIRECT: every read goes to the server). The files are created, filled
# and removed by rdmaperf.
#
#   bench/nfs_rdma_vs_tcp.sh [RDMAPERF]
# env: OP (R), SIZES (4K,64K,1M), DEPTH (16), FILE_SIZE (64M), SEC (4),
#      RP_EXTRA (more rdmaperf options), RP_BENCH_KEEP (a directory for the
#      table and nfs_setup.sh's output), RP_BENCH_TIMEOUT (900),
#      RP_BENCH_MEM (1024)
# When NFS over RDMA does not come up, the table has the rdma and the
# NFS/TCP columns only, and the kernel's messages are printed above it.
# Exit status: 77 when the guest cannot boot here, 1 when the NFS server or
# the TCP mount did not come up, else rdmaperf's.
set -euo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
HERE=$(cd "$(dirname "$0")" && pwd)
[ -x "$RP" ] || { echo "bench: $RP not built" >&2; exit 1; }

if [ -z "${RP_VM:-}" ]; then
	vars=()
	for v in OP SIZES DEPTH FILE_SIZE SEC RP_EXTRA; do
		[ -z "${!v:-}" ] || vars+=("$v=${!v}")
	done
	rw=()
	if [ -n "${RP_BENCH_KEEP:-}" ]; then
		mkdir -p "$RP_BENCH_KEEP"
		RP_BENCH_KEEP=$(realpath "$RP_BENCH_KEEP")
		rw=(--rw "$RP_BENCH_KEEP")
		vars+=("RP_BENCH_KEEP=$RP_BENCH_KEEP")
	fi
	rc=0
	"$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-900}" \
		--mem "${RP_BENCH_MEM:-1024}" "${rw[@]}" -- \
		env "${vars[@]}" bash "$HERE/nfs_rdma_vs_tcp.sh" "$RP" || rc=$?
	[ "$rc" != 77 ] || echo "bench: skipped: the Soft-RoCE guest cannot boot here" >&2
	exit "$rc"
fi

# shellcheck source=bench/common.sh
. "$HERE/common.sh"
ADDR=${RP_VM_ADDR:-10.77.0.1}
keep=${RP_BENCH_KEEP:-}

setup_rc=0
setup=$(bash "$HERE/../tests/vm/nfs_setup.sh" /srv/nfs /mnt/rdma /mnt/tcp 2>&1) || setup_rc=$?
echo "$setup"
[ -z "$keep" ] || echo "$setup" >"$keep/nfs_setup.txt"
case $setup_rc in
0) files=file:/mnt/rdma/f,file:/mnt/tcp/f ;;
3)
	echo "bench: NFS over RDMA did not come up (above); the table has NFS over TCP only" >&2
	files=file:/mnt/tcp/f
	;;
*) exit 1 ;;
esac

port=$(bench_free_port 18515)
"$RP" -s -a "$ADDR" -p "$port" --quiet &
srv=$!
trap 'kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null || true' EXIT
bench_listening "$port" "$srv" || { echo "bench: the rdmaperf server did not start" >&2; exit 1; }

read -r -a extra <<<"${RP_EXTRA:-}"
cmd=("$RP" -c -a "$ADDR" -p "$port" -x "rdma,$files" -o "${OP:-R}"
	-S "${SIZES:-4K,64K,1M}" -q "${DEPTH:-16}" --file-size "${FILE_SIZE:-64M}"
	-t "${SEC:-4}" --warmup 50 --lat-iterations 200 "${extra[@]}")
echo "\$ rdmaperf ${cmd[*]:1}"
start=$(date +%s)
rc=0
out=$("${cmd[@]}" 2>&1) || rc=$?
echo "$out"
echo "# $(($(date +%s) - start)) s, exit $rc"
[ -z "$keep" ] || printf '$ rdmaperf %s\n%s\n' "${cmd[*]:1}" "$out" >"$keep/table.txt"
exit "$rc"
