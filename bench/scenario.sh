#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One bench scenario's driver. It runs outside the workload's groups for every contender and puts
# each workload task into them before exec ($SPAWN_INTO); for earlyoom and nohang, each task
# also enters their PID namespace ($SPAWN_NS: the pid of its first process), so that their /proc
# lists the workload. Starts the workload and logs timed events to RUNDIR/events.log.
# Usage: scenario.sh flood|fit|thrash|stuck RUNDIR CONTENDER
# Sizes come from the environment (KiB): see bench/run.sh.
set -u
scen=$1 dir=$2 contender=$3
tools=${BENCH_TOOLS:?}
# Every workload task keeps the default oom_score_adj: raising it would change what the
# contenders compare. The driver is outside the group: no contender sees it.
mkdir -p "$dir/files"
mkfifo "$dir/tick.fifo"
exec 9<>"$dir/tick.fifo"

# Once the group is full a fork can fail (with oom_kill_disable it fails with ENOMEM, and bash
# exits on that), so everything after the workload starts uses builtins only: no $(...), no seq.
# now_ms sets NOW (ms, the same clock as bench_monitor's CLOCK_REALTIME).
now_ms() {
	local t=${EPOCHREALTIME/./}
	NOW=$((t / 1000))
}
ev() {
	now_ms
	echo "$NOW $*" >>"$dir/events.log"
}
# Sleep without a child process (a sleep(1) would show up in the cgroup's task list).
tick() { read -r -t "$1" -u 9 _ || true; }

# wait_ready FILE PID MAX_MS: until FILE has a "ready" line; fails if PID dies or time runs out.
wait_ready() {
	local file=$1 pid=$2 deadline line
	now_ms
	deadline=$((NOW + $3))
	while now_ms && [ "$NOW" -lt "$deadline" ]; do
		if [ -s "$file" ]; then
			read -r line <"$file"
			[[ $line == ready* ]] && return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		tick 0.05
	done
	return 1
}

# shellcheck source=bench/contenders.sh
. "$(dirname "$0")/contenders.sh" # spawn

start_writers() {
	local w
	for w in 1 2; do
		spawn "$dir/writer$w.out" "$tools/writer" -b 4M "$dir/files/w$w" "${WRITER_SIZE_KIB}K"
	done
	tick "$WARMUP_S"
}

# eaters_spawn N SIZE_KIB: start N eaters that wait at a gate before taking any memory. They are
# started before the writers fill the group with page cache: an exec into a full group can fail
# (ENOMEM under oom_kill_disable), which would test the exec, not the OOM handling.
eaters_spawn() {
	local i
	EATER_N=$1
	EATER_PIDS=()
	rm -f "$dir/gate"
	for ((i = 1; i <= EATER_N; i++)); do
		spawn "$dir/eater.$i" "$tools/mem_eater" -G "$dir/gate" "${2}K"
		EATER_PIDS[i]=$SPAWNED
	done
}

# eaters_go MAX_MS SETTLE_MS: open the gate (all eaters allocate at once) and wait until every
# eater still alive is ready and no eater died for SETTLE_MS (or MAX_MS passed).
# Logs eaters_started, then settled or timeout; sets EATERS_ALIVE.
eaters_go() {
	local max_ms=$1 settle_ms=$2 n=$EATER_N i start last alive ready prev_alive line
	local -a is_ready=()
	: >"$dir/gate"
	ev eaters_started "$n"
	now_ms
	start=$NOW last=$NOW prev_alive=$n
	EATERS_ALIVE=$n
	while :; do
		tick 0.1
		alive=0 ready=0
		for ((i = 1; i <= n; i++)); do
			kill -0 "${EATER_PIDS[i]}" 2>/dev/null || continue
			alive=$((alive + 1))
			if [ "${is_ready[i]:-0}" = 0 ] && [ -s "$dir/eater.$i" ]; then
				read -r line <"$dir/eater.$i"
				[[ $line == ready* ]] && is_ready[i]=1
			fi
			[ "${is_ready[i]:-0}" = 1 ] && ready=$((ready + 1))
		done
		EATERS_ALIVE=$alive
		now_ms
		[ "$alive" -ne "$prev_alive" ] && last=$NOW prev_alive=$alive
		if [ "$ready" -eq "$alive" ] && [ $((NOW - last)) -ge "$settle_ms" ]; then
			ev settled "$alive" "$ready"
			eater_exits "$n" "${EATER_PIDS[@]:1}"
			return 0
		fi
		if [ $((NOW - start)) -ge "$max_ms" ]; then
			ev timeout "$alive" "$ready"
			eater_exits "$n" "${EATER_PIDS[@]:1}"
			return 1
		fi
	done
}

