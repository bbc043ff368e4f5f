#!/usr/bin/env bash
# rdmaperf -x rdma side by side with perftest on the same device, in one
# guest boot, reported as ratios rdmaperf / perftest (bandwidth and message
# rate: target >= 0.95 in the sweep, >= 1 elsewhere; latency: target <= 1).
#
# sweep and streams run ROUNDS times, the tools taking turns to go first;
# the tables give medians; the floor's summary the paired ratio, its 95%
# interval and verdict (bench/paired.py).
#   sweep    rdmaperf -o write -S 2-1M -q 128 -C N --warmup 0
#            against ib_write_bw -a -n N (tx depth 128, its default), per
#            size: MiB/s and messages/s. ib_write_bw -a goes on to 8 MiB
#            and has no upper bound: its client is stopped once its SWEEP_MAX
#            row is out (every row is measured and printed on its own).
#   streams  rdmaperf -o write -S 64K -q 128 -P 4 -C N --warmup 0
#            against ib_write_bw -q 4 -s 64K -n N (4 QPs, N each, one thread
#            each side as rdmaperf's default -T 1)
#   ops      write, read, send at SIZE, depth DEPTH, ITERS messages, against
#            ib_{write,read,send}_bw -s SIZE -t DEPTH -n ITERS
#   lat      unloaded p50 at 2 B (half round trip for write and send)
#            against ib_write_lat / ib_send_lat's t_typical (their median)
#   msgrate  write and send at 2 B and 64 B, depth 128, MSG_ITERS messages
#            against ib_<op>_bw with its default batching (a completion per
#            100 work requests, one work request a post): rdmaperf
#            --signal 100 --post-list 1 (the same batching), and rdmaperf's
#            defaults (a completion per operation, all free slots a post)
#
# Like for like: the same message count per size (perftest's -n is
# rdmaperf's -C, per QP / per stream), the same depth, no warm-up on
# either side (perftest's bandwidth tests have none unless
# --perform_warm_up), and the inline size perftest chose (read from its
# "Max inline data" line and given to rdmaperf as --inline; perftest
# inlines nothing on devices it does not know, rxe among them).
# What still differs: perftest asks for a completion every 100 work
# requests (-Q, CQ moderation), rdmaperf for every one; perftest cycles
# its messages through one small buffer (a page, below that size),
# rdmaperf gives each outstanding message a slot of its own; the perftest
# sweep shares one connection and 8 MiB buffers
# over its sizes, rdmaperf's shares one connection and buffers sized for
# SWEEP_MAX. perftest's columns are rounded (MiB/s to 2 decimals, Mpps to
# 6): at each size the perftest figure is taken from the column printed
# with more digits and the other derived from it (messages/s = MiB/s x
# 2^20 / size), so the bandwidth and message-rate ratios of one size are
# the same number: both tools count messages of one size over one time.
#
# Without an RDMA adapter it boots the Soft-RoCE guest (tests/vm/rxe-run)
# and runs itself inside; with one (or inside the guest), it runs directly:
#   bench/rdma_vs_perftest.sh [RDMAPERF] [SIZE] [ITERS] [DEPTH]
#   RP_BENCH_ADDR=10.0.0.2 RP_BENCH_DEV=mlx5_0 bench/rdma_vs_perftest.sh
# env: RP_BENCH_ONLY (sections, default "sweep streams ops lat msgrate";
#      also "floor", issue 15's interleaved rounds: perftest_floor.sh;
#      and "uc", --qp uc against perftest's -c UC: uc() below; "ud" the
#      same for --qp ud and -c UD: ud() below),
#      ROUNDS (3: sweep and streams, medians), SWEEP_ITERS (5000 as
#      ib_write_bw -a, 1000 in the emulated guest), SWEEP_MAX (1048576),
#      SWEEP_DEPTH (128), STREAMS (4), STREAM_SIZE (65536), LAT_ITERS
#      (2000), MSG_ITERS (20000), MSG_SIZES ("2 64"), PT_EXTRA (more perftest options, for every perftest run),
#      RP_BENCH_KEEP (a directory for the raw outputs: perftest's, rdmaperf's
#      JSON)
# Emulated RDMA is slow: only the ratios mean something there.
set -euo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
SIZE=${2:-65536}
ITERS=${3:-2000}
DEPTH=${4:-16}
HERE=$(cd "$(dirname "$0")" && pwd)

