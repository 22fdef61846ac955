# SPDX-License-Identifier: GPL-2.0-only
# Sourced by mb-run.sh: the machine-wide scenarios. Every task runs as the user bench in a user
# unit of its own role: mb-work (the offending unit: what makes the trouble), mb-bg (bystanders:
# what else the user runs); scopes, or services (unit_new). The harness (root, in mb-run.service)
# starts each task and moves it into its unit before exec, so it sees every exit status; the
# units are the user's manager's (systemd-run --user), so a contender that acts on units
# (systemd-oomd) finds them where a desktop's apps are.
# Events (events.log, CLOCK_REALTIME ms): "spawn NAME PID ROLE", "exit NAME PID STATUS" (128 +
# signal when killed; the time is when the harness saw it), "trouble" (the pressure begins),
# "fit SIZE_MIB ok|killed", "settled", "start", "end".
# Samples: mb_sample, started by mb-run.sh (samples.log, every 200 ms).

SCRATCH=/mnt/scratch
# What the workload's anonymous pages hold: each compresses about 3 to 1 in zram (a third of
# the page random, the rest zero: 2.9 to 1 measured with lz4 and zstd), as memory programs
# hold does (2-4 to 1); a page with one byte set, as the tools write by default, compresses
# about 85 to 1 and would make the zram cells a machine with twice its memory and no pressure.
FILL=(-z 3)
declare -A NAME ROLE
# A pipe nobody writes: reading it with a time-out is a sleep without a fork.
mkfifo "${MB_DIR:-/run/mb}/tick"
exec 9<>"${MB_DIR:-/run/mb}/tick"
declare -A UNITCG UNITHOLDER

# unit_new NAME: a unit of the user's, kept up by a holder process; tasks are moved into its
# cgroup, with the oom_score_adj of the user's apps. By default a scope (NAME.scope), like the one
# a desktop starts an app in; systemd 252 stops a scope (and a service, OOMPolicy=stop) when the
# kernel OOM-kills one of its processes, which kills every task of the unit whoever made the
# first kill. mb.oompolicy=continue: a service (NAME.service) with OOMPolicy=continue instead.
# Sets UNIT to the unit's name.
unit_new() {
	local cg="" pid n=0
	if [ "$oompolicy" = continue ]; then
		UNIT=$1.service
		setpriv --reuid=1000 --regid=1000 --clear-groups env XDG_RUNTIME_DIR=/run/user/1000 \
			systemd-run -q --user --unit="$UNIT" -p OOMPolicy=continue /bin/sleep infinity ||
			fail "unit $UNIT"
		pid=$("${ubus[@]}" systemctl --user show -p MainPID --value "$UNIT")
	else
		UNIT=$1.scope
		setpriv --reuid=1000 --regid=1000 --clear-groups env XDG_RUNTIME_DIR=/run/user/1000 \
			systemd-run -q --user --scope --unit="$UNIT" /bin/sleep infinity &
		pid=$!
	fi
	HOLDERS="${HOLDERS:-} $pid"
	UNITHOLDER[$1]=$pid
	while [ -z "$cg" ] && [ $n -lt 40 ]; do
		sleep 0.25
		cg=$("${ubus[@]}" systemctl --user show -p ControlGroup --value "$UNIT")
		n=$((n + 1))
	done
	[ -n "$cg" ] || {
		fail "unit $UNIT"
		return 1
	}
	UNITCG[$1]=/sys/fs/cgroup$cg
	echo "$USER_ADJ" >"/proc/$pid/oom_score_adj"
}

# spawn ROLE UNIT NAME CMD...: start CMD as bench in UNIT; its output goes to NAME.log.
spawn() {
	local role=$1 u=$2 name=$3 cg
	shift 3
	cg=${UNITCG[$u]}
	(
		echo "$BASHPID" >"$cg/cgroup.procs" || exit 126
		# The harness's -1000 is not the user's: the task gets what the user's apps get.
		echo "$USER_ADJ" >/proc/self/oom_score_adj || exit 126
		exec setpriv --reuid=1000 --regid=1000 --clear-groups "$@"
	) >>"$out/$name.log" 2>&1 &
	NAME[$!]=$name
	ROLE[$!]=$role
	ev spawn "$name" $! "$role"
}

# reap_until SECONDS COND: each second, note the tasks that exited (bash reaps its children as
# they die and keeps their status for `wait PID`; `wait -n` loses some when many die at once),
# until COND succeeds or SECONDS pass. Return: 1 on time-out.
reap_until() {
	local end=$((EPOCHSECONDS + $1)) cond=$2 pid st
	while :; do
		read -r -t 1 -u 9 _
		for pid in "${!NAME[@]}"; do
			[ -e "/proc/$pid" ] && continue
			wait "$pid" 2>/dev/null
			st=$?
			ev exit "${NAME[$pid]}" "$pid" "$st"
			LAST_EXIT=$EPOCHSECONDS
			unset "NAME[$pid]"
		done
		$cond && return 0
		[ "$EPOCHSECONDS" -lt $end ] || return 1
	done
}
never() { return 1; }

# stop_tasks: the end; what is left is stopped (these exits are after "end": not kills).
stop_tasks() {
	local p
	for p in "${!NAME[@]}" ${HOLDERS:-}; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -f "$SCRATCH"/mb-*
}

# settled: no task exited for 10 s and every live eater has touched its memory.
settled() {
	local f n=0
	[ $((EPOCHSECONDS - LAST_EXIT)) -ge 10 ] || return 1
	for f in "${MB_DIR:-/run/mb}"/ready/*; do [ -d "/proc/${f##*/}" ] && n=$((n + 1)); done
	[ "$n" -ge "$(live_role offender)" ]
}
live_role() {
	local p n=0
	for p in "${!NAME[@]}"; do [ "${ROLE[$p]}" = "$1" ] && n=$((n + 1)); done
	echo $n
}

