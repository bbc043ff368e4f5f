#!/usr/bin/env bash
# rdmaperf against perftest where perftest is at its best: 2 B latency
# (rdmaperf's unloaded p50 against ib_<op>_lat's t_typical) and 64 KiB at
# depth 16 (MiB/s against ib_<op>_bw's average), for write, read and send,
# in BOOTS guest boots (Soft-RoCE, tests/vm/rxe-run), each running ROUNDS
# rounds with the tools taking turns to go first (the "floor" section of
# bench/rdma_vs_perftest.sh); then, in the same boot, rdmaperf -x rsocket
# against rstream at 64 B and 4 KiB in the mode rstream uses, blocking
# (the "rsocket" section of bench/transports_vs_peers.sh, WAIT=event,
# RS_ROUNDS rounds). Each boot's tables, then per figure: every boot's
# ratio (the median of its rounds' ratios) and in how many boots rdmaperf
# did at least as well (latency ratio <= 1, bandwidth >= 1).
#   bench/perftest_floor.sh [RDMAPERF]
# env: BOOTS (3), ROUNDS (3), LAT_ITERS (5000), ITERS (2000), SIZE (65536),
#      DEPTH (16), RSOCKET (1; 0: perftest only), RS_ROUNDS (3),
#      RP_BENCH_KEEP (a directory for the boots' outputs)
# Emulated RDMA is slow: only the ratios mean something there. A single
# run's latency on rxe moves by up to 2x with where the kernel's Soft-RoCE
# work lands (bench/README.md): rounds, not iterations, average that out.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
RP=$(realpath "${1:-build/rdmaperf}")
BOOTS=${BOOTS:-3}
out=${RP_BENCH_KEEP:-$(mktemp -d)}
mkdir -p "$out"
out=$(realpath "$out")
[ -x "$RP" ] || { echo "bench: $RP not built" >&2; exit 1; }

for b in $(seq 1 "$BOOTS"); do
	echo "# boot $b of $BOOTS"
	cmd="RP_BENCH_ONLY=floor ROUNDS=${ROUNDS:-3} LAT_ITERS=${LAT_ITERS:-5000}"
	cmd+=" bash '$HERE/rdma_vs_perftest.sh' '$RP' ${SIZE:-65536}"
	cmd+=" ${ITERS:-2000} ${DEPTH:-16}"
	[ "${RSOCKET:-1}" = 0 ] || cmd+="; RP_BENCH_ONLY=rsocket WAIT=event"
	[ "${RSOCKET:-1}" = 0 ] || cmd+=" ROUNDS=${RS_ROUNDS:-3}"
	[ "${RSOCKET:-1}" = 0 ] || cmd+=" bash '$HERE/transports_vs_peers.sh' '$RP'"
	mkdir -p "$out/boot$b" # the raw outputs (RP_BENCH_KEEP of the two)
	"$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-2400}" \
		--mem "${RP_BENCH_MEM:-1024}" --rw "$out/boot$b" -- \
		env RP_BENCH_KEEP="$out/boot$b" sh -c "$cmd" |
		tee "$out/boot$b.txt"
done

python3 - "$out" "$BOOTS" <<'PY'
import math, os, re, sys

out, boots = sys.argv[1], int(sys.argv[2])
ratios = {}  # what -> [ratio per boot]
order = []
for b in range(1, boots + 1):
    table = False
    for line in open(os.path.join(out, "boot%d.txt" % b)):
        if line.startswith("what "):
            table = True
            continue
        if line.startswith("--"):
            table = False
        f = line.rsplit(None, 3)
        if not table or len(f) != 4 or line.lstrip().startswith("("):
            continue
        what = f[0].strip()
        if what not in ratios:
            ratios[what] = []
            order.append(what)
        try:
            ratios[what].append(float(f[3]))
        except ValueError:
            ratios[what].append(math.nan)

print("# over %d boots: each boot's ratio rdmaperf / perftest" % boots)
for what in order:
    r = ratios[what]
    lat = " lat " in " %s " % what or "half-rtt" in what
    good = sum(1 for x in r if not math.isnan(x) and (x <= 1 if lat else x >= 1))
    print("%-40s %s  %s: %d of %d boots" % (
        what, " ".join("%.3f" % x for x in r),
        "<= 1" if lat else ">= 1", good, len(r)))
PY