if [ -z "${RP_VM:-}" ] && [ -z "${RP_BENCH_ADDR:-}" ]; then
	[ -z "${RP_BENCH_KEEP:-}" ] || mkdir -p "$RP_BENCH_KEEP"
	exec "$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-1200}" \
		--mem "${RP_BENCH_MEM:-1024}" ${RP_BENCH_KEEP:+--rw "$RP_BENCH_KEEP"} -- \
		env RP_BENCH_ONLY="${RP_BENCH_ONLY:-}" \
		RP_BENCH_KEEP="${RP_BENCH_KEEP:+$(realpath "$RP_BENCH_KEEP")}" \
		SWEEP_ITERS="${SWEEP_ITERS:-}" SWEEP_MAX="${SWEEP_MAX:-}" \
		SWEEP_DEPTH="${SWEEP_DEPTH:-}" STREAMS="${STREAMS:-}" \
		ROUNDS="${ROUNDS:-}" \
		STREAM_SIZE="${STREAM_SIZE:-}" LAT_ITERS="${LAT_ITERS:-}" \
		MSG_ITERS="${MSG_ITERS:-}" MSG_SIZES="${MSG_SIZES:-}" \
		PT_EXTRA="${PT_EXTRA:-}" \
		bash "$HERE/rdma_vs_perftest.sh" "$RP" "$SIZE" "$ITERS" "$DEPTH"
fi
# shellcheck source=bench/common.sh
. "$HERE/common.sh"
ONLY=${RP_BENCH_ONLY:-sweep streams ops lat msgrate}
if [ -n "${RP_VM:-}" ]; then
	SWEEP_ITERS=${SWEEP_ITERS:-1000} # 2 GiB a tool to 1 MiB: ~100 s on rxe
else
	SWEEP_ITERS=${SWEEP_ITERS:-5000}
fi
SWEEP_MAX=${SWEEP_MAX:-1048576}
ROUNDS=${ROUNDS:-3}
SWEEP_DEPTH=${SWEEP_DEPTH:-128}
STREAMS=${STREAMS:-4}
STREAM_SIZE=${STREAM_SIZE:-65536}
LAT_ITERS=${LAT_ITERS:-2000}
MSG_ITERS=${MSG_ITERS:-20000}
MSG_SIZES=${MSG_SIZES:-2 64}
PT_EXTRA=${PT_EXTRA:-}
ADDR=${RP_BENCH_ADDR:-$RP_VM_ADDR}
DEV=${RP_BENCH_DEV:-rxe0}
GID=${RP_BENCH_GID:-1} # RoCE v2 IPv4-mapped GID on rxe; perftest has no rdma_cm here
ulimit -l unlimited 2>/dev/null || true

# keep FILE...: a copy of the raw outputs in RP_BENCH_KEEP, if set.
keep() {
	[ -z "${RP_BENCH_KEEP:-}" ] || cp "$@" "$RP_BENCH_KEEP/" 2>/dev/null || true
}

tmp=$(mktemp -d)
pids=()
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# ------------------------------------------------------------------ perftest

# pt_has_row FILE SIZE: FILE holds perftest's complete row for SIZE (its
# message rate, the last column, printed with its 6 decimals).
pt_has_row() {
	awk -v m="$2" '$1 == m && NF >= 5 &&
		$5 ~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ { f = 1 }
		END { exit !f }' "$1"
}

