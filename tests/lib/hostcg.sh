# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest runners (tests/vm/run.sh, bench/machine/run.sh): the guest's memory lives
# in the qemu process, kept in a host memory cgroup with a limit.
#   hostcg_new TAG BYTES   sets $hostcg (oomguard-test-TAG-PID, v1 memory or v2), or "" with a
#                          warning when the host has neither; hostcg_cleanup (an EXIT trap)
#                          kills what is left in it and removes it.
hostcg=""
hostcg_cleanup() {
	if [ -n "$hostcg" ] && [ -d "$hostcg" ]; then
		while read -r p; do kill -9 "$p" 2>/dev/null || true; done <"$hostcg/cgroup.procs"
		sleep 0.5
		rmdir "$hostcg" 2>/dev/null || true
	fi
}
hostcg_new() {
	if [ -d /sys/fs/cgroup/memory ] && [ -w /sys/fs/cgroup/memory ]; then
		hostcg=/sys/fs/cgroup/memory/oomguard-test-$1-$$
		mkdir "$hostcg"
		echo "$2" >"$hostcg/memory.limit_in_bytes"
	elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] &&
		grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
		hostcg=/sys/fs/cgroup/oomguard-test-$1-$$
		mkdir "$hostcg"
		echo "$2" >"$hostcg/memory.max"
	else
		echo "run.sh: no host memory cgroup; qemu's -m alone bounds the guest" >&2
	fi
}
