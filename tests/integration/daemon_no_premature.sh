#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# No premature kill: in a 512 MiB v1 cgroup a 200 MiB working set that fits, beside two writers
# that fill the page cache with dirty pages (one never syncs) and written-back clean pages
# (one fsyncs each loop). The group reclaims all the time, yet nothing thrashes: oomguard
# must not kill anything in RUN_SEC (30 s by default), and every task must still be alive.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=nokill . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater writer || exit 77
RUN_SEC=${RUN_SEC:-30}

tmp=$(mktemp -d -p "$PWD/build")
trap 'og_cleanup; rm -rf "$tmp"' EXIT
cg_new CG 512M || exit 1
dir=$(cg_path "$CG" memory)
og_start "$tmp/log" --cgroup "$dir" || exit 1
cg_spawn "$CG" eater "$OG_TOOLS/mem_eater" 200M >"$tmp/eater" 2>&1
cg_spawn "$CG" w1 "$OG_TOOLS/writer" -v "$tmp/dirty" 1G >"$tmp/w1" 2>&1
cg_spawn "$CG" w2 "$OG_TOOLS/writer" -v -f "$tmp/clean" 1G >"$tmp/w2" 2>&1
f0=$(cat "$dir/memory.failcnt")
sleep "$RUN_SEC"
fail=0
for p in "$eater" "$w1" "$w2"; do
	kill -0 "$p" 2>/dev/null || { echo "FAIL: task $p died"; fail=1; }
done
f1=$(cat "$dir/memory.failcnt")
og_stop || fail=1
echo "failcnt rose by $((f1 - f0)) in $RUN_SEC s (the group reclaimed); writer loops:" \
	"$(grep -c '^loop' "$tmp/w1") dirty, $(grep -c '^loop' "$tmp/w2") fsynced"
[ $((f1 - f0)) -gt 0 ] || { echo "FAIL: the group never hit its limit: the test tests nothing"; fail=1; }
if grep -q ' kill scope=\|would kill' "$tmp/log"; then
	echo "FAIL: oomguard killed"
	fail=1
fi
[ "$fail" = 0 ] || { cat "$tmp/log"; exit 1; }
