#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Thrash: in a 256 MiB v1 cgroup a task holds 200 MiB of anon memory and rereads a 64 MiB file,
# its reads throttled to 16 MB/s (blkio). About 50 MiB of cache fits: from the second pass on
# every reread misses, and the task crawls at disk speed while the kernel counts the page-cache
# reclaim as progress. Thrashing starts when the first pass ends (the thrasher prints passes=1).
#   control: the kernel alone does not OOM-kill it within CONTROL_SEC (60 s by default);
#            oomguard watches the same run in --dry-run and must decide OOM within 3 s of the
#            thrashing starting (the reread loop's first pass);
#   act:     in a fresh group, oomguard without --dry-run kills the thrasher within 3 s of
#            the thrashing starting, and not during the first (cold) pass.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=thrash . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require blkio || exit 77
og_require_tools thrasher || exit 77
CONTROL_SEC=${CONTROL_SEC:-60}

ms() { echo $(($(date +%s%N) / 1000000)); }
tmp=$(mktemp -d -p "$PWD/build")
trap 'og_cleanup; rm -rf "$tmp"' EXIT
cg_new CG 256M --read-bps "$tmp" 16777216 || exit 1
dir=$(cg_path "$CG" memory)

og_start "$tmp/log" --cgroup "$dir" --dry-run || exit 1
cg_spawn "$CG" thr "$OG_TOOLS/thrasher" -a 200M -f 64M -i 100 "$tmp/file" >"$tmp/thr" 2>&1
t_start=
t_decide=
t_end=$(($(ms) + CONTROL_SEC * 1000 + 120000)) # + time to write the file
while [ "$(ms)" -lt "$t_end" ]; do
	sleep 0.05
	kill -0 "$thr" 2>/dev/null || break
	[ -z "$t_start" ] && grep -q 'passes=1' "$tmp/thr" && t_start=$(ms) && t_end=$((t_start + CONTROL_SEC * 1000))
	[ -n "$t_start" ] && [ -z "$t_decide" ] && grep -q 'dry-run: would kill' "$tmp/log" && t_decide=$(ms)
done
fail=0
kernel_kills=$(cg_field "$CG" memory.oom_control oom_kill)
tail -n 3 "$tmp/thr"
if [ -z "$t_start" ]; then
	echo "FAIL: the thrasher never finished its first pass (group oom_kill=${kernel_kills:-?})"
	cat "$tmp/thr"
	exit 1
fi
kill -0 "$thr" 2>/dev/null || { echo "FAIL: the thrasher died during the control"; fail=1; }
[ "${kernel_kills:-0}" = 0 ] || { echo "FAIL: the kernel killed $kernel_kills tasks"; fail=1; }
echo "control: ${CONTROL_SEC} s of thrashing, kernel oom_kill=${kernel_kills:-0}"
if [ -z "$t_decide" ]; then
	echo "FAIL: oomguard --dry-run never decided OOM"
	fail=1
else
	echo "dry-run decision $((t_decide - t_start)) ms after the thrashing started"
	[ $((t_decide - t_start)) -le 3000 ] || { echo "FAIL: decided after more than 3 s"; fail=1; }
fi
grep -m1 'oomguard: notice: oom ' "$tmp/log" | cut -c1-400
og_stop || fail=1
[ "$fail" = 0 ] || { cat "$tmp/log" | tail -n 20; exit 1; }

cg_destroy "$CG"

# act: a fresh group and thrasher with a real oomguard: it must kill within 3 s of the
# thrashing starting, and not before (the first pass is a cold read, not thrashing).
cg_new CG2 256M --read-bps "$tmp" 16777216 || exit 1
dir2=$(cg_path "$CG2" memory)
og_start "$tmp/log2" --cgroup "$dir2" || exit 1
cg_spawn "$CG2" thr2 "$OG_TOOLS/thrasher" -a 200M -f 64M -i 100 "$tmp/file2" >"$tmp/thr2" 2>&1
t_start=
t_end=$(($(ms) + 120000))
while [ "$(ms)" -lt "$t_end" ] && kill -0 "$thr2" 2>/dev/null; do
	sleep 0.05
	[ -z "$t_start" ] && grep -q 'passes=1' "$tmp/thr2" && t_start=$(ms)
done
t1=$(ms)
sleep 0.3
og_stop || exit 1
grep ' kill scope=\| reap scope=' "$tmp/log2" | cut -c1-300
if ! grep -q " kill scope=$dir2 pid=$thr2 " "$tmp/log2"; then
	echo "FAIL: thrasher not killed by oomguard (group oom_kill=$(cg_field "$CG2" memory.oom_control oom_kill))"
	tail -n 5 "$tmp/thr2"
	tail "$tmp/log2"
	exit 1
fi
[ -n "$t_start" ] || { echo "FAIL: killed before the thrashing started (first pass)"; cat "$tmp/thr2"; exit 1; }
echo "killed $((t1 - t_start)) ms after the thrashing started"
[ $((t1 - t_start)) -le 3000 ] || { echo "FAIL: more than 3 s"; exit 1; }
