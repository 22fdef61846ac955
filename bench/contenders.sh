#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The contenders as the bench runs them, for bench/run.sh and bench/thrash-grid.sh (sourced):
# their command lines (Debian's options), readiness, the PID namespace that shows earlyoom and
# nohang the workload group as their machine, and the spawn of a workload task into the groups
# (bench/scenario.sh, bench/thrash-cell.sh). Needs: $oomguard (the binary), $out (the run's
# directory, for nohang-1pct's config); lxcfs running (bench/lxcfs.sh) for the namespace.

# Debian's options: earlyoom's from /etc/default/earlyoom (EARLYOOM_ARGS, as its unit passes
# them), nohang's command line from its unit.
debian_earlyoom_args() {
	(
		EARLYOOM_ARGS=""
		# shellcheck disable=SC1091
		[ -r /etc/default/earlyoom ] && . /etc/default/earlyoom
		echo "$EARLYOOM_ARGS"
	)
}
NOHANG_CONF=/etc/nohang/nohang.conf

# nohang at 1 %: the packaged config with SIGTERM at 1 % available and SIGKILL at 0.5 %, the
# thresholds of `earlyoom -m 1`.
nohang_1pct_conf() {
	sed -e 's/^soft_threshold_min_mem *=.*/soft_threshold_min_mem = 1 %/' \
		-e 's/^hard_threshold_min_mem *=.*/hard_threshold_min_mem = 0.5 %/' \
		"$NOHANG_CONF" >"$out/nohang-1pct.conf"
}

# daemon_cmd CONTENDER MEMCG: the daemon's command line (one word a line); none for the kernel.
daemon_cmd() {
	local t
	case $1 in
	oomguard | oomguard-nort | oomguard-ockd)
		t=${OOMGUARD_BENCH_CMD:-'{oomguard} run --log-level info --cgroup {memcg}'}
		t=${t//\{oomguard\}/$oomguard}
		t=${t//\{memcg\}/$2}
		[ "$1" = oomguard-ockd ] && t+=" --oom-kill-disable"
		[ "$1" = oomguard-nort ] && t+=" --no-realtime"
		# shellcheck disable=SC2086 # a command line: split into words as a shell would
		printf '%s\n' $t
		;;
	earlyoom*)
		echo earlyoom
		# shellcheck disable=SC2046 # split as systemd splits $EARLYOOM_ARGS
		printf '%s\n' $(debian_earlyoom_args)
		[ "$1" = earlyoom-p ] && echo -p
		[ "$1" = earlyoom-m1 ] && printf '%s\n' -m 1
		;;
	nohang*)
		[ "$1" = nohang-rt ] && printf '%s\n' chrt --rr 1 # the unit's commented-out choice
		echo nohang
		echo --monitor
		echo --config
		[ "$1" = nohang-1pct ] && echo "$out/nohang-1pct.conf" || echo "$NOHANG_CONF"
		;;
	esac
}
# ready_re CONTENDER: the daemon's log line that says it watches.
ready_re() {
	case $1 in
	oomguard*) echo 'started: ' ;;
	earlyoom*) echo 'SIGKILL when mem' ;;
	nohang*) echo 'Monitoring has started' ;;
	esac
}
in_ns() { [[ $1 == earlyoom* || $1 == nohang* ]]; }

# wait_for FILE REGEX PID MAX_MS: until FILE has a line matching REGEX; fails when PID dies or
# time runs out.
wait_for() {
	local end=$(($(date +%s%3N) + $4))
	while [ "$(date +%s%3N)" -lt "$end" ]; do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# ns_start CG DIR: a PID namespace whose first process sleeps in CG's memory group with lxcfs's
# /proc/meminfo; sets NS_PID (its pid here) and NS_WRAP (the unshare process).
ns_start() {
	local memcg=$1 dir=$2 c
	NS_PID="" NS_WRAP=""
	# shellcheck disable=SC2016 # expanded by the namespace's shell
	unshare --pid --fork --mount --mount-proc /bin/bash -c '
		echo 0 >"$1/cgroup.procs" || exit 1
		mount --bind /var/lib/lxcfs/proc/meminfo /proc/meminfo || exit 1
		echo ready
		exec sleep infinity' ns "$memcg" >"$dir/ns.out" 2>&1 &
	NS_WRAP=$!
	wait_for "$dir/ns.out" '^ready' "$NS_WRAP" 5000 || return 1
	read -r c _ <"/proc/$NS_WRAP/task/$NS_WRAP/children" # no newline: read fails, sets c
	[ -n "$c" ] || return 1
	NS_PID=$c
	# the view: what the namespace's /proc/meminfo says
	# shellcheck disable=SC2016 # an awk program
	nsenter -t "$NS_PID" -p -m awk '$1 == "MemTotal:" || $1 == "SwapTotal:" { print $1, $2 }' \
		/proc/meminfo >"$dir/view"
}

# view_ok DIR LIMIT_KIB: the namespace saw the group as its machine.
view_ok() {
	awk -v lim="$2" '$1 == "MemTotal:" { m = $2 } $1 == "SwapTotal:" { s = $2; hs = 1 }
		END { exit !(m == lim && hs && s == 0) }' "$1/view"
}

# daemon_start CONTENDER MEMCG DCG DIR: start the daemon in the memory group DCG (inside the
# namespace for earlyoom and nohang); DPID is the process to watch. Fails unless it says it
# is ready within 10 s.
daemon_start() {
	local who=$1 memcg=$2 dcg=$3 dir=$4 cmd
	mapfile -t cmd < <(daemon_cmd "$who" "$memcg")
	DPID=""
	[ ${#cmd[@]} -eq 0 ] && return 0
	if in_ns "$who"; then
		# shellcheck disable=SC2016 # expanded by the inner shell
		PYTHONUNBUFFERED=1 nsenter -t "$NS_PID" -p -m /bin/sh -c \
			'echo 0 >"$0" || exit 126; exec "$@"' "$dcg/cgroup.procs" "${cmd[@]}" \
			>"$dir/daemon.log" 2>&1 &
	else
		(echo "$BASHPID" >"$dcg/cgroup.procs" || exit 126; exec "${cmd[@]}") \
			>"$dir/daemon.log" 2>&1 &
	fi
	DPID=$!
	echo "${cmd[*]}" >"$dir/daemon.cmd"
	wait_for "$dir/daemon.log" "$(ready_re "$who")" "$DPID" 10000
}

# spawn OUT CMD...: start CMD in the background with its output in OUT; its pid goes to SPAWNED.
# SPAWN_INTO lists the cgroup.procs files the child enters before exec, so that its first page
# is charged to the group. With SPAWN_NS, nsenter (which stays here, outside the groups, waits
# for the task and exits as it did: 128 + N when killed by signal N) starts it in that PID
# namespace, and the task enters the groups itself (0: the writer).
spawn() {
	local out=$1 f
	shift
	if [ -n "${SPAWN_NS:-}" ]; then
		# shellcheck disable=SC2016 # expanded by the inner shell
		nsenter -t "$SPAWN_NS" -p -m /bin/sh -c \
			'for f in $0; do echo 0 >"$f" || exit 126; done; exec "$@"' "$SPAWN_INTO" "$@" \
			>"$out" 2>&1 &
	else
		(
			for f in $SPAWN_INTO; do echo "$BASHPID" >"$f" || exit 126; done
			exec "$@"
		) >"$out" 2>&1 &
	fi
	# shellcheck disable=SC2034 # read by the script that sources this
	SPAWNED=$!
}
