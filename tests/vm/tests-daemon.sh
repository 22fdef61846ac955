# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests.sh: oomguard's own tests on cgroup v2. `oomguard status` on a v2 scope; the
# daemon in a v2 flood, with memory.max (the kernel's OOM killer races it) and with memory.high
# (the kernel only throttles, so every kill must be oomguard's); a sentinel outside the scope that
# must never be touched. Each reports SKIP "daemon not built" while `oomguard run` is a stub.

# v2_flood NAME SETUP: 20 eaters of 40 MiB (800 MiB) into a cgroup that SETUP ("max" or "high")
# bounds at 512 MiB, with oomguard watching it and a 300 MiB sentinel eater outside it.
v2_flood() {
	name=$1
	why=""
	cg=$(cg_new oomguard-test-dflood) || { fail $name "cannot create a cgroup"; return; }
	out=$(cg_new oomguard-test-sentinel) || { fail $name "cannot create a cgroup"; return; }
	if [ "$2" = high ]; then
		# The kernel never kills below memory.max: it throttles past memory.high.
		echo 512M >"$cg/memory.high"
		echo 1G >"$cg/memory.max"
	else
		echo 512M >"$cg/memory.max"
	fi
	rm -rf "$READY" && mkdir -p "$READY"
	spawn "$out" vm_eater 300 "$READY"
	sentinel=$!
	wait_ready $sentinel 60 || why="$why the sentinel did not start;"
	: >"$OG_LOG"
	og_start --cgroup "$cg" || { fail $name "oomguard run exited at once: $(tail -n 3 "$OG_LOG")"; return; }
	t0=$(now_cs)
	pids=""
	i=0
	while [ $i -lt 20 ]; do
		spawn "$cg" vm_eater 40 "$READY"
		pids="$pids $!"
		i=$((i + 1))
	done
	# Settled: every eater is either dead or populated, and none died in the last 5 s.
	dead=0 last=$t0 settled=0
	while [ $(($(now_cs) - t0)) -lt 12000 ]; do
		sleep 1
		n=0 ready=0
		for p in $pids; do
			if [ -e "$READY/$p" ] && [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status"; then
				ready=$((ready + 1))
			elif [ ! -d "/proc/$p" ] || grep -q '^State:.*Z' "/proc/$p/status"; then
				n=$((n + 1))
			fi
		done
		[ $n != $dead ] && dead=$n last=$(now_cs)
		if [ $((dead + ready)) = 20 ] && [ $(($(now_cs) - last)) -ge 500 ]; then
			settled=1
			break
		fi
	done
	kernel=$(field "$cg/memory.events" oom_kill)
	ours=$((dead - kernel))
	[ -d "/proc/$og_pid" ] || why="$why oomguard died: $(tail -n 3 "$OG_LOG");"
	og_stop
	[ $og_rc = 0 ] || why="$why oomguard stopped with status $og_rc on SIGTERM;"
	[ -e "$READY/$sentinel" ] && [ -d "/proc/$sentinel" ] || why="$why the sentinel outside the scope is gone;"
	[ $settled = 1 ] || why="$why not settled in 120 s ($dead dead, $ready populated);"
	# The scope waited on its memory.events (EPOLLPRI) rather than reading its files each round.
	grep -q "(cgroup-v2), memory.events watched" "$OG_LOG" ||
		why="$why the scope's memory.events was not watched: $(grep -i 'watch' "$OG_LOG" | head -n 1);"
	[ $dead -ge 1 ] || why="$why nothing was killed;"
	[ $((ready * 40)) -le 512 ] || why="$why $ready eaters of 40 MiB alive in 512 MiB;"
	if [ "$2" = high ]; then
		[ "$kernel" = 0 ] || why="$why the kernel OOM-killed $kernel under memory.high;"
		[ $ours -ge 1 ] || why="$why oomguard killed nothing;"
	fi
	info "$name: 20x40 MiB into memory.$2 512 MiB: $dead killed (oomguard $ours, kernel $kernel)," \
		"$ready left ($((ready * 40)) MiB), last kill $(secs $((last - t0))) s after the start," \
		"memory.events: $(tr '\n' ' ' <"$cg/memory.events")"
	grep -i kill "$OG_LOG" | head -n 3 | sed "s/^/INFO $name: log: /"
	cg_del "$cg"
	kill -9 $sentinel 2>/dev/null
	cg_del "$out"
	wait 2>/dev/null
	verdict $name "$why"
}

# `oomguard status --cgroup` on a v2 scope: reads it (the limit appears in the output) and refuses
# a v2 cgroup without the memory controller and a path that does not exist.
test_daemon_status() {
	name=daemon-status-v2
	why=""
	cg=$(cg_new oomguard-test-status) || { fail $name "cannot create a cgroup"; return; }
	echo 256M >"$cg/memory.max"
	mkdir "$cg/nomem" # $cg does not enable +memory for its children: no memory.* files there
	st=$(oomguard status --cgroup "$cg" 2>&1)
	rc=$?
	[ $rc = 0 ] || why="$why status exited $rc: $(echo "$st" | tail -n 2);"
	echo "$st" | grep -qE '268435456|262144|65536|256 ?Mi?B?' || why="$why the 256 MiB limit is not in its output;"
	echo "$st" | grep -q "oomguard-test-status" || why="$why the scope's path is not in its output;"
	js=$(oomguard status --json --cgroup "$cg" 2>&1)
	rc=$?
	[ $rc = 0 ] && echo "$js" | grep -q '^ *[{[]' || why="$why --json gave status $rc or no JSON;"
	oomguard status --cgroup "$cg/nomem" >/dev/null 2>&1
	rc=$?
	[ $rc != 0 ] || why="$why a v2 cgroup without the memory controller was accepted;"
	oomguard status --cgroup "$CG/oomguard-test-none" >/dev/null 2>&1
	rc2=$?
	[ $rc2 != 0 ] || why="$why a missing cgroup was accepted;"
	info "$name: $(echo "$st" | head -n 4 | tr '\n' '|')"
	rmdir "$cg/nomem"
	cg_del "$cg"
	verdict $name "$why"
}

# The daemon on the machine scope with nothing short of memory: it runs, kills nothing, stops
# cleanly on SIGTERM.
test_daemon_idle() {
	name=daemon-machine-idle
	why=""
	rm -rf "$READY" && mkdir -p "$READY"
	cg=$(cg_new oomguard-test-idle) || { fail $name "cannot create a cgroup"; return; }
	spawn "$cg" vm_eater 300 "$READY"
	pid=$!
	wait_ready $pid 60 || why="$why the eater did not start;"
	: >"$OG_LOG"
	og_start || { fail $name "oomguard run exited at once: $(tail -n 3 "$OG_LOG")"; return; }
	sleep 5
	[ -d "/proc/$og_pid" ] || why="$why oomguard died: $(tail -n 3 "$OG_LOG");"
	og_stop
	[ $og_rc = 0 ] || why="$why oomguard stopped with status $og_rc on SIGTERM;"
	[ -d "/proc/$pid" ] || why="$why the eater was killed;"
	info "$name: $(wc -l <"$OG_LOG") log lines: $(tail -n 2 "$OG_LOG" | tr '\n' '|')"
	cg_del "$cg"
	wait $pid 2>/dev/null
	verdict $name "$why"
}

# kill_unit auto on v2 (the default): a fork storm in a unit below the scope (storm.scope: a
# spawner starting 16 MiB eaters, 10 a second, 100 in all) under the scope's memory.high of
# 512 MiB (the kernel only throttles there); beside it keep.service, one 8 MiB eater. The first
# verdicts kill eaters one at a time; once the storm has taken back more than half of what they
# freed, the next verdict kills storm.scope whole (reason=regrown), the spawner with it.
# keep.service lives; the kernel kills nothing.
test_daemon_unit_regrown() {
	name=daemon-unit-regrown-v2
	why=""
	rm -rf "$READY" && mkdir -p "$READY"
	cg=$(cg_new oomguard-test-units) || { fail $name "cannot create a cgroup"; return; }
	echo +memory >"$cg/cgroup.subtree_control"
	mkdir "$cg/storm.scope" "$cg/keep.service"
	echo 512M >"$cg/memory.high"
	echo 1G >"$cg/memory.max"
	spawn "$cg/keep.service" vm_eater 8 "$READY"
	keep=$!
	wait_ready $keep 60 || why="$why the keep.service eater did not start;"
	: >"$OG_LOG"
	og_start --cgroup "$cg" || { fail $name "oomguard run exited at once: $(tail -n 3 "$OG_LOG")"; return; }
	t0=$(now_cs)
	spawn "$cg/storm.scope" sh -c \
		'i=0; while [ $i -lt 100 ]; do vm_eater 16 '"$READY"' & i=$((i + 1)); sleep 0.1; done; wait'
	storm=$!
	gone=""
	while [ $(($(now_cs) - t0)) -lt 6000 ]; do
		sleep 0.5
		if grep -q "kill unit scope=.* reason=regrown" "$OG_LOG" &&
			[ -z "$(cat "$cg/storm.scope/cgroup.procs")" ]; then
			gone=$(($(now_cs) - t0))
			break
		fi
	done
	# Kills before the unit's: the verdicts that took one process, and the regrown verdict's
	# own victim (killed before its unit).
	kills=$(awk '/kill unit scope=/ { exit } /[a-z]: kill scope=/ { n++ } END { print n + 0 }' \
		"$OG_LOG")
	kernel=$(field "$cg/memory.events" oom_kill)
	og_stop
	[ $og_rc = 0 ] || why="$why oomguard stopped with status $og_rc on SIGTERM;"
	[ -n "$gone" ] || why="$why storm.scope not killed whole in 60 s: $(grep -i kill "$OG_LOG" | tail -n 2 | tr '\n' '|');"
	grep -q "kill unit scope=.* cgroup=/oomguard-test-units/storm.scope reason=regrown" "$OG_LOG" ||
		why="$why the unit killed was not storm.scope;"
	[ -z "$gone" ] || [ "$kills" -ge 2 ] ||
		why="$why $kills kills before the unit's: no verdict took one process first;"
	[ -d "/proc/$keep" ] || why="$why keep.service's eater was killed;"
	[ "$kernel" = 0 ] || why="$why the kernel OOM-killed $kernel under memory.high;"
	info "$name: storm.scope gone $(secs "${gone:-0}") s after the start, $kills kills before" \
		"the unit's (the regrown verdict's victim included), kernel $kernel"
	grep -E "kill (unit )?scope=" "$OG_LOG" | awk 'NR <= 3 || /kill unit/' | sed "s/^/INFO $name: log: /"
	kill -9 $storm 2>/dev/null
	cg_del "$cg/storm.scope"
	cg_del "$cg/keep.service"
	cg_del "$cg"
	wait 2>/dev/null
	verdict $name "$why"
}

if ! og_built; then
	for t in daemon-status-v2 daemon-machine-idle daemon-flood-v2-max daemon-flood-v2-high \
		daemon-unit-regrown-v2; do
		skip $t "daemon not built ($(oomguard run --help 2>&1 | head -n 1))"
	done
else
	test_daemon_status
	test_daemon_idle
	v2_flood daemon-flood-v2-max max
	v2_flood daemon-flood-v2-high high
	test_daemon_unit_regrown
fi
