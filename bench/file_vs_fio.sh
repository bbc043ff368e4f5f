#!/usr/bin/env bash
# rdmaperf -x file:PATH side by side with fio on the same file, reported as
# ratios rdmaperf / fio: IOPS and MiB/s (target >= 0.95), and latency p50
# and p99 next to fio's (target: rdmaperf's close to fio's "lat").
#
# For each workload (sequential and random, read and write) and each block
# size, the same settings on both sides (submission included: rdmaperf
# --post-list 1 submits each SQE alone, as fio does by default; with
# BATCH=1, rdmaperf's default, every free slot in one submit, against fio
# --iodepth_batch_submit=Q --iodepth_batch_complete_max=Q):
#   fio --ioengine=io_uring --direct=1 --fixedbufs=1 --bs=BS --iodepth=Q
#       --rw=read|write|randread|randwrite --size=SIZE --filename=PATH
#       --time_based --runtime=SEC --lat_percentiles=1 --output-format=json
#   rdmaperf -x file:PATH -o R|W [--random] -S BS -q Q --file-size SIZE
#       -t SEC --json
# fixedbufs=1: rdmaperf registers its buffers with the ring (fio's default
# is not to). One file, made once (written in full) before the first run
# and removed at the end, serves both tools: rdmaperf reads an existing
# file as it is and writes over it, as fio does; neither creates nor fills
# it in a measured run. The tools take turns going first, ROUNDS times;
# the table gives medians (of the figures; a ratio is the median of the
# rounds' ratios). Before every run the whole file is read once with
# O_DIRECT: under a virtual disk the host's page cache keeps what the run
# before read, and whichever tool went second would read faster (measured
# here: up to 1.3x at 1 MiB).
#
# Latency: rdmaperf times each operation from just before it is prepared
# and submitted to the moment its CQE is reaped, which is fio's total
# latency ("lat" = slat + clat: from the I/O unit's creation to its
# completion), not its completion latency ("clat": from submission on).
# Both are printed; the ratio is to lat.
#
#   bench/file_vs_fio.sh [RDMAPERF] [DIR]
# env: BS ("4k 1m"), DEPTH (32 at 4k; 16 above), SIZE (1G), SEC (5),
#      ROUNDS (4), RW ("read write randread randwrite"), BATCH (0; 1:
#      batched submission on both sides, as above), FIO_EXTRA (more
#      fio options, e.g. --iodepth_batch_submit=32 to batch as rdmaperf
#      does), RP_EXTRA (more rdmaperf options, e.g. --wait event),
#      RP_BENCH_KEEP (a directory for the raw JSON of both tools)
set -euo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
DIR=${2:-/var/tmp}
BS=${BS:-"4k 1m"}
SIZE=${SIZE:-1G}
SEC=${SEC:-5}
ROUNDS=${ROUNDS:-4}
read -r -a FIO_X <<<"${FIO_EXTRA:-}"
read -r -a RP_X <<<"${RP_EXTRA:-}"
[ "${BATCH:-0}" = 1 ] || RP_X+=(--post-list 1)
RW=${RW:-"read write randread randwrite"}
HERE=$(dirname "$0")
# shellcheck source=bench/common.sh
. "$HERE/common.sh"

command -v fio >/dev/null || {
	echo "file_vs_fio: fio is not installed (scripts/install-deps.sh)" >&2
	exit 77
}
WORK=$(mktemp -d "$DIR/rp-fio-XXXXXX")
OUT=${RP_BENCH_KEEP:-$WORK/out}
mkdir -p "$OUT"
FILE=$WORK/file
trap 'rm -rf "$WORK"' EXIT

depth_of() { [ "$1" = 4k ] && echo "${DEPTH:-32}" || echo "${DEPTH:-16}"; }

# The whole file once, so that the host's cache holds what it holds for
# both tools alike.
warm() {
	dd if="$FILE" of=/dev/null bs=1M iflag=direct status=none
}

run_fio() { # RW BS Q JSON
	local b=()
	[ "${BATCH:-0}" = 1 ] && b=(--iodepth_batch_submit="$3"
		--iodepth_batch_complete_max="$3")
	warm
	fio "${b[@]}" "${FIO_X[@]}" --name=bench --filename="$FILE" --ioengine=io_uring --direct=1 \
		--fixedbufs=1 --rw="$1" --bs="$2" --iodepth="$3" \
		--size="$SIZE" --time_based --runtime="$SEC" \
		--lat_percentiles=1 --clat_percentiles=1 \
		--output-format=json >"$4"
}

