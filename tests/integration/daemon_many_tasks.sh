#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A group of more processes than the daemon's task table (4096): a crowd of 5,000 small ones
# started first, then a 600 MiB eater in a child group (listed after the crowd, whatever its pid:
# a listing reads the group's own cgroup.procs, then its children's), then a filler that takes the group (1536 MiB, oom_kill_disable=1) past its limit. The verdict must kill
# the eater, once, and the filler get its memory; `status --tasks` must name it the victim and
# say how many processes ranked after the ones it kept. (A listing that stopped at 4096 never saw
# the eater and killed crowd members that free nothing.)
set -u
cd "$(dirname "$0")/../.."
CG_TAG=many . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater || exit 77

CROWD=5000
tmp=$(mktemp -d)
FAIL_LOG=$tmp/log
# The child group's processes killed (all the test's own) and the group removed, before
# og_cleanup removes its parent.
cleanup() {
	local _ pids
	if [ -n "${dir:-}" ] && [ -d "$dir/late" ]; then
		for _ in $(seq 50); do
			pids=$(cat "$dir/late/cgroup.procs" 2>/dev/null) # (cgroup files show size 0)
			[ -n "$pids" ] || break
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null
			sleep 0.1
		done
		rmdir "$dir/late"
	fi
	rm -rf "$tmp"
	og_cleanup
}
trap cleanup EXIT

cg_new cg 1536M --oom-kill-disable || fail "cannot make the group"
dir=$(cg_path "$cg" memory)
cg_spawn "$cg" crowd "$OG_TOOLS/mem_eater" -F "$CROWD" 1M >"$tmp/crowd" 2>&1
wait_grep 60 '^ready' "$tmp/crowd" "$crowd" || fail "the crowd did not start: $(cat "$tmp/crowd")"
for _ in $(seq 100); do
	[ "$(wc -l <"$dir/cgroup.procs")" -gt "$CROWD" ] && break
	sleep 0.1
done
n=$(wc -l <"$dir/cgroup.procs")
[ "$n" -gt "$CROWD" ] || fail "only $n processes in the group"
mkdir "$dir/late" || fail "cannot make the child group"
(echo "$BASHPID" >"$dir/late/cgroup.procs" && exec "$OG_TOOLS/mem_eater" 600M) >"$tmp/big" 2>&1 &
spawned=$!
wait_grep 30 '^ready' "$tmp/big" "$spawned" || fail "the eater did not start"
big=$(sed -n 's/^ready .* pid=\([0-9]*\).*/\1/p' "$tmp/big")
echo "group: $(wc -l <"$dir/cgroup.procs") processes, $(($(cat "$dir/memory.usage_in_bytes") >> 20)) MiB; eater $big"

"$OG_BIN" status --cgroup "$dir" --tasks >"$tmp/status" || fail "status failed: $(cat "$tmp/status")"
grep -E '^  tasks:|^ +1\*' "$tmp/status"
grep -qE "^ +1\* pid=$big " "$tmp/status" || fail "status does not name the eater $big the victim: $(cat "$tmp/status")"
grep -qE '^  tasks: [0-9]+ listed, [0-9]+ more ranked after these' "$tmp/status" ||
	fail "status does not say that processes ranked after the ones kept"
# the same in JSON: a document that parses, with the count of those left out
"$OG_BIN" status --cgroup "$dir" --tasks --json >"$tmp/status.json" || fail "status --json failed"
out=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["scopes"][0]["tasks_ranked_out"])' \
	"$tmp/status.json" 2>&1) || fail "status --json: $out"
[ "$out" -gt 0 ] 2>/dev/null || fail "status --json: tasks_ranked_out is '$out'"

og_start "$tmp/log" --cgroup "$dir" || fail "oomguard did not start"
(echo "$BASHPID" >"$dir/cgroup.procs" && exec "$OG_TOOLS/mem_eater" -s 8M -i 20 500M) \
	>"$tmp/filler" 2>&1 &
filler=$!
wait_grep 30 " kill scope=" "$tmp/log" || fail "nothing killed"
wait_grep 30 '^ready' "$tmp/filler" "$filler"
og_stop || fail "oomguard did not stop cleanly"
grep -E ' (kill|reap) scope=' "$tmp/log" | cut -c1-200
victim=$(grep -m 1 -o ' kill scope=[^ ]* pid=[0-9]*' "$tmp/log" | sed 's/.*pid=//')
[ "$victim" = "$big" ] || fail "the first victim was $victim, not the 600 MiB eater $big"
[ "$(grep -c ' kill scope=' "$tmp/log")" = 1 ] || fail "more than one kill"
grep -q '^ready' "$tmp/filler" || fail "the filler never got its memory"
kill -KILL "$filler" 2>/dev/null
echo "ok: the eater listed after $CROWD others was the one victim"