dirty_mib() {
	awk '/^(Dirty|Writeback):/ { s += $2 } END { print int(s / 1024) }' /proc/meminfo
}

# The cover letter's flood: 2 writers for 10 s (and until 96 MiB is dirty, at most 20 s more),
# then 100 eaters of 80 MiB (--quick: 40).
scenario_flood() {
	local n=100 i
	[ "$quick" = 1 ] && n=40
	unit_new mb-bg && unit_new mb-work || return
	for i in 1 2; do spawn bystander mb-bg writer$i writer -b 4M "$SCRATCH/mb-w$i" 400M; done
	reap_until 10 never
	i=0
	while [ "$(dirty_mib)" -lt 96 ] && [ $i -lt 40 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	ev trouble dirty_mib=$(dirty_mib)
	for i in $(seq 1 $n); do
		spawn offender mb-work eater vm_eater "${FILL[@]}" 80 /run/mb/ready
	done
	LAST_EXIT=$EPOCHSECONDS
	reap_until $([ "$quick" = 1 ] && echo 300 || echo 600) settled && ev settled
}

# A desktop thrash: a browser-like set of processes in one unit, each holding anon memory and
# rereading its own file, together over RAM, on the throttled disk. 180 s (--quick: 90).
scenario_thrash() {
	local i
	unit_new mb-work || return
	ev trouble
	for i in 1 2 3 4 5 6; do
		spawn offender mb-work tab$i thrasher "${FILL[@]}" -a 128M -f 192M "$SCRATCH/mb-t$i"
	done
	reap_until $([ "$quick" = 1 ] && echo 90 || echo 180) never
}

# A slow leak: one process growing 4 MiB a second (--quick: 16) while two apps that fit
# reread their files; until the leak is gone and 20 s more, at most 720 s (--quick: 200). The
# leak maps RAM + swap less 64 MiB at once and touches it step by step: a larger mapping is
# refused under the kernel's default overcommit (6 GiB was, in a 2 GiB guest without swap:
# the leak exited at once, 4 December).
scenario_leak() {
	local step=4M cap=720 i size
	[ "$quick" = 1 ] && step=16M cap=200
	size=$(awk '/^(MemTotal|SwapTotal):/ { s += $2 } END { print int(s / 1024) - 64 }' /proc/meminfo)
	unit_new mb-bg && unit_new mb-work || return
	for i in 1 2; do
		spawn bystander mb-bg app$i thrasher "${FILL[@]}" -a 128M -f 128M "$SCRATCH/mb-a$i"
	done
	reap_until 15 never
	ev trouble
	spawn offender mb-work leak mem_eater "${FILL[@]}" -s "$step" -i 1000 "${size}M"
	reap_until $cap leak_gone && reap_until 20 never
}
leak_gone() { [ "$(live_role offender)" = 0 ]; }

# A fork storm: 300 processes of 12 MiB (3.5 GiB), 20 a second, each holding its memory. The
# storm comes from inside its unit: it ends when the unit's holder dies (systemd stopped the
# unit, or a contender killed it whole), as a parent in the unit would die with it; else the
# harness would go on adding processes to a stopped scope's cgroup, which systemd no longer
# kills (measured: 141 of them lived after the kernel's kill had stopped the scope).
scenario_forkstorm() {
	local i
	unit_new mb-work || return
	ev trouble
	for i in $(seq 1 300); do
		if ! kill -0 "${UNITHOLDER[mb-work]}" 2>/dev/null; then
			ev storm_end "unit gone after $((i - 1)) spawns"
			break
		fi
		spawn offender mb-work small vm_eater "${FILL[@]}" 12 /run/mb/ready
		[ $((i % 20)) = 0 ] && reap_until 1 never
	done
	LAST_EXIT=$EPOCHSECONDS
	reap_until $([ "$quick" = 1 ] && echo 240 || echo 480) settled && ev settled
}

# Fit: the largest job that finishes without a kill, beside a writer churning the page cache.
# Jobs of 1024 MiB and more, 128 MiB more each time (--quick: 256), each touching its memory
# and holding it 5 s, up to RAM (and zram) + 512 MiB; the first kill ends it.
scenario_fit() {
	local size=1024 inc=128 max
	[ "$quick" = 1 ] && inc=256
	max=$(awk '/^(MemTotal|SwapTotal):/ { s += $2 } END { print int(s / 1024) + 512 }' /proc/meminfo)
	unit_new mb-bg && unit_new mb-work || return
	spawn bystander mb-bg writer writer -b 4M "$SCRATCH/mb-w1" 400M
	reap_until 10 never
	ev trouble
	while [ $size -le "$max" ]; do
		spawn offender mb-work job$size mem_eater "${FILL[@]}" -t 5 "${size}M"
		job=$!
		reap_until 600 job_done
		if [ "$JOB_ST" = 0 ]; then
			ev fit $size ok
		else
			ev fit $size "killed status=$JOB_ST"
			break
		fi
		size=$((size + inc))
	done
}
job_done() {
	[ -z "${NAME[$job]:-}" ] || return 1
	JOB_ST=$(awk -v p="$job" '$2 == "exit" && $4 == p { s = $5 } END { print s }' "$out/events.log")
}

# Idle: the probe alone for 20 s (the harness's own check, and the floor of every figure).
scenario_idle() {
	ev trouble
	reap_until 20 never
}
