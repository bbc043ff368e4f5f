#!/usr/bin/env bash
# The socket transports side by side with their peer tools on the RDMA
# device's address, in one guest boot (or on real hardware with
# RP_BENCH_ADDR), reported as ratios rdmaperf / peer:
#
#   rsocket: rdmaperf -x rsocket against rstream (rdmacm-utils), at 64 B
#     and 4 KiB. rstream (librdmacm/examples/rstream.c) runs, per
#     iteration (-I), -C messages from client to server and then -C back:
#       -C 1 -I N  a ping-pong: usec/xfer = time / (2 N) is half the round
#                  trip. Against rdmaperf's latency_unloaded.mean (half
#                  the round trip of its write ping-pong).
#       -C N -I 1  a burst of N messages one way, then N back (its
#                  "bandwidth" tests): the directions take turns, so its
#                  Gb/sec (2 N x size x 8 / time, both directions' bytes)
#                  is the one-way streaming rate, less one turn-around.
#                  Against rdmaperf's throughput (-o write -C N, one way),
#                  -q deep enough to cover rstream's socket buffers (it
#                  sets SO_SNDBUF and SO_RCVBUF to 512 KiB): 512 KiB /
#                  size, at most 4096. rstream prints Gb/sec and time with
#                  2 decimals only; the figure here is derived from its
#                  usec/xfer (size x 8 / usec/xfer / 1000), which has more.
#     Waiting, like for like (WAIT: "event", "busy" or both):
#       event  rdmaperf --wait event (waits in rpoll() on each side)
#              against rstream -T a -T b: rpoll() before each call, with
#              no timeout, and blocking calls. Both spin for rsockets'
#              polling_time (10 us by default) and then sleep on the
#              completion channel.
#       busy   rdmaperf --wait busy (nonblocking calls, spinning) against
#              rstream's default, which is not blocking: it sets
#              O_NONBLOCK and MSG_DONTWAIT and spins on rsend/rrecv (its
#              -T n). rstream -T b alone (blocking calls, no rpoll) was
#              seen a little slower than -T a -T b on rxe (ping-pong at
#              64 B: 139 us against 114; rstream's default: 22).
#     Warm-up: rstream exchanges 16 bytes each way before it starts its
#     clock, nothing more. rdmaperf warms up with RS_WARMUP (100) messages,
#     not counted: without them its busy-mode ping-pong over rsocket starts
#     with a few hundred slow round trips on rxe (p50 19 us, p90 3.9 ms,
#     mean 722 us; with --warmup 100: p50 21 us, mean 27 us), which would
#     make a comparison of means one of start-up transients.
#   tcp: rdmaperf -x tcp -o write against iperf3 on the same address, one
#     stream, 64 KiB messages (iperf3 -l), the same duration; rdmaperf at
#     depth 128 to cover the socket buffer (see bench/tcp_vs_peers.sh);
#     Gb/s of what the receiver got; medians of ROUNDS rounds.
#
#   bench/transports_vs_peers.sh [RDMAPERF] [SECONDS]
#   env: WAIT ("event"), RS_SIZES ("64 4096"), RS_LAT_ITERS (2000),
#        RS_BW_BYTES (1280000: the burst's messages are this / size, at
#        least 2000), RS_WARMUP (100), RS_TIMEOUT (60 s a run), ROUNDS (3:
#        each rsocket figure the median of this many runs, the tools taking
#        turns to go first; the ratio paired over the rounds, with its
#        95% interval and verdict: bench/paired.py),
#        RP_BENCH_ONLY (sections, default "rsocket tcp"), RP_BENCH_KEEP (a
#        directory for the raw outputs)
set -euo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
SECS=${2:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${RP_VM:-}" ] && [ -z "${RP_BENCH_ADDR:-}" ]; then
	[ -z "${RP_BENCH_KEEP:-}" ] || mkdir -p "$RP_BENCH_KEEP"
	exec "$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-900}" \
		--mem "${RP_BENCH_MEM:-1024}" ${RP_BENCH_KEEP:+--rw "$RP_BENCH_KEEP"} -- \
		env WAIT="${WAIT:-}" RS_SIZES="${RS_SIZES:-}" \
		RS_WARMUP="${RS_WARMUP:-}" RS_TIMEOUT="${RS_TIMEOUT:-}" \
		ROUNDS="${ROUNDS:-}" \
		RP_BENCH_KEEP="${RP_BENCH_KEEP:+$(realpath "$RP_BENCH_KEEP")}" \
		RS_LAT_ITERS="${RS_LAT_ITERS:-}" RS_BW_BYTES="${RS_BW_BYTES:-}" \
		RP_BENCH_ONLY="${RP_BENCH_ONLY:-}" \
		bash "$HERE/transports_vs_peers.sh" "$RP" "$SECS"
fi
# shellcheck source=bench/common.sh
. "$HERE/common.sh"
ADDR=${RP_BENCH_ADDR:-$RP_VM_ADDR}
WAIT=${WAIT:-event}
RS_SIZES=${RS_SIZES:-64 4096}
RS_LAT_ITERS=${RS_LAT_ITERS:-2000}
RS_BW_BYTES=${RS_BW_BYTES:-1280000}
RS_WARMUP=${RS_WARMUP:-100}
ROUNDS=${ROUNDS:-3}
ONLY=${RP_BENCH_ONLY:-rsocket tcp}
ulimit -l unlimited 2>/dev/null || true

# keep_text NAME TEXT: TEXT into RP_BENCH_KEEP/NAME, if set. keep_tee NAME:
# stdin to stdout, and a copy there.
keep_text() {
	[ -z "${RP_BENCH_KEEP:-}" ] ||
		printf '%s\n' "$2" >"$RP_BENCH_KEEP/${1// /_}" || true
}
keep_tee() {
	if [ -n "${RP_BENCH_KEEP:-}" ]; then
		tee "$RP_BENCH_KEEP/${1// /_}"
	else
		cat
	fi
}

PORT=$(bench_free_port $((21000 + RANDOM % 4000)))
RS_PORT=$((PORT + 100))
pids=()
tmp=$(mktemp -d)
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true
	rm -rf "$tmp"' EXIT
"$RP" -s -a "$ADDR" -p "$PORT" --quiet &
pids+=($!)
bench_listening "$PORT" "${pids[0]}" || {
	echo "bench: the rdmaperf server did not start" >&2
	exit 1
}
# rp ARGS...: one rdmaperf client run, its JSON into $tmp/rp.json; read it
# once rp has returned. Not into a pipe: its reader (python3, whose start
# takes a second of CPU in the emulated guest) would run beside the
# measurement on one of the guest's two vCPUs, which rstream's runs (read
# after they end) never have beside them. In one boot that made rdmaperf's
# event 64 B ping-pong mean 532 us against 251 read from a file.
rp() {
	timeout "${RP_TIMEOUT:-300}" "$RP" -c -a "$ADDR" -p "$PORT" --json \
		"$@" >"$tmp/rp.json"
}

# rstream ARGS...: one run, server and client, a port of its own; prints
# the client's usec/xfer (its last column) or nan. rsockets listen on an
# rdma_cm port space of their own, which /proc/net/tcp does not show: the
# client is retried until the server takes it.
# A run that hangs (rsockets' rpoll() was seen to sleep on well past any
# progress on rxe, about one run in four with -T a) is killed after
# RS_TIMEOUT seconds and run again, twice at most, each time said on stderr.
rstream_run() {
	local srv out="" try rc
	for try in 1 2 3; do
		RS_PORT=$((RS_PORT + 1))
		timeout "${RS_TIMEOUT:-60}" rstream -b "$ADDR" -p "$RS_PORT" "$@" \
			>/dev/null 2>&1 &
		srv=$!
		for _ in $(seq 1 50); do
			sleep 0.2
			rc=0
			out=$(timeout "${RS_TIMEOUT:-60}" rstream -s "$ADDR" \
				-p "$RS_PORT" "$@" 2>&1) || rc=$?
			[ "$rc" != 0 ] || break
			[ "$rc" != 124 ] || break
			kill -0 "$srv" 2>/dev/null || break
		done
		kill "$srv" 2>/dev/null || true
		wait "$srv" 2>/dev/null || true
		keep_text "rstream$*${r:+.$r}.try$try.txt" "$out"
		case $out in *custom*) break ;; esac
		printf 'bench: rstream %s, try %s: no result (exit %s): %s\n' \
			"$*" "$try" "$rc" "$(printf '%s' "$out" | tail -n 2 |
				tr '\n' ' ')" >&2
	done
	printf '%s\n' "$out" | awk '/^custom/ { v = $NF } END { print v ? v : "nan" }'
}

