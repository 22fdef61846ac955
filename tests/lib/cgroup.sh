#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Shell library for tests and the bench: throwaway cgroup v1 groups named oomguard-test-*, a memory
# limit (at most 4 GiB) and optional oom_kill_disable, freezer and blkio throttle; commands started
# inside them from their first page; everything removed on EXIT, killing only the groups' own tasks.
#
# Usage (bash):   . tests/lib/cgroup.sh
#   cg_require [CTRL...] || exit 77             # root, the v1 memory controller (and CTRLs), else SKIP line
#   cg_new CG 128M [--oom-kill-disable] [--freezer] [--psi] [--read-bps PATH BPS] [--write-bps PATH BPS]
#       --psi adds a group in the v2 hierarchy ($CG_ROOT/unified) for its memory.pressure file
#   cg_spawn CG PIDVAR cmd args...              # background, inside CG; pid in $PIDVAR
#   cg_exec CG cmd args...                      # foreground, inside CG; returns its status
#   cg_path CG memory|freezer|blkio             # the group's directory in that hierarchy
#   cg_stat CG KEY                              # one memory.stat value (bytes or count)
#   cg_field CG FILE KEY                        # one value of a flat-keyed memory.* file
#   cg_freeze CG / cg_thaw CG / cg_destroy CG / cg_cleanup_all
# The library sets an EXIT trap that calls cg_cleanup_all; a caller that sets its own EXIT trap must
# call cg_cleanup_all from it. Names of groups are oomguard-test-TAG-PID-N (TAG from $CG_TAG).

CG_ROOT=${CG_ROOT:-/sys/fs/cgroup}
CG_MAX_LIMIT_BYTES=$((4 * 1024 * 1024 * 1024))
CG_LIB_TAG=${CG_TAG:-t} # kept under another name: "CG_TAG=x . cgroup.sh" sets CG_TAG only while sourcing
CG_CREATED=()       # every group name this shell created, for cg_cleanup_all
declare -A CG_CTRLS # name -> space-separated controllers the group exists in
CG_SEQ=0

# cg_require [CTRL...]: succeed when we are root and the v1 memory controller (and each v1
# controller CTRL: freezer, blkio) is mounted; else print why.
cg_require() {
	local ctrl
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root to create cgroups"
		return 1
	fi
	if [ ! -f "$CG_ROOT/memory/memory.limit_in_bytes" ]; then
		echo "SKIP: no cgroup v1 memory controller at $CG_ROOT/memory"
		return 1
	fi
	for ctrl in "$@"; do
		if [ ! -d "$CG_ROOT/$ctrl" ]; then
			echo "SKIP: no cgroup v1 $ctrl controller at $CG_ROOT/$ctrl"
			return 1
		fi
	done
	return 0
}

# cg_to_bytes SIZE: 64 | 64M | 2G | 512K | 1048576B -> bytes (a bare number means MiB).
cg_to_bytes() {
	local s=$1 n unit
	if [[ ! $s =~ ^([0-9]+)([KkMmGgBb]?)$ ]]; then
		echo "cgroup.sh: bad size '$s'" >&2
		return 1
	fi
	n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
	case $unit in
	B | b) echo "$n" ;;
	K | k) echo $((n * 1024)) ;;
	G | g) echo $((n * 1024 * 1024 * 1024)) ;;
	*) echo $((n * 1024 * 1024)) ;;
	esac
}

# cg_disk_of PATH: MAJ:MIN of the whole disk holding PATH (blkio throttles whole disks only).
cg_disk_of() {
	local dev sys
	dev=$(stat -c '%Hd:%Ld' "$1") || return 1
	sys=$(readlink -f "/sys/dev/block/$dev") || return 1
	[ -f "$sys/partition" ] && sys=$(dirname "$sys")
	cat "$sys/dev"
}

cg_path() {
	echo "$CG_ROOT/$2/$1"
}

# cg_new VAR LIMIT [options]: create a group, store its name in $VAR.
cg_new() {
	local var=$1 limit_bytes name ctrl d
	limit_bytes=$(cg_to_bytes "$2") || return 1
	shift 2
	if [ "$limit_bytes" -le 0 ] || [ "$limit_bytes" -gt "$CG_MAX_LIMIT_BYTES" ]; then
		echo "cgroup.sh: refusing a memory limit of $limit_bytes bytes (must be 1..4 GiB)" >&2
		return 1
	fi
	CG_SEQ=$((CG_SEQ + 1))
	name="oomguard-test-$CG_LIB_TAG-$BASHPID-$CG_SEQ"
	mkdir "$CG_ROOT/memory/$name" || return 1
	CG_CREATED+=("$name")
	CG_CTRLS[$name]="memory"
	d="$CG_ROOT/memory/$name"
	echo 0 >"$d/memory.swappiness" 2>/dev/null
	if ! echo "$limit_bytes" >"$d/memory.limit_in_bytes"; then
		echo "cgroup.sh: cannot set the limit of $name" >&2
		return 1
	fi
	while [ $# -gt 0 ]; do
		case $1 in
		--oom-kill-disable)
			echo 1 >"$d/memory.oom_control" || return 1
			shift
			;;
		--freezer | --blkio | --psi)
			ctrl=${1#--}
			[ "$ctrl" = psi ] && ctrl=unified
			if [[ " ${CG_CTRLS[$name]} " != *" $ctrl "* ]]; then
				mkdir "$CG_ROOT/$ctrl/$name" || return 1
				CG_CTRLS[$name]="${CG_CTRLS[$name]} $ctrl"
			fi
			shift
			;;
		--read-bps | --write-bps)
			local kind=${1#--} disk
			kind=${kind%-bps}
			[ $# -ge 3 ] || { echo "cgroup.sh: $1 PATH BPS" >&2; return 1; }
			disk=$(cg_disk_of "$2") || { echo "cgroup.sh: no disk for $2" >&2; return 1; }
			if [[ " ${CG_CTRLS[$name]} " != *" blkio "* ]]; then
				mkdir "$CG_ROOT/blkio/$name" || return 1
				CG_CTRLS[$name]="${CG_CTRLS[$name]} blkio"
			fi
			echo "$disk $3" >"$CG_ROOT/blkio/$name/blkio.throttle.${kind}_bps_device" || return 1
			shift 3
			;;
		*)
			echo "cgroup.sh: unknown option $1" >&2
			return 1
			;;
		esac
	done
	printf -v "$var" '%s' "$name"
}