# eater_exits N PID...: log how each dead eater ended. Killed: a signal (128+N), or 0 (mem_eater
# exits 0 on SIGTERM); anything else means it never ran (an exec in a full group fails: ENOMEM).
eater_exits() {
	local n=$1 i st
	shift
	for ((i = 1; i <= n; i++)); do
		kill -0 "$1" 2>/dev/null || {
			wait "$1"
			st=$?
			ev eater_exit "$i" "$st"
		}
		shift
	done
}

scen_flood() {
	eaters_spawn "$FLOOD_N" "$FLOOD_EATER_KIB"
	start_writers
	ev flood_start
	eaters_go "$FLOOD_MAX_MS" "$FLOOD_SETTLE_MS"
}

scen_fit() {
	eaters_spawn 10 "$FIT_EATER_KIB"
	start_writers
	ev fit_start "$FIT_EATER_KIB"
	if eaters_go "$FIT_MAX_MS" "$FIT_HOLD_MS" && [ "$EATERS_ALIVE" -eq 10 ]; then
		ev fit_result ok
	else
		ev fit_result killed
	fi
}

scen_thrash() {
	local pid deadline
	spawn "$dir/thrasher.out" "$tools/thrasher" -a "${THRASH_ANON_KIB}K" -f "${THRASH_FILE_KIB}K" \
		-i 1000 "$dir/files/thrash"
	pid=$SPAWNED
	if ! wait_ready "$dir/thrasher.out" "$pid" 60000; then
		ev thrash_end never_ready
		return
	fi
	ev thrash_ready
	now_ms
	deadline=$((NOW + THRASH_MAX_MS))
	while kill -0 "$pid" 2>/dev/null && now_ms && [ "$NOW" -lt "$deadline" ]; do
		tick 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		ev thrash_end alive
	else
		ev thrash_end killed
	fi
}

scen_stuck() {
	local victim second state i
	spawn "$dir/victim.out" "$tools/mem_eater" "${STUCK_VICTIM_KIB}K"
	victim=$SPAWNED
	wait_ready "$dir/victim.out" "$victim" 30000 || { ev stuck_end victim_not_ready; return; }
	# through nsenter, the task is nsenter's child
	# (the file has no newline: read fails, yet sets victim)
	[ -n "${SPAWN_NS:-}" ] && { read -r victim _ <"/proc/$victim/task/$victim/children" || :; }
	echo "$victim" >"$FREEZER_DIR/cgroup.procs"
	echo FROZEN >"$FREEZER_DIR/freezer.state"
	for ((i = 0; i < 50; i++)); do
		read -r state <"$FREEZER_DIR/freezer.state"
		[ "$state" = FROZEN ] && break
		tick 0.1
	done
	ev victim_frozen "$victim"
	spawn "$dir/second.out" "$tools/mem_eater" "${STUCK_SECOND_KIB}K"
	second=$SPAWNED
	ev second_started "$second"
	if wait_ready "$dir/second.out" "$second" "$STUCK_MAX_MS"; then
		ev second_ready
	else
		ev stuck_end second_not_ready
	fi
	# A frozen task cannot die: thaw it so that this namespace can end.
	echo THAWED >"$FREEZER_DIR/freezer.state"
}

ev start "$scen" "$contender"
case $scen in
flood) scen_flood ;;
fit) scen_fit ;;
thrash) scen_thrash ;;
stuck) scen_stuck ;;
*) echo "scenario.sh: unknown scenario $scen" >&2; exit 2 ;;
esac
ev end
exit 0