# perftest OUT TOOL ARGS...: perftest_once, run again (twice at most) when
# it printed no figure because it gave up on its own clock ("Correlation
# coefficient r^2 ... < 0.9": its rate of the cycle counter, which a busy
# emulated guest can upset; its rows are then missing, or zero), said on
# stderr.
perftest() {
	local try
	for try in 1 2 3; do
		perftest_once "$@" || true
		[ -z "$(pt_rows "$1" | awk '$4 > 0 && $5 > 0')" ] || return 0
		grep -qs Correlation "$1" "$1.err" || return 1
		echo "bench: $2: perftest's clock calibration failed (try $try)" >&2
	done
	return 1
}

# perftest_once OUT TOOL ARGS...: a server in the background, the client
# retried until it connects; the client's whole output in OUT. With
# STOP_AT=SIZE the client is stopped once its row for SIZE is out.
perftest_once() {
	local out=$1 tool=$2 srv cli
	shift 2
	# shellcheck disable=SC2086 # PT_EXTRA is a list of options
	"$tool" -d "$DEV" -x "$GID" "$@" $PT_EXTRA >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 1 50); do
		sleep 0.2
		# shellcheck disable=SC2086
		timeout "${PT_TIMEOUT:-600}" "$tool" -d "$DEV" -x "$GID" "$@" \
			$PT_EXTRA "$ADDR" >"$out" 2>"$out.err" &
		cli=$!
		while kill -0 "$cli" 2>/dev/null; do
			if [ -n "${STOP_AT:-}" ] && pt_has_row "$out" "$STOP_AT"; then
				kill "$cli" 2>/dev/null || true
				break
			fi
			sleep 0.3
		done
		wait "$cli" 2>/dev/null || true
		grep -q '#bytes' "$out" && break # it connected: no retry
	done
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	grep -q '#bytes' "$out" || {
		echo "bench: $tool $* did not run:" >&2
		tail -n 5 "$out" "$out.err" >&2
		return 1
	}
	keep "$out" "$out.err"
}

# The rows after perftest's column header, and the inline size it used.
pt_rows() {
	awk '/^ *#bytes/ { h = 1; next }
		h && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/' "$1"
}
pt_inline() {
	sed -n 's/.*Max inline data *: *\([0-9]*\).*/\1/p' "$1" | head -n 1 |
		grep . || echo 0
}

# ------------------------------------------------------------------ rdmaperf

PORT=$(bench_free_port $((22000 + RANDOM % 4000)))
"$RP" -s -a "$ADDR" -p "$PORT" --quiet &
pids+=($!)
bench_listening "$PORT" "${pids[0]}" || {
	echo "bench: the rdmaperf server did not start" >&2
	exit 1
}
rp() {
	timeout "${RP_TIMEOUT:-600}" "$RP" -c -a "$ADDR" -p "$PORT" -x rdma \
		-d "$DEV" --json "$@"
}

# ------------------------------------------------------------------ tables

