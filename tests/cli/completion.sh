#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The bash completion (dist/oomguard.bash-completion) offers every command of `oomguard --help`
# and every option of `oomguard CMD --help` for that command and no other's, offers nothing
# but a value after an option that takes one, and the values of --log-level and --policy.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}
. dist/oomguard.bash-completion

# complete WORD...: what the completion offers for the command line "oomguard WORD..." (the
# last word being completed), one per line.
complete_words() {
	COMP_WORDS=("$bin" "$@")
	COMP_CWORD=$#
	_oomguard
	printf '%s\n' "${COMPREPLY[@]}"
}

cmds=$("$bin" --help | sed -n 's/^  \([a-z]*\) .*/\1/p')
[ -n "$cmds" ] || fail "no commands in oomguard --help"
offered=$(complete_words "")
for c in $cmds; do
	grep -qx "$c" <<<"$offered" || fail "command $c not offered: $offered"
done
for cmd in run status sim; do
	help=$("$bin" "$cmd" --help) || fail "$cmd --help exited $?"
	opts=$(sed -n 's/^  \(--[a-z-]*\).*/\1/p' <<<"$help")
	[ "$(wc -l <<<"$opts")" -ge 8 ] || fail "$cmd --help lists only: $opts"
	offered=$(complete_words "$cmd" --)
	for o in $opts; do
		grep -qx -- "$o" <<<"$offered" || fail "$cmd: $o not offered"
	done
	for o in $offered; do
		grep -qx -- "$o" <<<"$opts" || [ "$o" = --help ] ||
			fail "$cmd: $o offered, but not in $cmd --help"
	done
	# An option with a value (its help line names one): no option offered after it.
	for o in $(sed -n 's/^  \(--[a-z-]*\) [A-Z].*/\1/p' <<<"$help"); do
		[ -z "$(complete_words "$cmd" "$o" --)" ] || fail "$cmd $o: options offered for its value"
	done
done
[ "$(complete_words run --log-level d)" = debug ] || fail "--log-level values"
[ "$(complete_words sim --policy re)" = rework ] || fail "--policy values"
[ "$(complete_words sim churn)" = churn-livelock ] || fail "sim scenarios"
exit 0
