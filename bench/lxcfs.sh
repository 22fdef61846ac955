# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the benches (bench/run.sh, bench/thrash-grid.sh): lxcfs, which gives earlyoom and
# nohang a memory cgroup's view of /proc/meminfo. start_lxcfs starts it when nobody has (its log
# in $out/lxcfs.log); stop_lxcfs stops the one it started, and only that one.
lxcfs_pid=""
start_lxcfs() {
	[ -r /var/lib/lxcfs/proc/meminfo ] && return 0
	# A mount left by an lxcfs that died answers "Transport endpoint is not connected": drop it.
	if grep -q ' /var/lib/lxcfs fuse.lxcfs ' /proc/mounts; then
		umount -l /var/lib/lxcfs 2>/dev/null
	fi
	mkdir -p /var/lib/lxcfs
	lxcfs /var/lib/lxcfs >"$out/lxcfs.log" 2>&1 &
	lxcfs_pid=$!
	for _ in $(seq 50); do
		[ -r /var/lib/lxcfs/proc/meminfo ] && return 0
		sleep 0.1
	done
	echo "${0##*/}: lxcfs did not come up (see $out/lxcfs.log)" >&2
	return 1
}
stop_lxcfs() {
	[ -n "$lxcfs_pid" ] || return 0
	kill -TERM "$lxcfs_pid" 2>/dev/null
	wait "$lxcfs_pid" 2>/dev/null
	umount /var/lib/lxcfs 2>/dev/null
	lxcfs_pid=""
}
