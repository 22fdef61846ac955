#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A child that shares its parent's memory before exec (vfork, posix_spawn) shows the parent's
# RSS as its own and is newer, so it ranked first; killing it frees nothing (the kernel's
# in_vfork() never chooses it). When a filler exhausts the group (oom_kill_disable=1), the
# victim must be the 600 MiB parent, never the child, and the child dies with it (it holds the
# memory too: the kernel's oom_kill_process() kills every process sharing the victim's mm), in
# one verdict; the memory then comes back.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=vfork . tests/lib/cgroup.sh
. tests/lib/daemon.sh
og_require_tools mem_eater || exit 77

tmp=$(mktemp -d)
cg_new cg 1G --oom-kill-disable || exit 1
dir=$(cg_path "$cg" memory)
cg_spawn "$cg" parent "$OG_TOOLS/mem_eater" -V 600M >"$tmp/big" 2>&1
wait_grep 20 '^ready' "$tmp/big" "$parent" || { echo "eater not ready"; cat "$tmp/big"; exit 1; }
child=""
for _ in $(seq 50); do
	child=$(awk -v p="$parent" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -n 1)
	[ -n "$child" ] && break
	sleep 0.1
done
[ -n "$child" ] || { echo "FAIL: no vfork child of $parent"; exit 1; }
echo "parent $parent ($(awk '{ print $24 }' "/proc/$parent/stat") pages), vfork child $child" \
	"($(awk '{ print $24 }' "/proc/$child/stat") pages)"
og_start "$tmp/log" --cgroup "$dir" || exit 1
(echo "$BASHPID" >"$dir/cgroup.procs" && exec "$OG_TOOLS/mem_eater" -s 8M -i 20 700M) \
	>"$tmp/filler" 2>&1 &
filler=$!
wait_grep 10 " kill scope=" "$tmp/log" || { echo "FAIL: nothing killed"; cat "$tmp/log"; exit 1; }
# The memory comes back: the filler gets its 700 MiB.
wait_grep 15 '^ready' "$tmp/filler" "$filler" || { echo "FAIL: the filler never got its memory"; }
og_stop || exit 1
grep -E ' (kill|kill sharer|reap) scope=' "$tmp/log" | cut -c1-200
first=$(grep -m 1 -o ' kill scope=[^ ]* pid=[0-9]*' "$tmp/log" | sed 's/.*pid=//')
[ "$first" = "$parent" ] ||
	{ echo "FAIL: the first victim was $first, not the parent $parent (child $child)"; exit 1; }
grep -q " kill sharer scope=.* pid=$child comm=mem_eater: shares the memory of pid=$parent" \
	"$tmp/log" || { echo "FAIL: the child $child did not die with its parent"; exit 1; }
[ "$(grep -c ' kill scope=' "$tmp/log")" = 1 ] ||
	{ echo "FAIL: more than one verdict's kill for one parent and its child"; exit 1; }
grep -q '^ready' "$tmp/filler" || exit 1
! grep -q " kill scope=.* pid=$filler " "$tmp/log" || { echo "FAIL: the filler was killed"; exit 1; }
kill -KILL "$filler" 2>/dev/null
cg_destroy "$cg"
rm -rf "$tmp"
