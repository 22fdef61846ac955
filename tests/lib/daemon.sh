#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon under test (sourced, bash): start oomguard in the background with its log in a
# file, stop it with a signal and check that it exits 0; the test helpers of tests/lib/test.sh.
# Usage: . tests/lib/daemon.sh   (after tests/lib/cgroup.sh when the test makes cgroups: its
# EXIT trap, og_cleanup, also removes them)
# shellcheck source=tests/lib/test.sh
. "${BASH_SOURCE[0]%/*}/test.sh"

OG_BIN=${OOMGUARD_BIN:-$PWD/build/san/oomguard}
OG_TOOLS=${OOMGUARD_TOOLS:-$PWD/build/tools}
OG_PID=
OG_LOG=

# og_require_tools NAME...: SKIP line and failure unless the workload programs are built.
og_require_tools() {
	local t
	for t in "$@"; do
		if [ ! -x "$OG_TOOLS/$t" ]; then
			echo "SKIP: workload $OG_TOOLS/$t is not built (make tools)"
			return 1
		fi
	done
	[ -x "$OG_BIN" ] || { echo "SKIP: $OG_BIN is not built"; return 1; }
}

# og_start LOG args...: oomguard run args... in the background, stderr to LOG; waits (5 s at
# most) for its start line.
og_start() {
	OG_LOG=$1
	shift
	"$OG_BIN" run "$@" 2>"$OG_LOG" &
	OG_PID=$!
	wait_grep 5 'started:' "$OG_LOG" "$OG_PID" && return 0
	echo "oomguard did not start:"
	cat "$OG_LOG"
	return 1
}

# og_stop [SIGNAL]: send SIGNAL (TERM by default), wait (10 s at most); fails unless oomguard
# exits 0.
# shellcheck disable=SC2120 # SIGNAL is optional
og_stop() {
	local sig=${1:-TERM} rc _
	[ -n "$OG_PID" ] || return 0
	kill -"$sig" "$OG_PID" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$OG_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$OG_PID" 2>/dev/null; then
		echo "oomguard did not stop on SIG$sig"
		kill -KILL "$OG_PID"
		OG_PID=
		return 1
	fi
	wait "$OG_PID"
	rc=$?
	OG_PID=
	if [ "$rc" -ne 0 ]; then
		echo "oomguard exited $rc on SIG$sig"
		return 1
	fi
}

# og_cleanup: the EXIT trap: kill a daemon still running, remove the test's cgroups if any.
og_cleanup() {
	[ -n "$OG_PID" ] && kill -KILL "$OG_PID" 2>/dev/null
	if declare -F cg_cleanup_all >/dev/null; then
		cg_cleanup_all
	fi
}
trap og_cleanup EXIT
