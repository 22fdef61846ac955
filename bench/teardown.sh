# SPDX-License-Identifier: GPL-2.0-only
# Sourced by bench/run.sh: the bounded wait of a run's teardown (tests/cli/bench_teardown.sh).

# reap_bounded RUNDIR NAME PID: waits for a process this run started (already told to stop) at
# most REAP_BOUND_DS tenths of a second (default 100: 10 s), then kills it and says so in the
# run's events: a teardown never hangs the bench (one did, in wait, once in 400 runs).
reap_bounded() {
	local dir=$1 name=$2 pid=$3 i
	[ -n "$pid" ] || return 0
	for ((i = 0; i < ${REAP_BOUND_DS:-100}; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "$(date +%s%3N) teardown_kill $name $pid" >>"$dir/events.log"
		echo "teardown: $name ($pid) still there after ${REAP_BOUND_DS:-100}00 ms: killed" \
			>&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}
