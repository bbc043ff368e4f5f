#!/usr/bin/env bash
# rdmaperf -x ofi:PROVIDER against libfabric's own fi_pingpong on the same
# provider and endpoint type (rdmaperf --ep-type T, fi_pingpong -e T: rdm,
# and msg where the provider has it, tcp's), on loopback, interleaved round
# by round (which goes first alternates), with the paired ratios of
# bench/paired.py.
#
# What each figure is (read from fi_pingpong's source, util/pingpong.c,
# and its man page):
# - fi_pingpong's usec/xfer is the whole timed loop (I iterations of one
#   send and one receive each way, no warm-up) divided by 2 I: the MEAN
#   HALF ROUND TRIP, one number. Messages under the provider's inject_size
#   go with fi_inject (no send completion); the others with fi_send, whose
#   completion it waits for. Its MB/sec is the ping-pong's bytes over the
#   loop's time: not a streaming throughput.
# - rdmaperf -o send -q 1, the latency phase (--no-bandwidth):
#   latency_unloaded.mean is the mean half round trip of I ping-pongs
#   after --warmup ones; pings and echoes within inject_size are injected
#   as fi_pingpong's are (ofi/post.c), larger ones wait for their send's
#   completion as fi_pingpong's do. So mean against usec/xfer is like for
#   like but for the warm-up (rdmaperf leaves its first 1000 out; the
#   rows' first-round effect is in fi_pingpong's figure), and for what the
#   two poll: rdmaperf one CQ for both directions, fi_pingpong a transmit
#   and a receive CQ. rdmaperf's p50 is printed beside, with no peer.
# - Throughput at 64 KiB: fabtests' fi_rma_bw is the peer tool for it, and
#   Debian 12 does not package fabtests (libfabric-bin has fi_info,
#   fi_pingpong and fi_strerror only): rdmaperf's figure is printed alone,
#   with no ratio.
#
# Usage: bench/ofi_vs_fi_pingpong.sh [RDMAPERF] [ITERS] [ROUNDS]
#   env: PROVIDERS ("tcp shm"), EPS ("rdm msg": a provider without msg
#   endpoints, shm, runs rdm alone), RP_BENCH_PIN (1: servers on CPU 1, clients
#   on CPU 0)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$HERE/common.sh"

RP=${1:-build/rdmaperf}
ITERS=${2:-20000}
ROUNDS=${3:-5}
PROVIDERS=${PROVIDERS:-tcp shm}
EPS=${EPS:-rdm msg}
HOST=127.0.0.1

bench_need "$RP" fi_pingpong python3
bench_pin

PORT_RP=$(bench_free_port $((20000 + RANDOM % 5000)))
PORT_PP=$(bench_free_port $((PORT_RP + 1)))
pids=()
tmp=$(mktemp -d)
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

"${PIN_SRV[@]}" "$RP" -s -a "$HOST" -p "$PORT_RP" --quiet &
pids+=($!)
bench_listening "$PORT_RP" || { echo "bench: no rdmaperf server" >&2; exit 1; }

rp_lat() { # rp_lat PROV EP SIZE: rdmaperf's latency JSON into a file
	"${PIN_CLI[@]}" "$RP" -c -a "$HOST" -p "$PORT_RP" -x "ofi:$1" \
		--ep-type "$2" -o send -S "$3" -q 1 --lat-iterations "$ITERS" \
		--no-bandwidth --json >"$tmp/rp.$1.$2.$3" 2>/dev/null || true
}
pp_lat() { # pp_lat PROV EP SIZE: fi_pingpong's usec/xfer, or nan
	local srv out
	"${PIN_SRV[@]}" fi_pingpong -p "$1" -e "$2" -I "$ITERS" -S "$3" \
		-B "$PORT_PP" >/dev/null 2>&1 &
	srv=$!
	bench_listening "$PORT_PP" "$srv" || { echo nan; return; }
	out=$("${PIN_CLI[@]}" timeout 120 fi_pingpong -p "$1" -e "$2" \
		-I "$ITERS" -S "$3" -P "$PORT_PP" "$HOST" 2>/dev/null) || true
	wait "$srv" 2>/dev/null || true
	awk 'NR == 2 { print $7; f = 1 } END { if (!f) print "nan" }' \
		<<<"$out"
}

rows=$tmp/rows
has_ep() { # has_ep PROV EP: does libfabric offer PROV's EP endpoints?
	fi_info -p "$1" -t "FI_EP_${2^^}" >/dev/null 2>&1
}
echo "== ofi on loopback: send ping-pong, $ITERS iterations, $ROUNDS" \
	"rounds; providers: $PROVIDERS; endpoints: $EPS; $PIN_DESC"
for r in $(seq 1 "$ROUNDS"); do
	for prov in $PROVIDERS; do
		for ep in $EPS; do
			has_ep "$prov" "$ep" || continue
			for size in 8 65536; do
				if [ $((r % 2)) = 1 ]; then
					rp_lat "$prov" "$ep" "$size"
					pp=$(pp_lat "$prov" "$ep" "$size")
				else
					pp=$(pp_lat "$prov" "$ep" "$size")
					rp_lat "$prov" "$ep" "$size"
				fi
				f=$tmp/rp.$prov.$ep.$size
				printf 'ofi:%s %s %s B mean us rtt/2\t%s\t%s\n' \
					"$prov" "$ep" "$size" \
					"$(jget "$(jq_unloaded mean)" <"$f")" \
					"$pp" >>"$rows"
			done
		done
	done
done

echo "== over $ROUNDS rounds: medians; the ratio paired round by round," \
	"its 95% interval and verdict (bench/paired.py)"
bench_sum_header
bench_medians "$rows"

echo "== rdmaperf alone (no peer tool: see the header): 8 B p50 half round" \
	"trip, 64 KiB write throughput at depth 16"
for prov in $PROVIDERS; do
	for ep in $EPS; do
		has_ep "$prov" "$ep" || continue
		p50=$(jget "$(jq_unloaded p50)" <"$tmp/rp.$prov.$ep.8")
		"${PIN_CLI[@]}" "$RP" -c -a "$HOST" -p "$PORT_RP" \
			-x "ofi:$prov" --ep-type "$ep" -o write -S 64K -q 16 \
			-t 3 --no-latency --json >"$tmp/bw.$prov.$ep" \
			2>/dev/null || true
		printf '%-34s p50 %s us; 64 KiB write %.2f Gb/s\n' \
			"ofi:$prov $ep" "$p50" \
			"$(jget "$JQ_GBPS" <"$tmp/bw.$prov.$ep")"
	done
done
