#!/usr/bin/env bash
# Build tests/vm/verbs_smoke.c with src/xport/verbs.c alone (no other project
# sources) and run it inside the Soft-RoCE guest (tests/vm/rxe-run).
#   tests/vm/verbs_smoke.sh [verbs_smoke options: -n -R -S SIZE -q DEPTH OP...]
# Environment: CC, RP_SANITIZE=1 (ASan and UBSan), RP_SMOKE_TIMEOUT (seconds,
# boot included; default 400), RP_REQUIRE_VM=1 (a missing guest fails).
# Exit status: verbs_smoke's; 77 when the libraries or the guest are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

skip() {
	echo "verbs_smoke: $*" >&2
	[ "${RP_REQUIRE_VM:-0}" = 1 ] && exit 1
	exit 77
}

pkg-config --exists libibverbs librdmacm libcjson ||
	skip "libibverbs, librdmacm or libcjson development files are missing"
out=$(mktemp -d "${TMPDIR:-/tmp}/verbs_smoke.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

flags=(-std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wshadow -Wformat=2
	-Wwrite-strings -Wmissing-prototypes -Wstrict-prototypes -Wpedantic
	-Werror)
# shellcheck disable=SC2054 # the comma belongs to the flag
[ "${RP_SANITIZE:-0}" = 1 ] &&
	flags+=(-fsanitize=address,undefined -fno-omit-frame-pointer)
# shellcheck disable=SC2046 # pkg-config's words are meant to split
"${CC:-cc}" "${flags[@]}" -I"$root/src" "$root/src/xport/verbs.c" \
	"$here/verbs_smoke.c" $(pkg-config --cflags --libs libibverbs \
	librdmacm libcjson) -o "$out/verbs_smoke" || exit 1

"$here/rxe-run" --timeout "${RP_SMOKE_TIMEOUT:-400}" -- \
	"$out/verbs_smoke" "$@"
rc=$?
[ "$rc" -eq 77 ] && skip "the Soft-RoCE guest is not available here"
exit "$rc"
