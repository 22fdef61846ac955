#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Records the counters oomguard judges a v1 group by, every 100 ms, while a workload runs in a
# fresh group: the traces tests/unit/test_daemon_traces.c replays through the decision.
# Usage: bench/record-trace.sh OUT LIMIT_MIB RATE_MIB_S SECONDS -- CMD...
#   RATE_MIB_S 0: reads not throttled. CMD runs in the group; a thrasher's "pass 1" line marks
#   the onset of thrashing in the trace's header.
# OUT: "# limit_bytes=N page_size=4096 onset_ms=T|- readahead_kb=K" (K: the largest read_ahead_kb
#   of /sys/block, what the daemon reads at start-up) then per line
#   t_ms failcnt refaulted_pages read_bytes usage_bytes file_bytes under_oom dirty_bytes io_some_us
#   cpu_busy_us cpu_iowait_us
#   (dirty_bytes: dirty + writeback; io_some_us: the machine's /proc/pressure/io "some" total, -1
#   where it cannot be read; cpu_busy_us: the machine's CPU time not idle, from /proc/stat's "cpu"
#   line, iowait counted busy; cpu_iowait_us: its iowait; traces recorded before them have 7, 8,
#   9 or 10 columns)
# BUSY=N: N CPU hogs (busy loops of a shell) run beside CMD, outside its group, for the trace.
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1 limit=$2 rate=$3 secs=$4
shift 5
CG_TAG=trace
# shellcheck source=tests/lib/cgroup.sh
. tests/lib/cgroup.sh
cg_require blkio || exit 77
tmp=$(mktemp -d -p "$PWD/build")
trap 'cg_cleanup_all; rm -rf "$tmp"' EXIT
if [ "$rate" -gt 0 ]; then
	cg_new CG "${limit}M" --read-bps "$PWD/build" $((rate << 20)) || exit 1
else
	cg_new CG "${limit}M" --blkio || exit 1
fi
mem=$(cg_path "$CG" memory) blk=$(cg_path "$CG" blkio)
mkfifo "$tmp/fifo"
tick_us=$((1000000 / $(getconf CLK_TCK)))
hogs=()
for _ in $(seq "${BUSY:-0}"); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done
[ ${#hogs[@]} = 0 ] || trap 'kill "${hogs[@]}" 2>/dev/null; cg_cleanup_all; rm -rf "$tmp"' EXIT
t0=$(date +%s%3N)
cg_spawn "$CG" pid "$@" >"$tmp/cmd.out" 2>&1
# Builtins only in the loop (no process per sample): a sample takes a few ms, not the 100 ms
# of a round.
sample() {
	local k v d op n fc us uo=0 rf=0 fb=0 rd=0 db=0 io=-1 seen=0 now=${EPOCHREALTIME/./}
	local cu cn cs cw cq cx cst cpu=-1 iow=-1
	read -r fc <"$mem/memory.failcnt"
	read -r us <"$mem/memory.usage_in_bytes"
	while read -r k v; do
		case $k in
		total_workingset_refault_file | total_workingset_refault_anon) rf=$((rf + v)) ;;
		total_inactive_file | total_active_file) fb=$((fb + v)) ;;
		total_dirty | total_writeback) db=$((db + v)) ;;
		total_pgpgin) seen=1 ;;
		esac
	done <"$mem/memory.stat"
	# a read of memory.stat that came back empty (seen once under a writer's churn): no sample
	[ "$seen" = 1 ] || return 0
	while read -r k v; do [ "$k" = under_oom ] && uo=$v; done <"$mem/memory.oom_control"
	while read -r d op n; do [ "$op" = Read ] && rd=$((rd + n)); done \
		<"$blk/blkio.throttle.io_service_bytes_recursive"
	if [ -r /proc/pressure/io ]; then
		while read -r k v; do
			[ "$k" = some ] && v=${v##*total=} && io=$v
		done </proc/pressure/io
	fi
	# user nice system idle iowait irq softirq steal: every field but idle is busy
	if read -r k cu cn cs _ cw cq cx cst _ </proc/stat; then
		cpu=$(((cu + cn + cs + ${cw:-0} + ${cq:-0} + ${cx:-0} + ${cst:-0}) * tick_us))
		iow=$((${cw:-0} * tick_us))
	fi
	echo "$((now / 1000 - t0)) $fc $rf $rd $us $fb $uo $db $io $cpu $iow"
}
{
	end=$((t0 + secs * 1000))
	while kill -0 "$pid" 2>/dev/null && [ $((${EPOCHREALTIME/./} / 1000)) -lt $end ]; do
		sample
		read -r -t 0.1 <>"$tmp/fifo" || true
	done
} >"$tmp/trace"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null
onset=$(awk -v t0="$t0" '$1 == "pass" && $2 == 1 { sub("real_ms=", "", $4); print $4 - t0; exit }' \
	"$tmp/cmd.out")
{
	ra=$(cat /sys/block/*/queue/read_ahead_kb 2>/dev/null | sort -n | tail -n 1)
	echo "# limit_bytes=$((limit << 20)) page_size=4096 onset_ms=${onset:--} readahead_kb=${ra:-0}"
	echo "# $* (reads ${rate} MiB/s; 0: not throttled; ${BUSY:-0} CPU hogs beside)" | sed "s|$PWD/||g"
	cat "$tmp/trace"
} >"$out"
echo "record-trace: $(wc -l <"$tmp/trace") samples, onset ${onset:--} ms -> $out"