# The four measurements of one size and wait mode; they read w, size,
# rs_wait, n, q and r (the round) from rsocket_part. rp_lat also appends
# its p50 and p99 to $tmp/tail.
rp_lat() {
	local lat a p50 p99
	rp -x rsocket --wait "$w" -o W -S "$size" --no-bandwidth \
		--warmup "$RS_WARMUP" --lat-iterations "$RS_LAT_ITERS" || true
	lat=$(keep_tee "rp-rsocket-$w-$size-lat.$r.json" <"$tmp/rp.json" |
		jget "' '.join('%.4g' % d['results'][0]['latency_unloaded'][k]
			for k in ('mean', 'p50', 'p99'))") || lat=nan
	read -r a p50 p99 <<<"$lat"
	echo "${p50:-nan} ${p99:-nan}" >>"$tmp/tail"
	echo "$a"
}
rs_lat() { rstream_run "${rs_wait[@]}" -S "$size" -C 1 -I "$RS_LAT_ITERS"; }
rp_bw() {
	rp -x rsocket --wait "$w" -o W -S "$size" -q "$q" -C "$n" \
		--warmup "$RS_WARMUP" --no-latency || true
	keep_tee "rp-rsocket-$w-$size-bw.$r.json" <"$tmp/rp.json" |
		jget "$JQ_GBPS"
}
rs_bw() {
	local us
	us=$(rstream_run "${rs_wait[@]}" -S "$size" -C "$n" -I 1)
	python3 -c "import sys
try: print($size * 8 / float(sys.argv[1]) / 1e3)
except (ValueError, ZeroDivisionError): print('nan')" "$us"
}

