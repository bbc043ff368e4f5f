#!/usr/bin/env bash
# The man page documents every long option that --help lists, and no more.
set -euo pipefail
bin=$1
man=$2
help_opts=$("$bin" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
man_opts=$(sed 's/\\-/-/g' "$man" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
missing=$(comm -23 <(echo "$help_opts") <(echo "$man_opts"))
extra=$(comm -13 <(echo "$help_opts") <(echo "$man_opts"))
[ -z "$missing" ] || { echo "man page lacks: $missing"; exit 1; }
[ -z "$extra" ] || { echo "man page has options --help lacks: $extra"; exit 1; }
echo "man page and --help agree on $(echo "$help_opts" | wc -l) options"
