#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# How PSI's io "some" divides one waiting reader's stall among busy CPUs, and what oomguard
# makes of it (docs/daemon-design.md, "The I/O stall on a busy machine"). One reader (dd with
# O_DIRECT) reads through a 1 MiB/s blkio throttle from a v2 group of the unified hierarchy
# (io.pressure and cpu.stat, no memory controller needed); CPU hogs run beside it, first in
# its group, then outside. Each line gives, over SECONDS: the group's io "some", its cpu.stat
# usage and the machine's io "some" (ms a second), and the undiluted figures oomguard takes
# (progress_io_undilute_group(), progress_io_undilute(): see src/policy/progress.h).
# Usage: bench/psi-dilution.sh [SECONDS] (default 5). Root; cgroup v1 blkio and memory, and a
# cgroup v2 mount (on this machine /sys/fs/cgroup/unified).
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-5}
[[ $secs =~ ^[1-9][0-9]{0,2}$ ]] || { echo "psi-dilution.sh: SECONDS, not '$secs'" >&2; exit 2; }
CG_TAG=psi
# shellcheck source=tests/lib/cgroup.sh
. tests/lib/cgroup.sh
cg_require blkio || exit 77
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$v2" ] || [ ! -r /proc/pressure/io ]; then
	echo "psi-dilution.sh: no cgroup v2 mount or no PSI" >&2
	exit 77
fi
U=$v2/oomguard-test-psi-$$ file=$PWD/build/psi-dilution.dat hogs="" rd=""
mkdir -p build && mkdir "$U" || exit 1
cleanup() {
	# shellcheck disable=SC2086 # lists of pids
	kill $hogs $rd 2>/dev/null
	wait 2>/dev/null
	rmdir "$U"
	cg_cleanup_all
	rm -f "$file"
}
trap cleanup EXIT
dd if=/dev/zero of="$file" bs=1M count=64 conv=fsync status=none || exit 1
cg_new R 64M --read-bps "$PWD/build" $((1 << 20)) || exit 1

# in_v2 CMD...: CMD in the v2 group (and, for the reader, the throttled v1 groups), in the
# background; its pid appended to the variable named first.
in_v2() {
	local var=$1
	shift
	(echo "$BASHPID" >"$U/cgroup.procs" && exec "$@") &
	printf -v "$var" '%s' "${!var} $!"
}
some() { awk '$1 == "some" { sub("total=", "", $5); print $5 }' "$1"; }
usage() { awk '$1 == "usage_usec" { print $2 }' "$U/cpu.stat"; }
tick_us=$((1000000 / $(getconf CLK_TCK)))
# the machine's busy (every field but idle) and iowait CPU time, in µs
busy_iowait() {
	awk -v k="$tick_us" '$1 == "cpu" {
		printf "%.0f %.0f\n", ($2 + $3 + $4 + $6 + $7 + $8 + $9) * k, $6 * k; exit }' /proc/stat
}
measure() { # LABEL
	local g0 u0 m0 b0 w0 t0 g1 u1 m1 b1 w1 t1
	sleep 2
	g0=$(some "$U/io.pressure") u0=$(usage) m0=$(some /proc/pressure/io) t0=$(date +%s%6N)
	read -r b0 w0 < <(busy_iowait)
	sleep "$secs"
	g1=$(some "$U/io.pressure") u1=$(usage) m1=$(some /proc/pressure/io) t1=$(date +%s%6N)
	read -r b1 w1 < <(busy_iowait)
	awk -v l="$1" -v g=$((g1 - g0)) -v u=$((u1 - u0)) -v m=$((m1 - m0)) -v b=$((b1 - b0)) \
		-v w=$((w1 - w0)) -v t=$((t1 - t0)) 'function ms(x) { return int(x * 1000 / t) }
		BEGIN {
			x = g < t ? g * u / (t - g) : g; if (x < g) x = g; if (x > t) x = t
			y = b > t ? m * b / t : m; if (y < w) y = w; if (y < m) y = m; if (y > t) y = t
			printf "%-34s group: io some %4d, usage %4d -> %4d;", l, ms(g), ms(u), ms(x)
			printf " machine: io some %4d, busy %4d, iowait %4d -> %4d (ms/s)\n", ms(m), ms(b), ms(w), ms(y)
		}'
}
python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$file"
(echo "$BASHPID" >"$U/cgroup.procs" && cg_enter "$R" && exec dd if="$file" of=/dev/null bs=4k iflag=direct status=none) &
rd=$!
measure "reader alone"
in_v2 hogs sh -c 'while :; do :; done'
measure "reader, 1 hog in its group"
in_v2 hogs sh -c 'while :; do :; done'
measure "reader, 2 hogs in its group"
# shellcheck disable=SC2086 # a list of pids
kill $hogs
hogs=""
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
measure "reader, 2 hogs outside its group"