# table LABEL RP_JSON PT_ROWS [RP_JSON PT_ROWS]...: rows "LABEL SIZE MiB/s"
# and "LABEL SIZE Mmsg/s" for every size of rdmaperf's results, its figure
# against perftest's row of the same size: each the median over the
# rounds (one pair of files a round), the ratio the median of the rounds'
# ratios. perftest's #iterations (the total over its QPs) must equal
# rdmaperf's messages: a line says so where not.
table() {
	python3 - "$@" <<'EOF'
import json, math, statistics, sys

def sig(s):
    """Significant digits in a printed decimal."""
    return len(s.replace(".", "").lstrip("0"))

def median(v):
    v = [x for x in v if not math.isnan(x)]
    return statistics.median(v) if v else math.nan

def perftest_rate(f, size):
    """(MiB/s, Mmsg/s) of a perftest row, from its more precise column."""
    mib, mpps = f[3], f[4]
    if sig(mpps) >= sig(mib):
        return float(mpps) * 1e6 * size / 2**20, float(mpps)
    return float(mib), float(mib) * 2**20 / size / 1e6

label, files = sys.argv[1], sys.argv[2:]
sizes, fig = [], {}  # fig[size][metric]: (rdmaperf, perftest) a round
for jf, rf in zip(files[0::2], files[1::2]):
    try:
        res = json.load(open(jf))["results"]
    except (OSError, ValueError, KeyError, TypeError):
        res = []
        print("bench: no rdmaperf results in %s" % jf, file=sys.stderr)
    pt = {}
    for line in open(rf):
        f = line.split()
        pt[int(f[0])] = f
    for r in res:
        size = r["size"]
        if size not in fig:
            sizes.append(size)
            fig[size] = {"MiB/s": [], "Mmsg/s": []}
        tp = r.get("throughput") or {}
        a = (tp.get("mib_per_second", math.nan),
             tp.get("messages_per_second", math.nan) / 1e6)
        b = (math.nan, math.nan)
        if size in pt:
            b = perftest_rate(pt[size], size)
            if int(pt[size][1]) != r.get("messages"):
                print("  (%s: perftest ran %s messages at %d B, rdmaperf %s)"
                      % (jf.rsplit("/", 1)[-1], pt[size][1], size,
                         r.get("messages")))
        fig[size]["MiB/s"].append((a[0], b[0]))
        fig[size]["Mmsg/s"].append((a[1], b[1]))
fmt = "%-46s %12s %12s %8s"
for size in sizes:
    for what, v in fig[size].items():
        ratio = median([a / b if b else math.nan for a, b in v])
        print(fmt % ("%s %dB %s" % (label, size, what),
                     "%.5g" % median([a for a, _ in v]),
                     "%.5g" % median([b for _, b in v]), "%.3f" % ratio))
EOF
}

# ------------------------------------------------------------------ sections

# paired NAME LABEL STOP_AT PERFTEST_ARGS... -- RDMAPERF_ARGS...: ROUNDS
# rounds of ib_write_bw PERFTEST_ARGS and rdmaperf RDMAPERF_ARGS (with
# perftest's inline size), taking turns (perftest first in odd rounds: the
# second of two back-to-back runs can fare differently), then the table
# of medians. STOP_AT: perftest's last size, "" for all.
paired() {
	local name=$1 label=$2 stop=$3 r inl="" files=()
	local -a pt_args=() rp_args=()
	shift 3
	while [ "$1" != -- ]; do
		pt_args+=("$1")
		shift
	done
	shift
	rp_args=("$@")
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			paired_pt
			paired_rp
		else
			paired_rp
			paired_pt
		fi
		files+=("$tmp/$name.$r.json" "$tmp/$name.$r.rows")
	done
	echo "   rdmaperf ${rp_args[*]} --inline ${inl:-0} (perftest's)"
	bench_header
	table "$label" "${files[@]}"
}
# The two halves of a round of paired(), whose locals they see.
paired_pt() {
	local out=$tmp/$name.$r.pt
	STOP_AT=$stop perftest "$out" ib_write_bw -F "${pt_args[@]}" || true
	pt_rows "$out" | awk -v m="${stop:-0}" 'm == 0 || $1 <= m' \
		>"$tmp/$name.$r.rows"
	[ -n "$inl" ] || ! grep -q '#bytes' "$out" || inl=$(pt_inline "$out")
}
paired_rp() {
	rp "${rp_args[@]}" --inline "${inl:-0}" >"$tmp/$name.$r.json" || true
	keep "$tmp/$name.$r.json"
}

