#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Processes whose memory /proc shows elsewhere than on the process itself, as the kernel's OOM
# killer sees them (find_lock_task_mm(), in_vfork()). In a 1 GiB group with oom_kill_disable=1,
# a 600 MiB eater, then a filler to 700 MiB; the victim must be the eater, and the filler must
# get its memory:
#   leader  the eater's main thread left by pthread_exit() while a thread holds the memory (-L):
#           its leader is a zombie whose stat and status show no memory and whose cgroup file
#           shows the root; it is seen through the live thread, killed and its memory reaped
#   vfork   the eater vforks a child that never execs (-V): the child shows the parent's RSS
#           and is newer; killing it frees nothing, so the parent is the victim and the child
#           dies with it in the same verdict (a "kill sharer" line), as oom_kill_process() does;
#           before, `status --tasks` says why the child is no candidate
set -u
cd "$(dirname "$0")/../.."
CG_TAG=sharedmm . tests/lib/cgroup.sh
. tests/lib/daemon.sh
og_require_tools mem_eater || exit 77

# child_of PID: the first process whose parent is PID.
child_of() {
	local c _
	for _ in $(seq 50); do
		c=$(awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -n 1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

run_case() {
	local mode=$1 flag tmp cg dir spawned big child="" filler
	[ "$mode" = leader ] && flag=-L || flag=-V
	tmp=$(mktemp -d)
	cg_new cg 1G --oom-kill-disable || return 1
	dir=$(cg_path "$cg" memory)
	cg_spawn "$cg" spawned "$OG_TOOLS/mem_eater" "$flag" 600M >"$tmp/big" 2>&1
	wait_grep 20 '^ready' "$tmp/big" "$spawned" || { echo "$mode: eater not ready"; return 1; }
	big=$(sed -n 's/^ready .* pid=\([0-9]*\).*/\1/p' "$tmp/big")
	sleep 0.3
	if [ "$mode" = leader ]; then
		[ "$(awk '{ print $3 }' "/proc/$big/stat")" = Z ] ||
			{ echo "FAIL: the eater's leader is no zombie: -L did not work"; return 1; }
	else
		child=$(child_of "$big") || { echo "FAIL: no vfork child of $big"; return 1; }
		# status names why the child is no candidate, though it shows 600 MiB
		"$OG_BIN" status --cgroup "$dir" --tasks | grep " pid=$child " |
			grep -qF "its parent's memory (vfork)" ||
			{ echo "FAIL: status --tasks does not say why $child is excluded:"
			  "$OG_BIN" status --cgroup "$dir" --tasks; return 1; }
	fi
	echo "$mode: eater $big (stat: $(awk '{ print "state " $3 ", " $20 " threads, rss " $24 }' \
		"/proc/$big/stat"))${child:+, vfork child $child}, oom_score $(cat "/proc/$big/oom_score")"
	og_start "$tmp/log" --cgroup "$dir" || return 1
	(echo "$BASHPID" >"$dir/cgroup.procs" && exec "$OG_TOOLS/mem_eater" -s 8M -i 20 700M) \
		>"$tmp/filler" 2>&1 &
	filler=$!
	wait_grep 10 " kill scope=" "$tmp/log" || { echo "FAIL: nothing killed"; cat "$tmp/log"; return 1; }
	wait_grep 15 '^ready' "$tmp/filler" "$filler"
	og_stop || return 1
	grep -E ' (kill|kill sharer|reap) scope=' "$tmp/log" | cut -c1-200 | sed "s/^/$mode: /"
	[ "$(grep -m 1 -o ' kill scope=[^ ]* pid=[0-9]*' "$tmp/log" | sed 's/.*pid=//')" = "$big" ] ||
		{ echo "FAIL: the first victim was not the 600 MiB eater $big"; return 1; }
	[ "$(grep -c ' kill scope=' "$tmp/log")" = 1 ] || { echo "FAIL: more than one verdict's kill"; return 1; }
	grep -q '^ready' "$tmp/filler" || { echo "FAIL: the filler never got its memory"; return 1; }
	if [ "$mode" = leader ]; then
		grep -q " reap scope=.* pid=$big .*freed_kib=[0-9]\{6,\}" "$tmp/log" ||
			{ echo "FAIL: its memory was not freed (>= 100000 KiB)"; return 1; }
	else
		grep -q " kill sharer scope=.* pid=$child comm=mem_eater: shares the memory of pid=$big" \
			"$tmp/log" || { echo "FAIL: the child $child did not die with its parent"; return 1; }
	fi
	kill -KILL "$filler" 2>/dev/null
	cg_destroy "$cg"
	rm -rf "$tmp"
}

run_case leader || exit 1
run_case vfork || exit 1
