#!/usr/bin/env bash
# Run a libFuzzer binary on a copy of its seed corpus, so that the inputs it
# finds never land in the repository:
#
#   run.sh FUZZER CORPUS ARTIFACTS [libFuzzer flags...]
#
# Flags after ARTIFACTS go to libFuzzer (CTest passes -runs=N). The
# dictionary tests/fuzz/dict/<target>.dict is used when there is one. A
# crash, a leak or a timeout fails the run; its reproducer is kept as
# ARTIFACTS/<target>-crash-<sha1> (or -leak-, -timeout-), with libFuzzer's
# report on stderr.
set -euo pipefail

fuzzer=$1 corpus=$2 artifacts=$3
shift 3
name=$(basename "$fuzzer")
name=${name#fuzz_}
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/rp-fuzz-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$corpus"/. "$work"/
mkdir -p "$artifacts"

flags=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	-artifact_prefix="$artifacts/$name-")
if [ -f "$here/dict/$name.dict" ]; then
	flags+=(-dict="$here/dict/$name.dict")
fi
"$fuzzer" "${flags[@]}" "$@" "$work"