rsocket_part() {
	local w desc size n q r
	local -a rs_wait
	for w in $WAIT; do
		case $w in
		event)
			rs_wait=(-T a -T b)
			desc="both sleep: rdmaperf --wait event, rstream -T a -T b"
			;;
		busy)
			rs_wait=()
			desc="both spin: rdmaperf --wait busy, rstream's default (nonblocking)"
			;;
		*) echo "bench: WAIT: event or busy, not $w" >&2; return 2 ;;
		esac
		echo "== rsocket ($desc; rdmaperf --warmup $RS_WARMUP, rstream" \
			"none; medians of $ROUNDS rounds)"
		bench_sum_header
		for size in $RS_SIZES; do
			: >"$tmp/tail"
			bench_pair "rsocket ${size}B half-rtt mean us (-C 1 -I $RS_LAT_ITERS)" \
				rp_lat rs_lat
			# rstream gives its mean only; rdmaperf's tail shows here.
			echo "    (rdmaperf's p50 $(cut -d" " -f1 "$tmp/tail" |
				bench_median %.4g) us, p99 $(cut -d" " -f2 "$tmp/tail" |
				bench_median %.4g) us)"
			n=$((RS_BW_BYTES / size))
			[ "$n" -ge 2000 ] || n=2000
			q=$((524288 / size))
			[ "$q" -le 4096 ] || q=4096
			[ "$q" -ge 1 ] || q=1
			bench_pair "rsocket ${size}B Gb/s q$q (-C $n -I 1)" rp_bw rs_bw
		done
		echo
	done
}

tcp_ip() {
	iperf3 -c "$ADDR" -p "$IP_PORT" -l 65536 -t "$SECS" -J \
		>"$tmp/iperf3.json" || true
	jget 'd["end"]["sum_received"]["bits_per_second"] / 1e9' \
		<"$tmp/iperf3.json"
}
tcp_rp() {
	rp -x tcp -o W -S 65536 -q 128 -t "$SECS" --no-latency || true
	jget "$JQ_GBPS" <"$tmp/rp.json"
}
tcp_part() {
	IP_PORT=$(bench_free_port $((PORT + 1)))
	iperf3 -s -B "$ADDR" -p "$IP_PORT" >/dev/null 2>&1 &
	pids+=($!)
	bench_listening "$IP_PORT" || echo "bench: iperf3 did not start" >&2
	echo "== tcp on $ADDR, one stream, 64 KiB, ${SECS} s, medians of" \
		"$ROUNDS rounds"
	bench_sum_header
	bench_pair "tcp 64KiB Gb/s (iperf3)" tcp_rp tcp_ip
	echo
}

echo "# rdmaperf $("$RP" --version 2>/dev/null | head -n 1) vs rstream" \
	"and iperf3 on $ADDR"
# Sections of bench/rdma_vs_perftest.sh (bench/guest_vs_peers.sh passes
# one RP_BENCH_ONLY to both) are left to it.
for part in $ONLY; do
	case $part in
	rsocket | tcp) "${part}_part" ;;
	sweep | streams | ops | lat | msgrate | floor) ;;
	*) echo "bench: unknown section $part" >&2; exit 2 ;;
	esac
done