# cg_enter CG: move the calling (sub)shell into every hierarchy of CG, or only into those named in
# $CG_ENTER_CTRLS (e.g. "memory unified" to keep a driver out of the group's freezer).
# The memory group comes last: a write to cgroup.procs allocates kernel memory, which a full group
# with oom_kill_disable refuses (ENOMEM).
cg_enter() {
	local ctrl
	for ctrl in ${CG_CTRLS[$1]/memory/} memory; do
		[ -n "${CG_ENTER_CTRLS:-}" ] && [[ " $CG_ENTER_CTRLS " != *" $ctrl "* ]] && continue
		echo "$BASHPID" >"$CG_ROOT/$ctrl/$1/cgroup.procs" || return 1
	done
}

# cg_spawn CG VAR cmd...: start cmd in the background inside CG; the shell moves in before exec,
# so the command's first page is charged to CG. Its pid goes to $VAR.
cg_spawn() {
	local name=$1 var=$2
	shift 2
	(cg_enter "$name" || exit 126; exec "$@") &
	printf -v "$var" '%s' "$!"
}

# cg_exec CG cmd...: run cmd inside CG in the foreground; returns its exit status.
cg_exec() {
	local name=$1
	shift
	(cg_enter "$name" || exit 126; exec "$@")
}

# cg_procs CG: the pids in CG's memory group, one per line.
cg_procs() {
	cat "$CG_ROOT/memory/$1/cgroup.procs" 2>/dev/null
}

# cg_field CG FILE KEY: KEY's value in a flat-keyed memory.* file (memory.stat,
# memory.oom_control), 0 when it is absent; cg_stat CG KEY: a memory.stat value;
# cg_read CG FILE: a memory.* file's first line.
cg_field() {
	awk -v k="$3" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' \
		"$CG_ROOT/memory/$1/$2"
}
cg_stat() {
	cg_field "$1" memory.stat "$2"
}
cg_read() {
	head -n1 "$CG_ROOT/memory/$1/$2"
}

cg_freeze() {
	echo FROZEN >"$CG_ROOT/freezer/$1/freezer.state"
}
cg_thaw() {
	local f="$CG_ROOT/freezer/$1/freezer.state" i
	[ -f "$f" ] || return 0
	echo THAWED >"$f"
	for i in $(seq 50); do
		[ "$(cat "$f")" = THAWED ] && return 0
		sleep 0.1
	done
	return 1
}

# cg_destroy CG: thaw, SIGKILL the group's own tasks (only those), wait until it is empty, rmdir
# it in every hierarchy. Returns non-zero if something could not be removed.
cg_destroy() {
	local name=$1 ctrl pids i rc=0
	[ -d "$CG_ROOT/memory/$name" ] || [ -d "$CG_ROOT/freezer/$name" ] || return 0
	cg_thaw "$name"
	for i in $(seq 100); do
		pids=$(cat "$CG_ROOT"/*/"$name"/cgroup.procs 2>/dev/null | sort -u)
		[ -z "$pids" ] && break
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
		# a frozen task cannot die: thaw again in case someone froze it meanwhile
		[ $((i % 10)) -eq 0 ] && cg_thaw "$name"
		sleep 0.1
	done
	for ctrl in ${CG_CTRLS[$name]:-memory freezer blkio unified}; do
		[ -d "$CG_ROOT/$ctrl/$name" ] || continue
		for i in $(seq 50); do
			rmdir "$CG_ROOT/$ctrl/$name" 2>/dev/null && break
			sleep 0.1
		done
		if [ -d "$CG_ROOT/$ctrl/$name" ]; then
			echo "cgroup.sh: could not remove $CG_ROOT/$ctrl/$name" >&2
			rc=1
		fi
	done
	return $rc
}

# cg_cleanup_all: destroy every group this shell created (the EXIT trap).
cg_cleanup_all() {
	local name rc=0
	for name in "${CG_CREATED[@]}"; do
		cg_destroy "$name" || rc=1
	done
	CG_CREATED=()
	return $rc
}

trap cg_cleanup_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
