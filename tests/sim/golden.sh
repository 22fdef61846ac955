#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Golden outputs of `oomguard sim`: every scenario under every rule on a small machine, compared
# with diff -u. After an intended change to the model: tests/sim/golden.sh --update, then review
# the diff of tests/sim/golden/ before committing it.
set -u
cd "$(dirname "$0")/../.."
bin=${OOMGUARD_BIN:-./oomguard}
dir=tests/sim/golden
update=0
[ "${1:-}" = "--update" ] && update=1
mkdir -p "$dir"
rc=0
scenarios=$("$bin" sim --list | awk '{print $1}')
[ -n "$scenarios" ] || { echo "no scenarios from $bin sim --list"; exit 1; }
run() { # name, args...
	local name=$1 out
	shift
	out=$("$bin" sim "$@") || { echo "FAIL: oomguard sim $* exited $?"; rc=1; return; }
	if [ $update = 1 ]; then
		printf '%s\n' "$out" >"$dir/$name.txt"
	elif ! diff -u "$dir/$name.txt" <(printf '%s\n' "$out"); then
		echo "FAIL: oomguard sim $* differs from $dir/$name.txt"
		rc=1
	fi
}
for sc in $scenarios; do
	for rule in base rework rework-v4 mainline; do
		run "$sc-$rule" "$sc" --policy "$rule" --mem-mib 32 --seed 1
	done
done
run "stuck-victim-noreaper-compare" stuck-victim --compare --no-reaper --mem-mib 32 --seed 1
run "flood-compare-json" flood --compare --json --mem-mib 32 --seed 7
exit $rc
