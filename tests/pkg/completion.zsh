#!/usr/bin/env zsh
# SPDX-License-Identifier: MIT
# The zsh completion driven for real: an interactive zsh on a pseudo
# terminal (zsh/zpty) with the generated _rdmaperf in its fpath types
# each LINE and a TAB, and must show the WORD it completes to (a unique
# match, so zsh inserts it rather than listing).
#
#   completion.zsh COMPLETION_DIR LINE WORD [LINE WORD ...]
#
# Prints "ok" or "FAIL" per case; exit 1 if any failed.
emulate -L zsh
setopt extendedglob
zmodload zsh/zpty || exit 77
dir=$1
shift
zpty z 'zsh -f -i'
zpty -w z "PS1='> '; fpath=($dir \$fpath); autoload -Uz compinit;" \
	"compinit -u -D; rdmaperf() { :; }; print READY"
# read until $1 shows up in the terminal's output, 10 s at most
await() {
	local out= chunk start=$SECONDS
	while (( SECONDS - start < 10 )); do
		if zpty -r -t z chunk; then
			out+=$chunk
			[[ $out == *$1* ]] && return 0
		else
			sleep 0.05
		fi
	done
	out=${out//$'\e'\[[0-9;?]#[a-zA-Z]/}
	print -r -- "   (the terminal showed: ${(V)${out//[[:space:]]##/ }[-120,-1]})"
	return 1
}
await READY || { print "FAIL zsh did not start"; exit 1; }
fails=0
while (( $# >= 2 )); do
	line=$1 word=$2
	shift 2
	zpty -w -n z "$line"$'\t'
	if await "$word"; then
		print -r -- "ok    zsh: '$line' TAB: $word"
	else
		print -r -- "FAIL  zsh: '$line' TAB: not $word"
		(( fails++ ))
	fi
	zpty -w -n z $'\C-u'
done
zpty -d z
(( fails == 0 ))
