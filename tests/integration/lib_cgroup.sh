#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/lib/cgroup.sh itself: refuses limits over 4 GiB, creates the groups and options asked for,
# puts a command inside before it runs, and its cleanup (also from an EXIT trap in a shell that
# fails) kills only the group's tasks, thaws frozen groups and leaves no directory behind.
set -u
cd "$(dirname "$0")/../.." || exit 1
CG_TAG=lib . tests/lib/cgroup.sh
. tests/lib/test.sh
cg_require || exit 77
tools=${OOMGUARD_TOOLS:-build/tools}

# 1. Limits: over 4 GiB and junk refused, 4 GiB accepted.
cg_new cg 5G 2>/dev/null && fail "5G limit accepted"
cg_new cg 4097M 2>/dev/null && fail "4097M limit accepted"
cg_new cg 12X 2>/dev/null && fail "12X accepted"
cg_new cg 4G || fail "4G refused"
[ "$(cg_read "$cg" memory.limit_in_bytes)" -eq $((4 << 30)) ] || fail "limit not set"
cg_destroy "$cg" || fail "destroy"
[ -d "$(cg_path "$cg" memory)" ] && fail "$cg still there"

# 2. The command is inside from the start: /proc/self/cgroup of the exec'ed program names it.
cg_new cg 64M --freezer --oom-kill-disable || fail "cg_new"
got=$(cg_exec "$cg" cat /proc/self/cgroup)
grep -q ":memory:/$cg\$" <<<"$got" || fail "not in the memory group: $got"
grep -q ":freezer:/$cg\$" <<<"$got" || fail "not in the freezer group: $got"
[ "$(cg_field "$cg" memory.oom_control oom_kill_disable)" = 1 ] || fail "oom_kill_disable not set"
cg_destroy "$cg"

# 3. A failing shell with a frozen group, a stuck OOM group and a bystander: its EXIT trap
# removes both groups, kills their tasks, and leaves the bystander (outside the groups) alive.
sleep 60 &
bystander=$!
names=$(mktemp /tmp/oomguard-test-lib.XXXXXX)
(
	CG_TAG=lib2 . tests/lib/cgroup.sh
	cg_new a 64M --freezer || exit 3
	cg_new b 32M --oom-kill-disable || exit 3
	echo "$a $b" >"$names"
	cg_spawn "$a" p1 sleep 60
	cg_spawn "$b" p2 "$tools/mem_eater" 64M # stops at the limit, waiting on a disabled OOM killer
	sleep 0.5
	cg_freeze "$a"
	wait_grep 5 '^under_oom 1' "$(cg_path "$b" memory)/memory.oom_control"
	echo "$p1 $p2" >>"$names"
	false
	exit 1
)
rc=$?
[ "$rc" -eq 1 ] || fail "the subshell exited $rc before its groups were set up"
read -r a b <"$names"
read -r p1 p2 < <(sed -n 2p "$names")
rm -f "$names"
for g in "$a" "$b"; do
	for ctrl in memory freezer blkio; do
		[ -d "$CG_ROOT/$ctrl/$g" ] && fail "$CG_ROOT/$ctrl/$g left behind"
	done
done
kill -0 "$p1" 2>/dev/null && fail "frozen task $p1 survived the cleanup"
kill -0 "$p2" 2>/dev/null && fail "stuck task $p2 survived the cleanup"
kill -0 "$bystander" 2>/dev/null || fail "the cleanup killed a task outside its groups"
kill "$bystander"
wait "$bystander" 2>/dev/null
ls -d "$CG_ROOT"/*/oomguard-test-lib-$$-* 2>/dev/null && fail "groups of this test left behind"
exit 0
