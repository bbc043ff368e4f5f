#!/usr/bin/env bash
# Two builds of rdmaperf side by side: a change's figures against the
# figures of the tree before it, measured in one run, interleaved round by
# round (old then new in odd rounds, new then old in even ones), reported
# as ratios new / old. The machine
# is shared and noisy: only ratios measured together mean something.
#   bench/builds_compare.sh OLD_RDMAPERF NEW_RDMAPERF [ROUNDS]
# TCP on loopback here; rdma on Soft-RoCE in one guest boot (or on real
# hardware with RP_BENCH_ADDR and RP_BENCH_DEV). RP_BENCH_SKIP=tcp or =rdma
# leaves one out.
#   throughput: write 64 KiB at depth 16 (tcp: 3 s; rdma: 2000 messages)
#   latency:    unloaded p50, write 2 B (rdma) / send 64 B (tcp)
# Targets: both ratios within the noise of 1 (throughput >= ~0.95,
# latency <= ~1.05).
set -euo pipefail

OLD=$(realpath "$1")
NEW=$(realpath "$2")
ROUNDS=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
SKIP=${RP_BENCH_SKIP:-}

jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
BW='d["results"][0]["throughput"]["bits_per_second"]/1e9'
LAT='d["results"][0]["latency_unloaded"]["p50"]'

# Server on CPU 1, client on CPU 0 (RP_BENCH_PIN=0: let the scheduler
# place them): on a 2-core machine, whether both land on one core decides
# TCP loopback throughput more than anything either build does (24 to 38
# Gb/s for one build seen unpinned).
PIN_SRV=() PIN_CLI=()
if [ "${RP_BENCH_PIN:-1}" = 1 ] && command -v taskset >/dev/null &&
	[ "$(nproc)" -ge 2 ]; then
	PIN_SRV=(taskset -c 1) PIN_CLI=(taskset -c 0)
fi

# run BIN ADDR XPORT ARGS...: a server of BIN, one client run, JSON out.
run() {
	local bin=$1 addr=$2 xp=$3 port=$((20000 + RANDOM % 20000)) i out=""
	shift 3
	"${PIN_SRV[@]}" "$bin" -s -a "$addr" -p "$port" --quiet --once &
	local srv=$!
	for i in $(seq 1 50); do
		sleep 0.1
		out=$("${PIN_CLI[@]}" "$bin" -c -a "$addr" -p "$port" -x "$xp" \
			--json "$@" 2>/dev/null) && break
		out=""
	done
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	[ -n "$out" ] || { echo "bench: $bin -x $xp did not run" >&2; return 1; }
	printf '%s\n' "$out"
}

# series NAME XPORT ADDR EXPR ARGS...: ROUNDS interleaved pairs, one line
# each, then the median of the ratios.
series() {
	local name=$1 xp=$2 addr=$3 expr=$4 r a b ratios=()
	shift 4
	for r in $(seq 1 "$ROUNDS"); do
		# ABBA: the second of two back-to-back runs was seen ~2% slower
		# whichever build it was; alternate which goes first
		if [ $((r % 2)) = 1 ]; then
			a=$(run "$OLD" "$addr" "$xp" "$@" | jget "$expr")
			b=$(run "$NEW" "$addr" "$xp" "$@" | jget "$expr")
		else
			b=$(run "$NEW" "$addr" "$xp" "$@" | jget "$expr")
			a=$(run "$OLD" "$addr" "$xp" "$@" | jget "$expr")
		fi
		ratios+=("$(python3 -c "print('%.3f' % ($b / $a))")")
		printf '%-6s %-34s %12.3f %12.3f %8s\n' "$r" "$name" "$a" \
			"$b" "${ratios[-1]}"
	done
	printf '%-6s %-34s %12s %12s %8s\n' median "$name" "" "" \
		"$(printf '%s\n' "${ratios[@]}" | sort -n |
			awk '{v[NR]=$1} END {
				printf "%.3f", (v[int((NR+1)/2)] + v[int(NR/2)+1]) / 2}')"
}

header() { printf '%-6s %-34s %12s %12s %8s\n' round test old new new/old; }

tcp_part() {
	echo "== tcp on loopback"
	header
	series "tcp write Gb/s 64KiB q16 3s" tcp 127.0.0.1 "$BW" \
		-o W -S 64K -q 16 -t 3 --no-latency
	series "tcp send p50 us 64B x50000" tcp 127.0.0.1 "$LAT" \
		-o S -S 64 --no-bandwidth --lat-iterations 50000 --warmup 1000
}

rdma_part() {
	local addr=${RP_BENCH_ADDR:-$RP_VM_ADDR} dev=${RP_BENCH_DEV:-rxe0}
	ulimit -l unlimited 2>/dev/null || true
	echo "== rdma on $dev"
	header
	series "rdma write Gb/s 64KiB q16 x2000" rdma "$addr" "$BW" \
		-d "$dev" -o W -S 64K -q 16 -C 2000 --warmup 100 --no-latency
	series "rdma write p50 us 2B x2000" rdma "$addr" "$LAT" \
		-d "$dev" -o W -S 2 --no-bandwidth --lat-iterations 2000 \
		--warmup 100
}

if [ -n "${RP_VM:-}" ] || [ -n "${RP_BENCH_INNER:-}" ]; then
	rdma_part
	exit
fi
[ "$SKIP" = tcp ] || tcp_part
[ "$SKIP" = rdma ] && exit
if [ -n "${RP_BENCH_ADDR:-}" ]; then
	rdma_part
else
	"$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-900}" -- \
		bash "$HERE/builds_compare.sh" "$OLD" "$NEW" "$ROUNDS"
fi