sweep() {
	echo "== write sweep 2 B - $SWEEP_MAX B, $SWEEP_ITERS messages a size," \
		"depth $SWEEP_DEPTH, $ROUNDS rounds:" \
		"ib_write_bw -a -n $SWEEP_ITERS -t $SWEEP_DEPTH"
	paired sweep write "$SWEEP_MAX" -a -n "$SWEEP_ITERS" \
		-t "$SWEEP_DEPTH" -- -o write -S "2-$SWEEP_MAX" \
		-q "$SWEEP_DEPTH" -C "$SWEEP_ITERS" --warmup 0 --no-latency
}

streams() {
	local n=$STREAMS sz=$STREAM_SIZE
	local iters=$((SWEEP_ITERS < 2000 ? SWEEP_ITERS : 2000))
	echo "== write ${sz} B, $n streams x $iters messages, depth" \
		"$SWEEP_DEPTH each, $ROUNDS rounds:" \
		"ib_write_bw -q $n -s $sz -n $iters -t $SWEEP_DEPTH"
	paired streams "write -P $n" "" -q "$n" -s "$sz" -n "$iters" \
		-t "$SWEEP_DEPTH" -- -o write -S "$sz" -q "$SWEEP_DEPTH" \
		-P "$n" -C "$iters" --warmup 0 --no-latency
}

ops() {
	local op inl
	echo "== one size: ${SIZE} B, depth $DEPTH, $ITERS messages" \
		"(ib_<op>_bw -s $SIZE -t $DEPTH -n $ITERS)"
	bench_header
	for op in write read send; do
		perftest "$tmp/$op.pt" "ib_${op}_bw" -F -s "$SIZE" -t "$DEPTH" \
			-n "$ITERS" || true
		pt_rows "$tmp/$op.pt" >"$tmp/$op.rows"
		inl=$(pt_inline "$tmp/$op.pt")
		rp -o "$op" -S "$SIZE" -q "$DEPTH" -C "$ITERS" --warmup 0 \
			--no-latency --inline "$inl" >"$tmp/$op.json" || true
		keep "$tmp/$op.json"
		table "$op q$DEPTH" "$tmp/$op.json" "$tmp/$op.rows" |
			grep 'MiB/s' || true
	done
}

# Message rate (issue 12): small writes and sends at depth 128 against
# ib_<op>_bw with its default batching (a completion per 100 work requests,
# -Q 100; one work request per post call, -l 1). rdmaperf twice: batched as
# perftest (--signal 100 --post-list 1), and with its defaults (a
# completion per operation, every free slot in one post call).
msgrate() {
	local op size r inl pt like=() own=()
	echo "== message rate, depth 128, $MSG_ITERS messages, $ROUNDS rounds:" \
		"ib_<op>_bw -s SIZE -t 128 -n $MSG_ITERS (its defaults: -Q 100 -l 1)"
	bench_header
	for op in write send; do
		for size in $MSG_SIZES; do
			like=() own=()
			for r in $(seq 1 "$ROUNDS"); do
				pt=$tmp/mr-$op-$size.$r
				msgrate_pt
				msgrate_rp like --signal 100 --post-list 1
				msgrate_rp own
				like+=("$pt.like.json" "$pt.rows")
				own+=("$pt.own.json" "$pt.rows")
			done
			table "$op signal 100" "${like[@]}" | grep Mmsg || true
			table "$op default" "${own[@]}" | grep Mmsg || true
		done
	done
}
# The halves of a msgrate() round, whose locals they see.
msgrate_pt() {
	perftest "$pt.pt" "ib_${op}_bw" -F -s "$size" -t 128 \
		-n "$MSG_ITERS" || true
	pt_rows "$pt.pt" >"$pt.rows"
	inl=$(pt_inline "$pt.pt")
}
msgrate_rp() { # msgrate_rp NAME RDMAPERF_ARGS...
	local name=$1
	shift
	rp -o "$op" -S "$size" -q 128 -C "$MSG_ITERS" --warmup 0 \
		--no-latency --inline "${inl:-0}" "$@" >"$pt.$name.json" || true
	keep "$pt.$name.json"
}

