#!/usr/bin/env bash
# The sections of man/rdmaperf.1 on the transports' own options (rdma
# transport, file transport, ...), between the lines
#   .\" BEGIN transport options   and   .\" END transport options
# come from the registry: each transport's option table
# (src/xport/*/params.c), printed by the man_transports program of a build.
#
#   scripts/gen-man-transports.sh BUILD/tests/man_transports          rewrite
#   scripts/gen-man-transports.sh BUILD/tests/man_transports --check  exit 1,
#          with a diff, when the page is not what the tables say
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
gen=${1:?usage: $0 PATH/TO/man_transports [--check]}
page=$root/man/rdmaperf.1
begin='.\" BEGIN transport options'
end='.\" END transport options'

grep -qxF "$begin" "$page" && grep -qxF "$end" "$page" ||
	{ echo "$page: no '$begin' ... '$end' lines" >&2; exit 1; }
new=$(mktemp)
body=$(mktemp)
trap 'rm -f "$new" "$body"' EXIT
"$gen" > "$body"
B=$begin E=$end BODY=$body awk '
	BEGIN { b = ENVIRON["B"]; e = ENVIRON["E"]; body = ENVIRON["BODY"] }
	$0 == b { print; while ((getline l < body) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip { print }
' "$page" > "$new"
if [ "${2:-}" = --check ]; then
	diff -u "$page" "$new" && echo "man page's transport sections match the registry" ||
		{ echo "run scripts/gen-man-transports.sh $gen" >&2; exit 1; }
else
	cp "$new" "$page"
fi
