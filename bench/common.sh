# shellcheck shell=bash disable=SC2034,SC2059 # BENCH_FMT and JQ_GBPS are for the scripts
# Helpers of the bench/*_vs_*.sh comparisons (sourced, not run): reading a
# figure out of rdmaperf's JSON, waiting for a server, printing rows of
# "what, rdmaperf, peer, ratio". A figure that could not be had is "nan",
# its row says so, and the script goes on to the next comparison.

BENCH_FMT='%-46s %12s %12s %8s\n'
# The summary's rows: BENCH_FMT's, then the paired ratio's 95% interval
# and its verdict (bench/paired.py)
BENCH_SUM_FMT='%-46s %12s %12s %8s %13s  %s\n'
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# bench_sum_header: the summary's column names.
bench_sum_header() {
	printf "$BENCH_SUM_FMT" what rdmaperf peer ratio "95% interval" verdict
}

# jget EXPR: EXPR evaluated with d, the JSON document on stdin; "nan" (and a
# line on stderr, with the document's "error" if it has one) when it fails.
jget() {
	python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    print("nan")
    print("bench: no JSON document", file=sys.stderr)
    sys.exit(0)
try:
    print(eval(sys.argv[1]))
except Exception as e:
    print("nan")
    print("bench: %s: %r; error: %s" % (sys.argv[1], e,
          json.dumps(d.get("error"))), file=sys.stderr)
' "$1"
}

# The throughput of the first result, in Gb/s (decimal, like iperf3's and
# perftest's --report_gbits), and its unloaded latency figure KEY, in us.
JQ_GBPS='d["results"][0]["throughput"]["bits_per_second"] / 1e9'
jq_unloaded() { printf 'd["results"][0]["latency_unloaded"]["%s"]' "$1"; }

bench_header() { printf "$BENCH_FMT" what rdmaperf peer ratio; }

# bench_row WHAT A B: one row, ratio A / B ("nan" where either is missing).
bench_row() {
	python3 -c '
import math, sys
def num(s):
    try:
        return float(s)
    except ValueError:
        return math.nan
a, b = num(sys.argv[3]), num(sys.argv[4])
r = a / b if b and not math.isnan(a + b) else math.nan
fmt = sys.argv[1].replace("\\n", "\n")
print(fmt % (sys.argv[2], "%.5g" % a, "%.5g" % b, "%.3f" % r), end="")
' "$BENCH_FMT" "$@"
}

# bench_listening PORT [PID]: wait (up to 30 s) until something listens on
# TCP PORT, by reading the kernel's socket table: a probe connection would
# be a session of its own to the server. Fails early if PID has exited.
bench_listening() {
	local port hex
	port=$1
	hex=$(printf ':%04X' "$port")
	for _ in $(seq 1 150); do
		awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p \
			{ f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6 \
			2>/dev/null && return 0
		[ -z "${2:-}" ] || kill -0 "$2" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# bench_free_port BASE: a TCP port from BASE up that nothing listens on.
bench_free_port() {
	local p=$1
	while awk -v p="$(printf ':%04X' "$p")" \
		'substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		p=$((p + 1))
	done
	echo "$p"
}

# bench_median [FMT]: the median of the numbers on stdin, one a line,
# printed with FMT (default %.5g); "nan" lines left out, "nan" if none is
# left.
bench_median() {
	python3 -c '
import math, statistics, sys
v = [float(x) for x in sys.stdin.read().split() if x != "nan"]
v = [x for x in v if not math.isnan(x)]
print(sys.argv[1] % statistics.median(v) if v else "nan")
' "${1:-%.5g}"
}

# bench_pair WHAT FN_A FN_B: ROUNDS runs each of FN_A (rdmaperf) and
# FN_B (the peer), functions that print one figure, taking turns to go
# first (the second of two back-to-back runs can fare differently); one
# summary row (bench_sum_header's): the medians, the paired ratio (the
# geometric mean of the rounds' ratios), its interval and verdict. ROUNDS
# comes from the script; the round is in r, for the functions.
bench_pair() {
	local what=$1 fa=$2 fb=$3 a b
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			a=$($fa) || a=nan
			b=$($fb) || b=nan
		else
			b=$($fb) || b=nan
			a=$($fa) || a=nan
		fi
		printf '%s\t%s\t%s\n' "$what" "${a:-nan}" "${b:-nan}"
	done | python3 "$BENCH_DIR/paired.py" "$BENCH_SUM_FMT"
}

# bench_medians ROWS: the summary of ROWS, lines "what<TAB>a<TAB>b" (a
# round each, the same what in several rounds): each what once, in its
# first order, with bench_sum_header's columns (bench/paired.py).
bench_medians() {
	python3 "$BENCH_DIR/paired.py" "$BENCH_SUM_FMT" <"$1"
}

# bench_need RDMAPERF TOOL...: exit 77 naming a missing TOOL, 1 when
# RDMAPERF is not built.
bench_need() {
	local rp=$1 t
	shift
	for t in "$@"; do
		command -v "$t" >/dev/null || {
			echo "bench: $t missing (scripts/install-deps.sh)" >&2
			exit 77
		}
	done
	[ -x "$rp" ] || { echo "bench: $rp not built" >&2; exit 1; }
}

# bench_pin: PIN_SRV and PIN_CLI, the commands that put servers on CPU 1
# and clients on CPU 0 (RP_BENCH_PIN=0, one CPU or no taskset: none), and
# PIN_DESC, what was done.
bench_pin() {
	PIN_SRV=() PIN_CLI=() PIN_DESC="unpinned"
	if [ "${RP_BENCH_PIN:-1}" = 1 ] && command -v taskset >/dev/null &&
		[ "$(nproc)" -ge 2 ]; then
		PIN_SRV=(taskset -c 1) PIN_CLI=(taskset -c 0)
		PIN_DESC="servers on CPU 1, clients on CPU 0"
	fi
}