lat() {
	local op a b inl
	echo "== unloaded latency, 2 B, $LAT_ITERS ping-pongs: rdmaperf's p50" \
		"vs perftest's t_typical (ib_<op>_lat -s 2 -n $LAT_ITERS)"
	bench_header
	for op in write send; do
		perftest "$tmp/$op-lat.pt" "ib_${op}_lat" -F -s 2 \
			-n "$LAT_ITERS" || true
		b=$(pt_rows "$tmp/$op-lat.pt" | awk 'NR == 1 { print $5 }')
		inl=$(pt_inline "$tmp/$op-lat.pt")
		rp -o "$op" -S 2 --no-bandwidth --lat-iterations "$LAT_ITERS" \
			--warmup 100 --inline "$inl" >"$tmp/$op-lat.json" || true
		keep "$tmp/$op-lat.json"
		a=$(jget "$(jq_unloaded p50)" <"$tmp/$op-lat.json")
		bench_row "$op lat p50 us 2B (ib_${op}_lat)" "$a" "${b:-nan}"
	done
}

# Issue 15's figures (bench/perftest_floor.sh runs this in several boots):
# write, read and send, ROUNDS rounds, the tools taking turns to go first
# (perftest first in odd rounds): 2 B latency, rdmaperf's unloaded p50
# against ib_<op>_lat's t_typical (write and send: half a round trip on
# both sides; read: the whole read), and SIZE B at depth DEPTH, ITERS
# messages, MiB/s against ib_<op>_bw's average. Latency twice: rdmaperf
# with its own clock, and reading the TSC as perftest does (RP_CLOCK=tsc).
# A row per figure and
# round ("floor ROUND WHAT RDMAPERF PERFTEST RATIO"), then the medians,
# the range of the rounds' ratios, and each tool's best round.
floor() {
	local op r fig fig2 rows=$tmp/floor.rows
	echo "== floor: 2 B latency ($LAT_ITERS ping-pongs), ${SIZE} B depth" \
		"$DEPTH bandwidth ($ITERS messages), $ROUNDS rounds interleaved"
	: >"$rows"
	for r in $(seq 1 "$ROUNDS"); do
		for op in write read send; do
			floor_round "$op lat p50 us 2B" floor_lat \
				"$op lat p50 us 2B, RP_CLOCK=tsc"
			floor_round "$op bw MiB/s ${SIZE}B q$DEPTH" floor_bw
		done
	done
	bench_sum_header
	bench_medians "$rows"
	echo "-- the rounds' ratios, lowest and highest:"
	awk -F'\t' '$2 != "nan" && $3 != "nan" && $3 != 0 {
		k = $1; q = $2 / $3
		if (!(k in lo) || q < lo[k]) lo[k] = q
		if (!(k in hi) || q > hi[k]) hi[k] = q
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	} END { for (i = 1; i <= n; i++)
		printf "%-46s %8.3f %8.3f\n", order[i], lo[order[i]], hi[order[i]]
	}' "$rows"
	# A round lands in one of the emulated guest's modes, about 2x apart
	# (bench/README.md), for either tool: a boot's median ratio can be a
	# mix of modes. Each tool's best round is in its fastest mode.
	echo "-- each tool's best round (latency: lowest; bandwidth: highest):"
	awk -F'\t' '$2 != "nan" && $3 != "nan" {
		k = $1; lat = k ~ / lat /
		if (!(k in a)) { a[k] = $2; b[k] = $3; order[++n] = k }
		if (lat ? $2 < a[k] : $2 > a[k]) a[k] = $2
		if (lat ? $3 < b[k] : $3 > b[k]) b[k] = $3
	} END { for (i = 1; i <= n; i++) { k = order[i]
		printf "%-46s %12.5g %12.5g %8.3f\n", k, a[k], b[k],
			b[k] ? a[k] / b[k] : 0 }
	}' "$rows"
}
# floor_round WHAT FN: FN_pt and FN_rp in round r's order, each leaving
# its figure in fig; a row. rdmaperf gets the inline size perftest chose
# for the same test (inl, by test: the first round runs perftest first).
declare -A inl
QP=rc # floor_lat's queue pair type: uc() and ud() set it
# A second rdmaperf figure (fig2, when FN_rp leaves one) is a row of its
# own, WHAT2, against the same perftest figure.
floor_round() {
	local a b a2
	fig2=
	if [ $((r % 2)) = 1 ]; then
		"$2_pt"; b=$fig
		"$2_rp"; a=$fig a2=$fig2
	else
		"$2_rp"; a=$fig a2=$fig2
		"$2_pt"; b=$fig
	fi
	floor_row "$1" "$a" "$b"
	[ -z "${3:-}" ] || floor_row "$3" "$a2" "$b"
}
floor_row() {
	printf '%s\t%s\t%s\n' "$1" "${2:-nan}" "${3:-nan}" >>"$rows"
	printf 'floor %s %-40s %10.6g %10.6g\n' "$r" "$1" "${2:-nan}" "${3:-nan}"
}
floor_lat_pt() {
	perftest "$tmp/fl.pt" "ib_${op}_lat" -F -c "${QP^^}" -s 2 \
		-n "$LAT_ITERS" || true
	inl[lat-$QP-$op]=$(pt_inline "$tmp/fl.pt")
	fig=$(pt_rows "$tmp/fl.pt" | awk 'NR == 1 { print $5 }')
}
# rdmaperf with its own clock, then reading the TSC as perftest does
# (RP_CLOCK=tsc: where the kernel gave up on the TSC, as in the emulated
# guest, rdmaperf's own clock is a system call, about a microsecond there).
floor_lat_rp() {
	local c
	for c in "" tsc; do
		RP_CLOCK=$c rp --qp "$QP" -o "$op" -S 2 --no-bandwidth \
			--warmup 100 \
			--lat-iterations "$LAT_ITERS" \
			--inline "${inl[lat-$QP-$op]:-0}" >"$tmp/fl.json" || true
		keep "$tmp/fl.json"
		fig2=$(jget "$(jq_unloaded p50)" <"$tmp/fl.json")
		[ -n "$c" ] || fig=$fig2
	done
	fig2=$(clock_if_checked "$tmp/fl.json" "$fig2")
}
# clock_if_checked JSON FIG: FIG, or "nan" when the run of JSON did not
# read an unchecked TSC (RP_CLOCK=tsc refused: not x86-64).
clock_if_checked() {
	local u
	u=$(jget 'd["hosts"]["client"]["clock"].get("unchecked", False) or d["hosts"]["client"]["clock"]["source"] == "tsc"' <"$1")
	[ "$u" = True ] && echo "$2" || echo nan
}
floor_bw_pt() {
	perftest "$tmp/fb.pt" "ib_${op}_bw" -F -s "$SIZE" -t "$DEPTH" \
		-n "$ITERS" || true
	inl[bw-$op]=$(pt_inline "$tmp/fb.pt")
	fig=$(pt_rows "$tmp/fb.pt" | awk 'NR == 1 { print $4 }')
}
floor_bw_rp() {
	rp -o "$op" -S "$SIZE" -q "$DEPTH" -C "$ITERS" --warmup 0 \
		--no-latency --inline "${inl[bw-$op]:-0}" >"$tmp/fb.json" || true
	keep "$tmp/fb.json"
	fig=$(jget 'd["results"][0]["throughput"]["mib_per_second"]' \
		<"$tmp/fb.json")
}

