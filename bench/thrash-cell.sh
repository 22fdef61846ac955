#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One cell of the thrash grid (bench/thrash-grid.sh): starts the cell's workload, watches it, and
# logs timed events to RUNDIR/events.log (ms, CLOCK_REALTIME, the clock of the thrasher's "pass"
# lines). For earlyoom and nohang it runs as the first process of a PID namespace inside the
# group, with lxcfs's view of /proc/meminfo, as bench/scenario.sh runs them; for the others it
# runs outside and each workload task enters the group ($SPAWN_INTO) before exec.
# Usage: thrash-cell.sh RUNDIR CONTENDER SECONDS
#   CELL_W1, CELL_W2, ...  the workload's commands (word-split; no shell), started in order
#   CELL_AFTER_PASS=N      start the commands after the first when CELL_W1 printed "pass N"
#                          (default: all at once)
# Events: "start", "contender_started NAME", "spawn wI PID", "exit wI STATUS" (status as
# bash's wait gives it: 128 + signal when killed), "end".
set -u
dir=$1 contender=$2 seconds=$3

now_ms() {
	local t=${EPOCHREALTIME/./}
	NOW=$((t / 1000))
}
ev() {
	now_ms
	echo "$NOW $*" >>"$dir/events.log"
}
mkfifo "$dir/tick.fifo"
exec 9<>"$dir/tick.fifo"
tick() { read -r -t "$1" -u 9 _ || true; }

spawn() { # OUT CMD...: SPAWNED is the pid
	local out=$1 f
	shift
	if [ -n "${SPAWN_INTO:-}" ]; then
		(
			for f in $SPAWN_INTO; do echo "$BASHPID" >"$f" || exit 126; done
			exec "$@"
		) >"$out" 2>&1 &
	else
		"$@" >"$out" 2>&1 &
	fi
	SPAWNED=$!
}

contender_pid=""
case $contender in
earlyoom | nohang)
	mount --bind /var/lib/lxcfs/proc/meminfo /proc/meminfo || {
		ev error lxcfs
		exit 1
	}
	if [ "$contender" = earlyoom ]; then
		spawn "$dir/daemon.log" earlyoom -r 0
	else
		spawn "$dir/daemon.log" nohang --monitor --config /etc/nohang/nohang.conf
	fi
	contender_pid=$SPAWNED
	tick 2
	kill -0 "$SPAWNED" 2>/dev/null || {
		ev error contender_died
		exit 1
	}
	ev contender_started "$contender"
	;;
esac

declare -A pids=()
ev start
i=1
# shellcheck disable=SC2086 # the commands are word lists by design
while v=CELL_W$i && [ -n "${!v:-}" ]; do
	if [ "$i" -gt 1 ] && [ -n "${CELL_AFTER_PASS:-}" ]; then
		while ! grep -q "^pass $CELL_AFTER_PASS " "$dir/w1.out" 2>/dev/null; do
			kill -0 "${pids[w1]}" 2>/dev/null || break
			tick 0.05
		done
	fi
	spawn "$dir/w$i.out" ${!v}
	pids[w$i]=$SPAWNED
	ev spawn "w$i" "$SPAWNED"
	i=$((i + 1))
done
now_ms
deadline=$((NOW + seconds * 1000))
while [ ${#pids[@]} -gt 0 ] && now_ms && [ "$NOW" -lt "$deadline" ]; do
	for w in "${!pids[@]}"; do
		kill -0 "${pids[$w]}" 2>/dev/null && continue
		wait "${pids[$w]}"
		ev exit "$w" $?
		unset "pids[$w]"
	done
	tick 0.02
done
ev end
for w in "${!pids[@]}"; do
	kill -TERM "${pids[$w]}" 2>/dev/null
done
[ -n "${contender_pid:-}" ] && kill -TERM "$contender_pid" 2>/dev/null
wait
rm -f "$dir/tick.fifo"
