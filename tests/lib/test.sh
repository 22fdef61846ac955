#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the shell tests share (sourced, bash): failing with a reason, and a bounded wait for a
# line in a file (a program's "ready", a daemon's log line, a cgroup file's state).
# Usage: . tests/lib/test.sh

# fail MSG...: "FAIL: MSG", then the file $FAIL_LOG names (a daemon's log) if there is one; exit 1.
fail() {
	echo "FAIL: $*"
	if [ -n "${FAIL_LOG:-}" ] && [ -f "$FAIL_LOG" ]; then
		cat "$FAIL_LOG"
	fi
	exit 1
}

# wait_grep SECONDS PATTERN FILE [PID]: wait until a line of FILE matches PATTERN (grep's basic
# regular expression), looking every 50 ms; fails after SECONDS, or as soon as PID has exited.
wait_grep() {
	local _
	for _ in $(seq $(($1 * 20))); do
		grep -q -- "$2" "$3" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && break
		sleep 0.05
	done
	grep -q -- "$2" "$3" 2>/dev/null
}
