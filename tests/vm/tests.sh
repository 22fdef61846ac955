#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The tests that run inside the guest (cgroup v2, no swap, 2 GiB): one line per test, "PASS name",
# "FAIL name: why" or "SKIP name: why", figures on "INFO" lines, and a closing
# "N passed, N failed, N skipped". Usage: tests.sh all|LIST  (LIST: comma-separated of base,
# daemon, thrash, flood, flood-oomguard). The flood size comes from the environment: vmflood=EATERSxMIB (default 100x80).
sel=${1:-all}
CG=/sys/fs/cgroup
READY=/tmp/ready
passed=0 failed=0 skipped=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
info() { echo "INFO $*"; }
# verdict NAME WHY: PASS when WHY is empty, else FAIL with the reasons ("; "-separated).
verdict() {
	if [ -z "$2" ]; then
		pass "$1"
	else
		r=${2# }
		fail "$1" "${r%;}"
	fi
}
want() { case ",$sel," in *",all,"* | *",$1,"*) return 0 ;; esac; return 1; }

# Time since boot in centiseconds, and a centisecond count printed as seconds.
now_cs() { awk '{ printf "%d", $1 * 100 }' /proc/uptime; }
secs() { awk -v cs="$1" 'BEGIN { printf "%.1f", cs / 100 }'; }

# The field KEY of a flat-keyed file such as memory.events or /proc/vmstat.
field() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }

# The harness itself is never a victim; what it starts goes back to the default badness.
echo -1000 >/proc/self/oom_score_adj

# spawn CGROUP CMD...: start CMD in the background inside CGROUP, with oom_score_adj 0.
spawn() {
	sh -c 'echo $$ >"$0/cgroup.procs" && echo 0 >/proc/self/oom_score_adj && exec "$@"' "$@" &
}

# cg_new NAME: a fresh child cgroup of the root, removed first if a former run left it.
cg_new() {
	cg_del "$CG/$1"
	mkdir "$CG/$1" && echo "$CG/$1"
}

