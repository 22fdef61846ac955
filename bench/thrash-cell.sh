#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One cell of the thrash grid (bench/thrash-grid.sh): starts the cell's workload, watches it, and
# logs timed events to RUNDIR/events.log (ms, CLOCK_REALTIME, the clock of the thrasher's "pass"
# lines). It runs outside the cell's groups, as bench/scenario.sh does; each workload task enters
# them ($SPAWN_INTO) before exec, and for earlyoom and nohang also their PID namespace
# ($SPAWN_NS). The contender's daemon is started by the grid (bench/contenders.sh).
# Usage: thrash-cell.sh RUNDIR SECONDS
#   CELL_W1, CELL_W2, ...  the workload's commands (word-split; no shell), started in order
#   CELL_AFTER_PASS=N      start the commands after the first when CELL_W1 printed "pass N"
#                          (default: all at once)
# Events: "start", "spawn wI PID", "exit wI STATUS" (status as
# bash's wait gives it: 128 + signal when killed), "end".
set -u
dir=$1 seconds=$2

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

# shellcheck source=bench/contenders.sh
. "$(dirname "$0")/contenders.sh" # spawn

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
wait
rm -f "$dir/tick.fifo"
