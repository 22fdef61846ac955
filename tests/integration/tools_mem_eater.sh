#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# mem_eater in real memory cgroups: 64 MiB in a 128 MiB group reports its size, its RSS and the
# group's rss match it, SIGTERM ends it cleanly; 256 MiB in the same group is OOM-killed by the
# kernel (so it is charged from its first page); stepwise allocation grows over time; -z fills
# each page to compress as asked (read back through /proc/PID/mem, compressed with zlib).
set -u
cd "$(dirname "$0")/../.." || exit 1
CG_TAG=eater . tests/lib/cgroup.sh
. tests/lib/test.sh
cg_require || exit 77
tools=${OOMGUARD_TOOLS:-build/tools}
out=$(mktemp -d /tmp/oomguard-test-eater.XXXXXX)
trap 'cg_cleanup_all; rm -rf "$out"' EXIT

# 1. 64 MiB in 128 MiB: ready line, RSS and the group's rss at least the size, under the limit.
cg_new cg 128M || fail "cg_new"
cg_spawn "$cg" pid "$tools/mem_eater" 64M >"$out/eater1"
wait_grep 10 '^ready' "$out/eater1" "$pid"
line=$(grep '^ready' "$out/eater1") || fail "no ready line: $(cat "$out/eater1")"
[[ $line =~ size_kib=([0-9]+)\ rss_kib=([0-9]+)\ pid=([0-9]+) ]] || fail "bad line: $line"
size_kib=${BASH_REMATCH[1]} rss_kib=${BASH_REMATCH[2]} epid=${BASH_REMATCH[3]}
[ "$size_kib" -eq 65536 ] || fail "size_kib=$size_kib, want 65536"
[ "$epid" -eq "$pid" ] || fail "pid=$epid, want $pid"
[ "$rss_kib" -ge 65536 ] && [ "$rss_kib" -le $((65536 + 8192)) ] ||
	fail "rss_kib=$rss_kib, want 64 MiB (+ at most 8 MiB of program)"
grep -qx "$pid" <(cg_procs "$cg") || fail "eater $pid is not in $cg"
cg_rss=$(cg_stat "$cg" rss)
[ "$cg_rss" -ge $((64 << 20)) ] && [ "$cg_rss" -le $((128 << 20)) ] ||
	fail "group rss=$cg_rss, want between 64 and 128 MiB"
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "mem_eater exited $rc on SIGTERM, want 0"
cg_destroy "$cg" || fail "cg_destroy"

# 2. 256 MiB in 128 MiB: the group's OOM killer ends it with SIGKILL, the group counts the kill.
cg_new cg 128M || fail "cg_new"
cg_spawn "$cg" pid "$tools/mem_eater" -t 30 256M >"$out/eater2"
wait "$pid"
rc=$?
[ "$rc" -eq 137 ] || fail "256M in 128M exited $rc, want 137 (SIGKILL): $(cat "$out/eater2")"
grep -q '^ready' "$out/eater2" && fail "256M eater said ready inside a 128M group"
[ "$(cg_field "$cg" memory.oom_control oom_kill)" -ge 1 ] ||
	fail "memory.oom_control oom_kill did not count the kill"
cg_destroy "$cg" || fail "cg_destroy"

# 3. Steps: 32 MiB in 8 MiB steps 300 ms apart is not done after 300 ms, done within 5 s.
cg_new cg 128M || fail "cg_new"
start=$(date +%s%N)
cg_spawn "$cg" pid "$tools/mem_eater" -s 8M -i 300 -x 32M >"$out/eater3"
wait "$pid" || fail "stepwise eater failed"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed_ms" -ge 850 ] || fail "4 steps 300 ms apart took only $elapsed_ms ms"
grep -q '^ready size_kib=32768 ' "$out/eater3" || fail "stepwise: $(cat "$out/eater3")"

# 5. -z RATIO: each page's first 4096/RATIO bytes random (its page number first), the rest zero
# (zram compresses it about RATIO to 1); by default one byte a page. Pages of the 16 MiB mapping
# (taken in steps of 6 KiB, so calls end inside pages) read back and compressed with zlib.
page_stats() { # PID: "pages nonzero_min nonzero_max tail_nonzero zlib_per_page distinct"
	python3 - "$1" <<'PY'
import sys, zlib
pid = sys.argv[1]
maps = [l.split() for l in open(f"/proc/{pid}/maps")]
lo, hi = max((tuple(int(x, 16) for x in m[0].split("-")) for m in maps if len(m) == 5),
	     key=lambda r: r[1] - r[0])
mem = open(f"/proc/{pid}/mem", "rb")
nz, tail, z, seen = [], 0, 0, set()
for a in range(lo, hi, 97 * 4096)[:32]:
	mem.seek(a)
	p = mem.read(4096)
	nz.append(4096 - p.count(0))
	tail += 4096 - 1365 - p[1365:].count(0)
	z += len(zlib.compress(p, 6))
	seen.add(p)
print(len(nz), min(nz), max(nz), tail, z // len(nz), len(seen))
PY
}
for z in 3 1 0; do
	cg_new cg 128M || fail "cg_new"
	cg_spawn "$cg" pid "$tools/mem_eater" -z $z -s 6K -i 0 -t 30 16M >"$out/eater5"
	wait_grep 10 '^ready' "$out/eater5" "$pid" || fail "-z $z: not ready: $(cat "$out/eater5")"
	read -r pages nzmin nzmax tail zpp distinct < <(page_stats "$pid") ||
		fail "-z $z: cannot read its pages"
	kill -TERM "$pid"
	wait "$pid" || fail "-z $z: mem_eater exited $? on SIGTERM"
	cg_destroy "$cg" || fail "cg_destroy"
	[ "$pages" -ge 30 ] || fail "-z $z: read $pages pages"
	case $z in
	3) # 1365 bytes: a page number (mostly zero bytes), then random ones (a few zero); zlib
		# keeps them; every page different.
		[ "$nzmin" -ge 1290 ] && [ "$nzmax" -le 1365 ] && [ "$tail" = 0 ] ||
			fail "-z 3: nonzero bytes $nzmin-$nzmax a page (want 1290-1365), $tail past"
		[ "$zpp" -ge 1300 ] || fail "-z 3: a page compresses to $zpp bytes, want >= 1300"
		[ "$distinct" = "$pages" ] || fail "-z 3: $distinct different pages of $pages" ;;
	1) [ "$nzmin" -ge 4000 ] && [ "$zpp" -ge 4000 ] ||
		fail "-z 1: $nzmin nonzero bytes a page, compressed to $zpp (want >= 4000 both)" ;;
	0) [ "$nzmin" = 1 ] && [ "$nzmax" = 1 ] || fail "-z 0: $nzmin-$nzmax bytes a page, want 1"
		[ "$zpp" -le 64 ] || fail "-z 0: a page compresses to $zpp bytes, want <= 64" ;;
	esac
done

# 4. Bad arguments are refused.
"$tools/mem_eater" 2>/dev/null && fail "no size accepted"
"$tools/mem_eater" 12X 2>/dev/null && fail "12X accepted"
"$tools/mem_eater" 0 2>/dev/null && fail "0 accepted"
"$tools/mem_eater" -z 65 1M 2>/dev/null && fail "-z 65 accepted"
"$tools/mem_eater" -z x 1M 2>/dev/null && fail "-z x accepted"
exit 0
