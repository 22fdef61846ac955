#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A group whose children nest 18 deep under names of 60 bytes, on the real kernel (v1 memory,
# 256 MiB, oom_kill_disable=1): a 160 MiB eater 12 levels down (a path of about 800 bytes, over
# the 511 a configured path may have) and an idle process 18 levels down, past the walk's 16
# levels. `status --tasks` must name the eater the victim and say that one child group was not
# listed (in JSON too); then a filler in the group itself takes it past its limit, and the
# daemon must kill the eater (the largest), once, and warn of the group it could not list.
# (Before: a child whose path was over 511 bytes was skipped in silence, so the eater was no
# candidate and the filler, the largest listed, was killed instead.)
set -u
cd "$(dirname "$0")/../.."
CG_TAG=deep . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater || exit 77

tmp=$(mktemp -d)
FAIL_LOG=$tmp/log
levels=()
# The nested groups' processes killed (all the test's own) and the groups removed deepest
# first, before og_cleanup removes their parent.
cleanup() {
	local i d _ pids
	for ((i = ${#levels[@]} - 1; i >= 0; i--)); do
		d=${levels[i]}
		[ -d "$d" ] || continue
		for _ in $(seq 50); do
			pids=$(cat "$d/cgroup.procs" 2>/dev/null)
			[ -n "$pids" ] || break
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null
			sleep 0.1
		done
		rmdir "$d"
	done
	rm -rf "$tmp"
	og_cleanup
}
trap cleanup EXIT

cg_new cg 256M --oom-kill-disable || fail "cannot make the group"
dir=$(cg_path "$cg" memory)
d=$dir
for i in $(seq 1 18); do
	d=$d/$(printf 'g%02d-%057d' "$i" 0)
	mkdir "$d" || fail "cannot make the child group at level $i"
	levels+=("$d")
done
deep12=${levels[11]} deep18=${levels[17]}
[ $((${#deep12} - ${#dir})) -gt 511 ] || fail "level 12 is only $((${#deep12} - ${#dir})) bytes below"
(echo "$BASHPID" >"$deep12/cgroup.procs" && exec "$OG_TOOLS/mem_eater" 160M) >"$tmp/big" 2>&1 &
spawned=$!
wait_grep 30 '^ready' "$tmp/big" "$spawned" || fail "the eater did not start: $(cat "$tmp/big")"
big=$(sed -n 's/^ready .* pid=\([0-9]*\).*/\1/p' "$tmp/big")
(echo "$BASHPID" >"$deep18/cgroup.procs" && exec sleep 600) &
idle=$!

"$OG_BIN" status --cgroup "$dir" --tasks >"$tmp/status" || fail "status failed: $(cat "$tmp/status")"
grep -E '^  tasks:|^ +1\*' "$tmp/status"
grep -qE "^ +1\* pid=$big " "$tmp/status" ||
	fail "status does not name the eater $big 12 levels down the victim: $(cat "$tmp/status")"
grep -q '^  tasks: 1 child groups not listed (more than 16 levels' "$tmp/status" ||
	fail "status does not say one child group was not listed: $(cat "$tmp/status")"
"$OG_BIN" status --cgroup "$dir" --tasks --json >"$tmp/status.json" || fail "status --json failed"
out=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["scopes"][0]["groups_not_listed"])' \
	"$tmp/status.json" 2>&1) || fail "status --json: $out"
[ "$out" = 1 ] || fail "status --json: groups_not_listed is '$out', want 1"

og_start "$tmp/log" --cgroup "$dir" || fail "oomguard did not start"
cg_spawn "$cg" filler "$OG_TOOLS/mem_eater" -s 8M -i 20 200M >"$tmp/filler" 2>&1
wait_grep 30 " kill scope=" "$tmp/log" || fail "nothing killed"
wait_grep 30 '^ready' "$tmp/filler" "$filler" || fail "the filler did not get its memory"
og_stop || fail "oomguard did not stop"
grep " kill scope=" "$tmp/log"
kills=$(grep -c " kill scope=" "$tmp/log")
[ "$kills" = 1 ] || fail "$kills kills, want 1"
grep -q " kill scope=$dir pid=$big " "$tmp/log" || fail "the eater $big was not the victim"
grep -q "scope=$dir: 1 child groups not listed" "$tmp/log" ||
	fail "no warning of the group not listed"
kill -0 "$idle" 2>/dev/null || fail "the idle process 18 levels down died"
exit 0
