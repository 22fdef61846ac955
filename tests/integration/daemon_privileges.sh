#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Privileges after start-up: every thread of a running oomguard holds only the capabilities the
# loop and a reload use (cap_kill, cap_sys_ptrace, cap_dac_override, cap_ipc_lock: docs/daemon.md)
# in its permitted, effective and bounding sets, none inheritable or ambient, no_new_privs set.
# With those alone it still does the job: a victim of another user (uid 65534, so the signal
# needs CAP_KILL) in a v1 group is killed and reaped, its executable read for an exe rule (of
# another user: CAP_SYS_PTRACE). Without CAP_SETPCAP the bounding set stays as given and the rest
# is dropped all the same.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=privs . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater || exit 77
command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }

# CAP_DAC_OVERRIDE 1, CAP_KILL 5, CAP_IPC_LOCK 14, CAP_SYS_PTRACE 19.
KEEP=$(((1 << 1) | (1 << 5) | (1 << 14) | (1 << 19)))
tmp=$(mktemp -d)
FAIL_LOG=$tmp/log
cleanup() {
	og_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# cap_field PID FIELD: a capability set of /proc/PID/status as a number.
cap_field() {
	echo $((16#$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status")))
}
own_prm=$(cap_field $$ CapPrm)
own_bnd=$(cap_field $$ CapBnd)
want=$((own_prm & KEEP))
want_bnd=$((own_bnd & KEEP))

# check_threads PID PRM BND: every thread's sets as expected, and no_new_privs.
check_threads() {
	local pid=$1 t n=0 v
	for t in /proc/"$pid"/task/*; do
		t=${t##*/}
		n=$((n + 1))
		for f in CapPrm CapEff; do
			v=$(cap_field "$pid/task/$t" "$f")
			[ "$v" = "$2" ] || fail "thread $t: $f $(printf %x "$v"), want $(printf %x "$2")"
		done
		v=$(cap_field "$pid/task/$t" CapBnd)
		[ "$v" = "$3" ] || fail "thread $t: CapBnd $(printf %x "$v"), want $(printf %x "$3")"
		for f in CapInh CapAmb; do
			v=$(cap_field "$pid/task/$t" "$f")
			[ "$v" = 0 ] || fail "thread $t: $f $(printf %x "$v"), want 0"
		done
		v=$(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$pid/task/$t/status")
		[ "$v" = 1 ] || fail "thread $t: NoNewPrivs $v"
	done
	# The loop, the reaper and at least one process_mrelease caller.
	[ "$n" -ge 3 ] || fail "$n threads: the reaper's are missing"
}

cg_new CG 200M --oom-kill-disable || exit 1
dir=$(cg_path "$CG" memory)
# An exe rule that matches nothing: the victim's /proc/PID/exe must be read to know that.
og_start "$tmp/log" --cgroup "$dir" --interval 100 --log-level info \
	--protect-exe /nonexistent/oomguard-test || exit 1
wait_grep 5 'capabilities kept:' "$tmp/log" "$OG_PID" || fail "no 'capabilities kept' line"
if [ $((own_prm & KEEP)) = "$KEEP" ]; then
	grep -q 'capabilities kept: cap_kill,cap_sys_ptrace,cap_dac_override,cap_ipc_lock$' \
		"$tmp/log" || fail "the kept set is not the four the loop uses"
fi
check_threads "$OG_PID" "$want" "$want_bnd"

cg_spawn "$CG" victim setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$OG_TOOLS/mem_eater" -s 8M -i 20 300M
for _ in $(seq 100); do
	kill -0 "$victim" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$victim" 2>/dev/null && fail "the victim of uid 65534 is alive after 10 s"
wait_grep 5 "reap scope=$dir pid=$victim .*result=\(released\|exited\)" "$tmp/log" "$OG_PID" ||
	fail "no reap of pid $victim"
grep -q "kill scope=$dir pid=$victim " "$tmp/log" || fail "pid $victim died, not by oomguard"
# (oom_score_adj -1000 is start-up's, refused where CAP_SYS_RESOURCE was never given.)
grep -v 'oom_score_adj' "$tmp/log" | grep -qE 'EPERM|EACCES|not permitted|Permission denied' &&
	fail "a call was refused after the drop"
check_threads "$OG_PID" "$want" "$want_bnd" # the reaper's threads after a reap too
og_stop || fail "did not stop cleanly"

# No CAP_SETPCAP: the bounding set stays as given; the rest goes.
if command -v capsh >/dev/null && [ $((own_bnd >> 8 & 1)) = 1 ]; then
	: >"$tmp/log"
	capsh --drop=cap_setpcap -- -c "exec '$OG_BIN' run --cgroup '$dir' --interval 100 \
		--log-level info" 2>"$tmp/log" &
	OG_PID=$!
	wait_grep 5 'started:' "$tmp/log" "$OG_PID" || fail "did not start without CAP_SETPCAP"
	grep -q 'capability bounding set left as given (no CAP_SETPCAP)' "$tmp/log" ||
		fail "no line on the bounding set kept"
	check_threads "$OG_PID" "$want" $((own_bnd & ~(1 << 8)))
	og_stop || fail "did not stop cleanly (no CAP_SETPCAP)"
fi
exit 0