# --qp uc (issue 38) against perftest's -c UC, ROUNDS rounds interleaved
# (floor_round): the 2 B latency of write and send (unloaded p50 against
# t_typical, both clocks as in floor, and RC's beside it in the same
# rounds, to tell UC's own from the boot's), and their message rate at 2 B
# and at the path MTU, depth 128, MSG_ITERS messages, batched as perftest
# batches (--signal 100 --post-list 1). Not like for like in one way: a UC
# send of rdmaperf's waits for the receiver's credit (none is lost),
# perftest's goes out whether or not a receive is posted, and its figure
# is the sender's.
uc() { qp_rounds uc write send; }

# qp_rounds TYPE OP...: for each OP, the 2 B latency on TYPE's queue pairs
# and on RC's in the same rounds, and the message rate at 2 B and at the
# path MTU on TYPE's (uc() and ud()).
qp_rounds() {
	local qp=$1 op r size fig fig2 rows=$tmp/$1.rows mtu
	shift
	mtu=$(ibv_devinfo -d "$DEV" | awk '/active_mtu/ { print $2; exit }')
	echo "== ${qp^^}: 2 B latency ($LAT_ITERS ping-pongs) of $*, message" \
		"rate at 2 B and the MTU ($mtu B), depth 128, $MSG_ITERS" \
		"messages, $ROUNDS rounds interleaved; perftest -c ${qp^^}"
	: >"$rows"
	for r in $(seq 1 "$ROUNDS"); do
		for op in "$@"; do
			for QP in "$qp" rc; do
				floor_round "$QP $op lat p50 us 2B" floor_lat \
					"$QP $op lat p50 us 2B, RP_CLOCK=tsc"
			done
			QP=$qp
			for size in 2 "$mtu"; do
				floor_round "$qp $op Mmsg/s ${size}B q128" qp_mr
			done
		done
	done
	QP=rc
	bench_sum_header
	bench_medians "$rows"
}
# The message rate of $op at $size on $QP queue pairs, depth 128,
# batched as perftest batches (uc() and ud()).
qp_mr_pt() {
	perftest "$tmp/qm.pt" "ib_${op}_bw" -F -c "${QP^^}" -s "$size" -t 128 \
		-n "$MSG_ITERS" || true
	inl[qm-$QP-$op-$size]=$(pt_inline "$tmp/qm.pt")
	fig=$(pt_rows "$tmp/qm.pt" | awk 'NR == 1 { print $5 }')
}
qp_mr_rp() {
	rp --qp "$QP" -o "$op" -S "$size" -q 128 -C "$MSG_ITERS" --warmup 0 \
		--no-latency --signal 100 --post-list 1 \
		--inline "${inl[qm-$QP-$op-$size]:-0}" >"$tmp/qm.json" || true
	keep "$tmp/qm.json"
	fig=$(jget 'd["results"][0]["throughput"]["messages_per_second"] / 1e6' \
		<"$tmp/qm.json")
	[ "$QP" != ud ] || echo "ud $size B: rdmaperf's loss" \
		"$(jget 'd["results"][0].get("loss")' <"$tmp/qm.json")"
}

# --qp ud (issue 38) against perftest's -c UD, the same way as uc(): the
# 2 B send latency (UD's and RC's in the same rounds), and the send
# message rate at 2 B and at the path MTU (UD's largest message), depth
# 128, batched as perftest batches. Both figures are the sender's (a UD
# send completes once it has left); rdmaperf's loss (sent against what
# its server received) is printed beside each of its runs, perftest does
# not report one.
ud() { qp_rounds ud send; }

echo "# rdmaperf $("$RP" --version 2>/dev/null | head -n 1) vs" \
	"perftest on $DEV ($ADDR)"
# Sections of the other guest script (bench/guest_vs_peers.sh passes one
# RP_BENCH_ONLY to both) are left to it.
for section in $ONLY; do
	case $section in
	sweep | streams | ops | lat | msgrate | floor | uc | ud) "$section"; echo ;;
	rsocket | tcp) ;;
	*) echo "bench: unknown section $section" >&2; exit 2 ;;
	esac
done