# cg_del PATH: kill what is left inside, wait for it to leave, remove the cgroup.
cg_del() {
	[ -d "$1" ] || return 0
	echo 1 >"$1/cgroup.kill" 2>/dev/null
	i=0
	while [ -n "$(cat "$1/cgroup.procs" 2>/dev/null)" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rmdir "$1" 2>/dev/null
}

# wait_ready PID SECONDS: 0 once the eater PID has populated its memory, 1 if it died or timed out.
wait_ready() {
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		[ -e "$READY/$1" ] && return 0
		[ -d "/proc/$1" ] || return 1
		grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_exit PID SECONDS: the exit status of PID, or SIGKILL's 137 from a watchdog after SECONDS.
wait_exit() {
	(sleep "$2" && kill -9 "$1" 2>/dev/null && echo "watchdog killed $1") &
	wd=$!
	wait "$1"
	rc=$?
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	return $rc
}

OG_LOG=/tmp/oomguard.log

# og_built: 0 when this oomguard has a daemon (`oomguard run --help` succeeds).
og_built() { oomguard run --help >/dev/null 2>&1; }

# og_start ARGS...: start `oomguard run ARGS` in the background (in the root cgroup), log to OG_LOG.
og_start() {
	# shellcheck disable=SC2046 # vmogargs (kernel command line) is comma-separated on purpose
	oomguard run $(echo "${vmogargs:-}" | tr , ' ') "$@" >>"$OG_LOG" 2>&1 &
	og_pid=$!
	sleep 1
	[ -d "/proc/$og_pid" ]
}

# og_stop: SIGTERM the daemon and collect its exit status in og_rc (137 after a forced stop).
og_stop() {
	kill -TERM "$og_pid" 2>/dev/null
	wait_exit "$og_pid" 10
	og_rc=$?
}

# The daemon's log: its first kill, the highest count of rounds without progress its debug
# lines show, and (a sed script) a line's time of day to the tenth of a second.
first_kill() { grep ' kill scope=' "$OG_LOG" | head -n 1 | cut -c1-200; }
peak_count() { sed -n 's/.* round.* loops=\([0-9]*\) .*/\1/p' "$OG_LOG" | sort -n | tail -n 1; }
TIME_OF_LINE='s/^[^T]*T\([0-9:]*\.[0-9]\).*/\1/'

# io_group NAME MEMORY_MAX RBPS: a fresh group (memory.max "" for none) whose reads from the
# disk io.max throttles to RBPS; its path in cg. Fails (and says why: FAIL or SKIP) for $name.
io_group() {
	echo "+io" >"$CG/cgroup.subtree_control" 2>/dev/null
	cg=$(cg_new "$1") || { fail $name "cannot create a cgroup"; return 1; }
	[ -z "$2" ] || echo "$2" >"$cg/memory.max"
	if ! echo "$(cat /sys/block/vda/dev) rbps=$3" >"$cg/io.max"; then
		skip $name "no io.max here"
		cg_del "$cg"
		return 1
	fi
}

# (a) The v2 memory controller is there with the files the daemon reads and writes.
test_v2_files() {
	name=v2-memory-files
	if ! grep -qw memory "$CG/cgroup.controllers"; then
		fail $name "no memory controller in $CG/cgroup.controllers"
		return
	fi
	cg=$(cg_new oomguard-test-files) || { fail $name "cannot create a cgroup"; return; }
	why=""
	for f in memory.max memory.current memory.events memory.pressure memory.oom.group memory.stat; do
		cat "$cg/$f" >/dev/null 2>&1 || why="$why $f unreadable;"
	done
	grep -q '^some avg10=' "$cg/memory.pressure" || why="$why memory.pressure has no 'some' line;"
	grep -q '^oom_kill ' "$cg/memory.events" || why="$why memory.events has no oom_kill;"
	echo 1 >"$cg/memory.oom.group" && [ "$(cat "$cg/memory.oom.group")" = 1 ] ||
		why="$why memory.oom.group not writable;"
	echo 100M >"$cg/memory.max" && [ "$(cat "$cg/memory.max")" = 104857600 ] ||
		why="$why memory.max not writable;"
	cg_del "$cg"
	[ -d "$cg" ] && why="$why cgroup not removed;"
	verdict $name "$why"
}

# (b) The kernel alone: an eater that fits lives; one over memory.max is OOM-killed inside the
# cgroup and memory.events counts it. Proves the harness sees what the daemon tests rely on.
test_kernel_oom() {
	name=kernel-oom-v2
	cg=$(cg_new oomguard-test-kernel) || { fail $name "cannot create a cgroup"; return; }
	echo 64M >"$cg/memory.max"
	why=""
	spawn "$cg" vm_eater 16 "$READY"
	pid=$!
	wait_ready $pid 60 || why="$why a 16 MiB eater under a 64 MiB limit did not get its memory;"
	[ "$(field "$cg/memory.events" oom_kill)" = 0 ] || why="$why oom_kill counted for an eater that fits;"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	t0=$(now_cs)
	spawn "$cg" vm_eater 128 "$READY"
	pid=$!
	wait_exit $pid 60
	rc=$?
	t1=$(now_cs)
	kills=$(field "$cg/memory.events" oom_kill)
	[ $rc = 137 ] || why="$why a 128 MiB eater ended with status $rc, not SIGKILL;"
	[ -e "$READY/$pid" ] && why="$why the 128 MiB eater got all its memory;"
	[ "$kills" -ge 1 ] || why="$why memory.events oom_kill stayed $kills;"
	info "$name: 128 MiB eater in a 64 MiB cgroup killed after $(secs $((t1 - t0))) s," \
		"memory.events oom_kill=$kills oom=$(field "$cg/memory.events" oom)"
	cg_del "$cg"
	verdict $name "$why"
}

# (b2) The kernel alone under memory.high with no swap: an eater past the high boundary is throttled,
# not killed, and it stays stuck: the state that a user-space killer exists for on cgroup v2.
test_kernel_high() {
	name=kernel-high-throttles-v2
	cg=$(cg_new oomguard-test-high) || { fail $name "cannot create a cgroup"; return; }
	echo 64M >"$cg/memory.high"
	why=""
	spawn "$cg" vm_eater 128 "$READY"
	pid=$!
	sleep 8
	[ -d "/proc/$pid" ] || why="$why the eater is gone;"
	[ -e "$READY/$pid" ] && why="$why the eater got all 128 MiB past a 64 MiB memory.high;"
	high=$(field "$cg/memory.events" high)
	kills=$(field "$cg/memory.events" oom_kill)
	[ "$high" -ge 1 ] || why="$why memory.events high stayed 0;"
	[ "$kills" = 0 ] || why="$why the kernel OOM-killed ($kills);"
	cur_mib=$(($(cat "$cg/memory.current") >> 20))
	info "$name: 128 MiB eater under memory.high 64 MiB after 8 s: memory.current $cur_mib MiB," \
		"memory.events high=$high oom_kill=$kills, $(grep '^some' "$cg/memory.pressure")"
	cg_del "$cg"
	wait $pid 2>/dev/null
	verdict $name "$why"
}

# (b3) The kernel alone with memory.oom.group=1: one OOM kills every task of the cgroup.
test_kernel_oom_group() {
	name=kernel-oom-group-v2
	cg=$(cg_new oomguard-test-group) || { fail $name "cannot create a cgroup"; return; }
	echo 64M >"$cg/memory.max"
	echo 1 >"$cg/memory.oom.group"
	why=""
	spawn "$cg" vm_eater 8 "$READY"
	small1=$!
	spawn "$cg" vm_eater 8 "$READY"
	small2=$!
	wait_ready $small1 60 && wait_ready $small2 60 || why="$why the small eaters did not start;"
	spawn "$cg" vm_eater 128 "$READY"
	big=$!
	wait_exit $big 60
	wait_exit $small1 10
	rc1=$?
	wait_exit $small2 10
	rc2=$?
	kills=$(field "$cg/memory.events" oom_kill)
	group=$(field "$cg/memory.events" oom_group_kill)
	[ $rc1 = 137 ] && [ $rc2 = 137 ] || why="$why the small eaters ended with $rc1 and $rc2, not SIGKILL;"
	[ "$kills" -ge 3 ] || why="$why memory.events oom_kill=$kills, not 3;"
	info "$name: memory.events oom_kill=$kills oom_group_kill=$group"
	cg_del "$cg"
	verdict $name "$why"
}

mkdir -p "$READY"
echo "tests: start at $(cut -d' ' -f1 /proc/uptime) s, selection '$sel'"
if want base; then
	test_v2_files
	test_kernel_oom
	test_kernel_high
	test_kernel_oom_group
fi
if want daemon; then
	. /tests-daemon.sh
fi
if want thrash; then
	. /tests-thrash.sh
fi
# the grid is long (about 11 minutes under TCG): only when named
case ",$sel," in *,thrash-grid,*) . /tests-thrash-grid.sh ;; esac
if want flood || want flood-oomguard; then
	. /tests-flood.sh
fi
echo "tests: end at $(cut -d' ' -f1 /proc/uptime) s"
echo "$passed passed, $failed failed, $skipped skipped"
