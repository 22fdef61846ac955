#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A process whose main thread left by pthread_exit() while a second thread holds its memory: its
# leader is a zombie whose stat and status show no memory, while the kernel's OOM killer counts
# the process's (find_lock_task_mm()). oomguard must see it as the kernel does: when a filler
# exhausts the group (oom_kill_disable=1), the 600 MiB process is the victim, not the filler,
# and its memory comes back.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=leader . tests/lib/cgroup.sh
. tests/lib/daemon.sh
og_require_tools mem_eater || exit 77

tmp=$(mktemp -d)
cg_new cg 1G --oom-kill-disable || exit 1
dir=$(cg_path "$cg" memory)
cg_spawn "$cg" spawned "$OG_TOOLS/mem_eater" -L 600M >"$tmp/big" 2>&1
wait_grep 20 '^ready' "$tmp/big" "$spawned" || { echo "eater not ready"; cat "$tmp/big"; exit 1; }
big=$(sed -n 's/^ready .* pid=\([0-9]*\).*/\1/p' "$tmp/big")
sleep 0.3
state=$(awk '{ print $3 }' "/proc/$big/stat")
[ "$state" = Z ] || { echo "FAIL: the eater's leader is $state, not a zombie: -L did not work"; exit 1; }
echo "eater pid=$big: leader a zombie, $(awk '{ print $20 }' "/proc/$big/stat") threads," \
	"oom_score $(cat "/proc/$big/oom_score")"
og_start "$tmp/log" --cgroup "$dir" || exit 1
(echo "$BASHPID" >"$dir/cgroup.procs" && exec "$OG_TOOLS/mem_eater" -s 8M -i 20 700M) \
	>"$tmp/filler" 2>&1 &
filler=$!
wait_grep 10 " kill scope=" "$tmp/log" || { echo "FAIL: nothing killed"; cat "$tmp/log"; exit 1; }
sleep 1
og_stop || exit 1
grep -E ' (kill|reap|oom) scope=' "$tmp/log" | cut -c1-220
grep -q " kill scope=.* pid=$big comm=mem_eater rss_kib=[0-9]\{6,\} " "$tmp/log" ||
	{ echo "FAIL: the 600 MiB process with its leader gone was not the victim"; exit 1; }
grep -q " reap scope=.* pid=$big .*freed_kib=[0-9]\{6,\}" "$tmp/log" ||
	{ echo "FAIL: its memory was not freed (>= 100000 KiB)"; exit 1; }
! grep -q " kill scope=.* pid=$filler " "$tmp/log" || { echo "FAIL: the filler was killed"; exit 1; }
kill -KILL "$filler" 2>/dev/null
cg_destroy "$cg"
rm -rf "$tmp"
