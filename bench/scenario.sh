#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One bench scenario, run as the first process of a fresh PID namespace inside its memory cgroup
# (bench/run.sh puts it there). Starts the contender when it lives inside the container (earlyoom,
# nohang: with lxcfs's /proc/meminfo), then the workload, and logs timed events to RUNDIR/events.log.
# Usage: scenario.sh flood|fit|thrash|stuck RUNDIR CONTENDER
# Sizes come from the environment (KiB): see bench/run.sh.
set -u
scen=$1 dir=$2 contender=$3
tools=${BENCH_TOOLS:?}
# Every task keeps the default oom_score_adj: lowering the driver's needs CAP_SYS_RESOURCE, which
# a container often lacks, and raising the workload's would change what the contenders compare.
mkdir -p "$dir/files"
mkfifo "$dir/tick.fifo"
exec 9<>"$dir/tick.fifo"

now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}
ev() { echo "$(now_ms) $*" >>"$dir/events.log"; }
# Sleep without a child process (a sleep(1) would show up in the cgroup's task list).
tick() { read -r -t "$1" -u 9 _ || true; }

# wait_ready FILE PID MAX_MS: until FILE has a "ready" line; fails if PID dies or time runs out.
wait_ready() {
	local file=$1 pid=$2 deadline=$(($(now_ms) + $3)) line
	while [ "$(now_ms)" -lt "$deadline" ]; do
		if [ -s "$file" ]; then
			read -r line <"$file"
			[[ $line == ready* ]] && return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		tick 0.05
	done
	return 1
}

start_contender() {
	case $contender in
	earlyoom | nohang)
		mount --bind /var/lib/lxcfs/proc/meminfo /proc/meminfo || { ev error lxcfs; exit 1; }
		;;
	esac
	case $contender in
	earlyoom) earlyoom -r 0 >"$dir/daemon.log" 2>&1 & ;;
	nohang) nohang --monitor --config /etc/nohang/nohang.conf >"$dir/daemon.log" 2>&1 & ;;
	*) return 0 ;;
	esac
	tick "${BENCH_DAEMON_START_S:-2}"
	ev contender_started "$contender"
}

start_writers() {
	local w
	for w in 1 2; do
		"$tools/writer" -b 4M "$dir/files/w$w" "${WRITER_SIZE_KIB}K" >"$dir/writer$w.out" 2>&1 &
	done
	tick "$WARMUP_S"
}

# eaters N SIZE_KIB MAX_MS SETTLE_MS: start N eaters at once and wait until every one still alive
# is ready and no task died for SETTLE_MS (or MAX_MS passed). Logs settled/timeout.
eaters() {
	local n=$1 size_kib=$2 max_ms=$3 settle_ms=$4 i start last alive ready prev_alive line
	local -a pids=() is_ready=()
	for i in $(seq "$n"); do
		"$tools/mem_eater" "${size_kib}K" >"$dir/eater.$i" 2>&1 &
		pids[i]=$!
		is_ready[i]=0
	done
	ev eaters_started "$n" "$size_kib"
	start=$(now_ms) last=$start prev_alive=$n
	while :; do
		tick 0.1
		alive=0 ready=0
		for i in $(seq "$n"); do
			kill -0 "${pids[i]}" 2>/dev/null || continue
			alive=$((alive + 1))
			if [ "${is_ready[i]}" = 0 ] && [ -s "$dir/eater.$i" ]; then
				read -r line <"$dir/eater.$i"
				[[ $line == ready* ]] && is_ready[i]=1
			fi
			[ "${is_ready[i]}" = 1 ] && ready=$((ready + 1))
		done
		[ "$alive" -ne "$prev_alive" ] && last=$(now_ms) prev_alive=$alive
		if [ "$ready" -eq "$alive" ] && [ $(($(now_ms) - last)) -ge "$settle_ms" ]; then
			ev settled "$alive" "$ready"
			return 0
		fi
		if [ $(($(now_ms) - start)) -ge "$max_ms" ]; then
			ev timeout "$alive" "$ready"
			return 1
		fi
	done
}

scen_flood() {
	start_writers
	ev flood_start
	eaters "$FLOOD_N" "$FLOOD_EATER_KIB" "$FLOOD_MAX_MS" "$FLOOD_SETTLE_MS"
}

scen_fit() {
	start_writers
	ev fit_start "$FIT_EATER_KIB"
	if eaters 10 "$FIT_EATER_KIB" "$FIT_MAX_MS" "$FIT_HOLD_MS" &&
		[ "$(tail -n1 "$dir/events.log" | awk '{ print $3 }')" -eq 10 ]; then
		ev fit_result ok
	else
		ev fit_result killed
	fi
}

scen_thrash() {
	local pid deadline
	"$tools/thrasher" -a "${THRASH_ANON_KIB}K" -f "${THRASH_FILE_KIB}K" -i 1000 \
		"$dir/files/thrash" >"$dir/thrasher.out" 2>&1 &
	pid=$!
	if ! wait_ready "$dir/thrasher.out" "$pid" 60000; then
		ev thrash_end never_ready
		return
	fi
	ev thrash_ready
	deadline=$(($(now_ms) + THRASH_MAX_MS))
	while kill -0 "$pid" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do
		tick 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		ev thrash_end alive
	else
		ev thrash_end killed
	fi
}

scen_stuck() {
	local victim second deadline
	"$tools/mem_eater" "${STUCK_VICTIM_KIB}K" >"$dir/victim.out" 2>&1 &
	victim=$!
	wait_ready "$dir/victim.out" "$victim" 30000 || { ev stuck_end victim_not_ready; return; }
	echo "$victim" >"$FREEZER_DIR/cgroup.procs"
	echo FROZEN >"$FREEZER_DIR/freezer.state"
	for _ in $(seq 50); do
		[ "$(cat "$FREEZER_DIR/freezer.state")" = FROZEN ] && break
		tick 0.1
	done
	ev victim_frozen "$victim"
	"$tools/mem_eater" "${STUCK_SECOND_KIB}K" >"$dir/second.out" 2>&1 &
	second=$!
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
start_contender
case $scen in
flood) scen_flood ;;
fit) scen_fit ;;
thrash) scen_thrash ;;
stuck) scen_stuck ;;
*) echo "scenario.sh: unknown scenario $scen" >&2; exit 2 ;;
esac
ev end
exit 0
