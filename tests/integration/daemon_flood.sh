#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Flood: a 512 MiB v1 cgroup with oom_kill_disable=1 and 20 eaters of 40 MiB. oomguard kills
# until the rest fit; every kill is inside the cgroup; a process outside is untouched; no task
# is left parked under_oom; the kernel killed nothing.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=flood . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater || exit 77

tmp=$(mktemp -d)
cg_new CG 512M --oom-kill-disable || exit 1
cg_new OUT 128M || exit 1
cg_spawn "$OUT" outside sleep 300
dir=$(cg_path "$CG" memory)

og_start "$tmp/log" --cgroup "$dir" --interval 100 || exit 1
pids=()
for i in $(seq 20); do
	cg_spawn "$CG" p "$OG_TOOLS/mem_eater" -s 4M -i 100 40M >"$tmp/eater.$i" 2>&1
	pids+=("$p")
done

# The eaters take their memory in steps so that each has exec()ed before the group is full
# (an exec in a full group fails with ENOMEM: it is not a page fault that parks).
# Wait (bounded) until no task is parked and every survivor holds its 40 MiB: it said "ready",
# or its RSS says so. The line alone is not enough: an eater that fills the group's last pages
# may find no page for the line itself (a write's page cache, charged to the full group, fails
# with ENOMEM, not by parking), and its output stays empty while it holds 42.5 MB and sleeps
# (seen in about 1 run of 60: under_oom 0, failcnt still, no refault).
holds_40m() { # pid, eater number
	grep -q '^ready' "$tmp/eater.$2" ||
		[ "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null)" -ge 40960 ] 2>/dev/null
}
ok=0
for i in $(seq 300); do
	sleep 0.1
	under=$(cg_field "$CG" memory.oom_control under_oom)
	alive=0 ready=0
	for k in "${!pids[@]}"; do
		if kill -0 "${pids[$k]}" 2>/dev/null; then
			alive=$((alive + 1))
			holds_40m "${pids[$k]}" $((k + 1)) && ready=$((ready + 1))
		fi
	done
	if [ "$under" = 0 ] && [ "$alive" -gt 0 ] && [ "$alive" = "$ready" ]; then
		ok=1
		break
	fi
done
sleep 0.5 # let a last report reach the log
og_stop || exit 1
# Counted again now: the loop above can see the group "settled" while a victim killed an
# instant before still answers kill -0 (until this shell has reaped it), and the kill after it
# then comes later than that count.
alive=0
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null && alive=$((alive + 1))
done
fail=0
kills=$(grep -c ' kill scope=' "$tmp/log")
echo "alive=$alive ready=$ready kills=$kills under_oom=$under"
[ "$ok" = 1 ] || { echo "FAIL: did not settle (under_oom=$under alive=$alive ready=$ready)"; fail=1; }
[ "$kills" -ge 8 ] || { echo "FAIL: $kills kills, 20 x 40 MiB need at least 8 in 512 MiB"; fail=1; }
[ $((alive + kills)) -eq 20 ] || { echo "FAIL: $alive alive + $kills kills != 20"; fail=1; }
grep ' kill scope=' "$tmp/log" | grep -v " kill scope=$dir " && { echo "FAIL: kill outside"; fail=1; }
for kp in $(sed -n 's/.* kill scope=[^ ]* pid=\([0-9]*\).*/\1/p' "$tmp/log"); do
	[[ " ${pids[*]} " == *" $kp "* ]] || { echo "FAIL: killed pid $kp is not an eater"; fail=1; }
done
kill -0 "$outside" 2>/dev/null || { echo "FAIL: the process outside was killed"; fail=1; }
kk=$(cg_field "$CG" memory.oom_control oom_kill)
[ "$kk" = 0 ] || { echo "FAIL: the kernel killed $kk tasks"; fail=1; }
grep -c 'reap scope=.*result=released' "$tmp/log" | sed 's/^/released: /'
if [ "$fail" != 0 ]; then
	for k in "${!pids[@]}"; do kill -0 "${pids[$k]}" 2>/dev/null || echo "eater ${pids[$k]}: $(cat "$tmp/eater.$((k + 1))")"; done
	cat "$tmp/log"
	exit 1
fi
[ -n "${OG_VERBOSE:-}" ] && cat "$tmp/log"
rm -rf "$tmp"
