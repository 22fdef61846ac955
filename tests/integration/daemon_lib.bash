# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the daemon's real-kernel tests (sourced, not run): start oomguard in the
# background with its log in a file, stop it with SIGTERM and check it exits 0.
# Usage: . tests/integration/daemon_lib.bash   (after tests/lib/cgroup.sh)

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

# og_start LOG args...: oomguard run args... in the background, stderr to LOG.
og_start() {
	OG_LOG=$1
	shift
	"$OG_BIN" run "$@" 2>"$OG_LOG" &
	OG_PID=$!
	local i
	for i in $(seq 50); do
		grep -q 'started:' "$OG_LOG" 2>/dev/null && return 0
		kill -0 "$OG_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "oomguard did not start:"
	cat "$OG_LOG"
	return 1
}

# og_stop: SIGTERM, wait (bounded); fails unless oomguard exits 0.
og_stop() {
	local rc i
	[ -n "$OG_PID" ] || return 0
	kill -TERM "$OG_PID" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$OG_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$OG_PID" 2>/dev/null; then
		echo "oomguard did not stop on SIGTERM"
		kill -KILL "$OG_PID"
		OG_PID=
		return 1
	fi
	wait "$OG_PID"
	rc=$?
	OG_PID=
	if [ "$rc" -ne 0 ]; then
		echo "oomguard exited $rc on SIGTERM"
		return 1
	fi
}

og_cleanup() {
	[ -n "$OG_PID" ] && kill -KILL "$OG_PID" 2>/dev/null
	cg_cleanup_all
}
trap og_cleanup EXIT
