#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# writer and thrasher in real memory cgroups: writer loops the stated number of times, leaves no
# file and fills the group's page cache; thrasher reports progress, and a reread file larger than
# the group's room for cache under a blkio read throttle crawls near the throttle's rate.
set -u
cd "$(dirname "$0")/../.." || exit 1
CG_TAG=wrth . tests/lib/cgroup.sh
. tests/lib/test.sh
cg_require || exit 77
tools=${OOMGUARD_TOOLS:-build/tools}
dir=$(mktemp -d /var/tmp/oomguard-test-wrth.XXXXXX)
trap 'cg_cleanup_all; rm -rf "$dir"' EXIT

# 1. writer: 3 loops of 16 MiB in 4 MiB blocks with fsync; the file is gone afterwards.
cg_new cg 64M || fail "cg_new"
cg_exec "$cg" "$tools/writer" -b 4M -f -n 3 -v "$dir/w" 16M >"$dir/w.out" || fail "writer failed"
grep -qx 'done loops=3 written_mib=48' "$dir/w.out" || fail "writer: $(cat "$dir/w.out")"
[ "$(grep -c '^loop ' "$dir/w.out")" -eq 3 ] || fail "writer -v: $(cat "$dir/w.out")"
[ -e "$dir/w" ] && fail "writer left $dir/w behind"

# 2. writer until SIGTERM: page cache charged to the group, file removed on the signal.
cg_spawn "$cg" pid "$tools/writer" "$dir/w2" 32M >"$dir/w2.out"
# The writer removes its file at the end of each loop, so one sample may fall just after a
# removal: take the largest of samples over 2 s.
cache=0
for _ in $(seq 20); do
	sleep 0.1
	c=$(cg_stat "$cg" cache)
	[ "$c" -gt "$cache" ] && cache=$c
done
[ "$cache" -ge $((4 << 20)) ] || fail "writer's group held at most $cache bytes of cache"
kill -TERM "$pid"
wait "$pid" || fail "writer exited non-zero on SIGTERM"
[ -e "$dir/w2" ] && fail "writer left $dir/w2 behind after SIGTERM"
grep -q '^done loops=' "$dir/w2.out" || fail "writer: $(cat "$dir/w2.out")"
cg_destroy "$cg"

# 3. thrasher that fits: 16 MiB anon + 16 MiB file in 128 MiB, 2 s: progress lines, rate > 0.
cg_new cg 128M || fail "cg_new"
cg_exec "$cg" "$tools/thrasher" -a 16M -f 16M -i 250 -d 2 "$dir/t" >"$dir/t.out" ||
	fail "thrasher failed: $(cat "$dir/t.out")"
grep -q '^ready anon_kib=16384 file_kib=16384' "$dir/t.out" || fail "thrasher: $(cat "$dir/t.out")"
[ "$(grep -c '^progress ' "$dir/t.out")" -ge 4 ] || fail "few progress lines: $(cat "$dir/t.out")"
fit_mib=$(sed -n 's/^done read_mib=\([0-9]*\).*/\1/p' "$dir/t.out")
[ "${fit_mib:-0}" -ge 64 ] || fail "fitting thrasher read only ${fit_mib:-0} MiB in 2 s"
[ -e "$dir/t" ] && fail "thrasher left $dir/t behind"

# 3b. thrasher -w: after its first pass it waits for the go file (no second pass meanwhile),
# says "resume" when it appears and goes on; a SIGTERM while it waits ends it cleanly.
cg_spawn "$cg" pid "$tools/thrasher" -f 8M -p 3 -w "$dir/go" "$dir/t3" >"$dir/t3.out"
for _ in $(seq 50); do grep -q '^pass 1 ' "$dir/t3.out" && break; sleep 0.1; done
sleep 0.5
grep -q '^pass 1 ' "$dir/t3.out" || fail "thrasher -w: no first pass: $(cat "$dir/t3.out")"
grep -q '^pass 2 \|^resume ' "$dir/t3.out" && fail "thrasher -w went on without GO: $(cat "$dir/t3.out")"
touch "$dir/go"
wait "$pid" || fail "thrasher -w exited non-zero"
[ "$(sed -n 's/^\([a-z]*\) .*/\1/p' "$dir/t3.out" | tr '\n' ' ')" = "ready pass resume pass pass done " ] ||
	fail "thrasher -w: $(cat "$dir/t3.out")"
cg_spawn "$cg" pid "$tools/thrasher" -f 8M -w "$dir/go2" "$dir/t4" >"$dir/t4.out"
for _ in $(seq 50); do grep -q '^pass 1 ' "$dir/t4.out" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid" || fail "thrasher -w exited non-zero on SIGTERM while it waited"
grep -q '^resume' "$dir/t4.out" && fail "thrasher -w resumed on SIGTERM: $(cat "$dir/t4.out")"
grep -q '^done read_mib=8 passes=1' "$dir/t4.out" || fail "thrasher -w, SIGTERM: $(cat "$dir/t4.out")"
[ -e "$dir/t4" ] && fail "thrasher left $dir/t4 behind after SIGTERM"
cg_destroy "$cg"

# 4. thrasher that does not fit: 48 MiB anon + 48 MiB file in 64 MiB with reads throttled to
# 4 MiB/s: every pass rereads from disk, so its rate stays near the throttle.
cg_new cg 64M --read-bps "$dir" $((4 << 20)) || fail "cg_new with blkio"
cg_exec "$cg" "$tools/thrasher" -a 48M -f 48M -i 500 -d 4 "$dir/t2" >"$dir/t2.out" ||
	fail "thrasher failed: $(cat "$dir/t2.out")"
slow_mib=$(sed -n 's/^done read_mib=\([0-9]*\).*/\1/p' "$dir/t2.out")
[ -n "$slow_mib" ] && [ "$slow_mib" -le 40 ] ||
	fail "thrashing reader read ${slow_mib:-?} MiB in 4 s at 4 MiB/s: $(cat "$dir/t2.out")"
exit 0