run_rp() { # RW BS Q JSON
	local op=R rnd=()
	case $1 in *write) op=W ;; esac
	case $1 in rand*) rnd=(--random) ;; esac
	warm
	"$RP" "${RP_X[@]}" -x "file:$FILE" -o "$op" "${rnd[@]}" -S "$2" -q "$3" \
		--file-size "$SIZE" -t "$SEC" --json >"$4" || true
}

# One figure of a fio JSON file (its one job, its direction).
fget() { # JSON DIR EXPR(j: the direction's object)
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][0][sys.argv[2]]
try:
    print(eval(sys.argv[3]))
except Exception as e:
    print("nan")
' "$@"
}

fio_dir() { case $1 in *write) echo write ;; *) echo read ;; esac; }
pct() { printf 'j["%s"]["percentile"]["%s"] / 1e3' "$1" "$2"; }

# The file, written once in full (a layout no run then pays for).
fio --name=layout --filename="$FILE" --ioengine=psync --rw=write \
	--bs=1m --size="$SIZE" --end_fsync=1 --output=/dev/null

printf '%-22s %10s %10s %6s %9s %9s %6s %9s %9s %9s %9s %9s %9s\n' \
	workload rp_IOPS fio_IOPS ratio rp_MiB/s fio_MiB/s ratio \
	rp_p50 fio_lat50 fio_clat50 rp_p99 fio_lat99 fio_clat99
for bs in $BS; do
	q=$(depth_of "$bs")
	for rw in $RW; do
		rows=()
		for r in $(seq 1 "$ROUNDS"); do
			tag="$OUT/$rw-$bs-q$q-$r"
			if [ $((r % 2)) = 1 ]; then
				run_rp "$rw" "$bs" "$q" "$tag.rp.json"
				run_fio "$rw" "$bs" "$q" "$tag.fio.json"
			else
				run_fio "$rw" "$bs" "$q" "$tag.fio.json"
				run_rp "$rw" "$bs" "$q" "$tag.rp.json"
			fi
			d=$(fio_dir "$rw")
			rows+=("$(
				jget 'd["results"][0]["throughput"]["messages_per_second"]' <"$tag.rp.json"
				fget "$tag.fio.json" "$d" 'j["iops"]'
				jget 'd["results"][0]["throughput"]["mib_per_second"]' <"$tag.rp.json"
				fget "$tag.fio.json" "$d" 'j["bw_bytes"] / 1048576'
				jget 'd["results"][0]["latency"]["p50"]' <"$tag.rp.json"
				fget "$tag.fio.json" "$d" "$(pct lat_ns 50.000000)"
				fget "$tag.fio.json" "$d" "$(pct clat_ns 50.000000)"
				jget 'd["results"][0]["latency"]["p99"]' <"$tag.rp.json"
				fget "$tag.fio.json" "$d" "$(pct lat_ns 99.000000)"
				fget "$tag.fio.json" "$d" "$(pct clat_ns 99.000000)"
			)")
		done
		printf '%s\n' "${rows[@]}" | python3 -c '
import math, statistics, sys
vals = [float(x) for x in sys.stdin.read().split()]
n = 10
rs = [vals[i:i + n] for i in range(0, len(vals), n)]
med = [statistics.median(r[k] for r in rs) for k in range(n)]
ratio = lambda a, b: a / b if b and not math.isnan(a + b) else math.nan
iops = statistics.median(ratio(r[0], r[1]) for r in rs)
mib = statistics.median(ratio(r[2], r[3]) for r in rs)
print("%-22s %10.0f %10.0f %6.3f %9.1f %9.1f %6.3f %9.1f %9.1f %9.1f "
      "%9.1f %9.1f %9.1f" % (sys.argv[1], med[0], med[1], iops, med[2],
      med[3], mib, med[4], med[5], med[6], med[7], med[8], med[9]))
' "$rw $bs q$q"
	done
done
echo "submission: $([ "${BATCH:-0}" = 1 ] && echo "batched on both sides" ||
	echo "one SQE a submit on both sides (rdmaperf --post-list 1)")"
echo "latency in us; rp = rdmaperf (post to CQE), lat = fio's slat+clat," \
	"clat = fio's from submission; ratios rdmaperf / fio, medians of" \
	"$ROUNDS round(s) of $SEC s on $DIR ($SIZE file)"
