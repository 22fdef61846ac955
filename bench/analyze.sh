#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Turns one run's logs (events.log from scenario.sh, monitor.log from bench_monitor) into figures:
# prints "key value" lines, and writes RUNDIR/kills.tsv with the cgroup's memory.stat at each kill.
# Usage: analyze.sh flood|fit|thrash|stuck RUNDIR   (sizes from RUNDIR/env, else the environment)
set -u
scen=$1 dir=$2
# the sizes the run used, saved by run.sh beside its logs
if [ -f "$dir/env" ]; then
	while read -r k v; do export "$k=$v"; done <"$dir/env"
fi
ev_time() { awk -v e="$1" '$2 == e { print $1; exit }' "$dir/events.log"; }
ev_field() { awk -v e="$1" -v f="$2" '$2 == e { print $f; exit }' "$dir/events.log"; }

# kills T0 T1: kills of workload tasks between T0 and T1, each with the sample before it and the
# group's headroom then (free memory plus clean page cache: for reading, not a verdict).
kills() {
	awk -v t0="$1" -v t1="$2" '
	$1 == "S" { have = 1; usage = $3; limit = $4; cache = $8; rss = $9; dirty = $10; wb = $11
		file = $12 + $13 }
	$1 == "G" && have && $2 >= t0 && $2 <= t1 && $4 ~ /^(mem_eater|writer|thrasher)$/ {
		clean = file - dirty - wb; if (clean < 0) clean = 0
		printf "%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", $2 - t0, $3, $4, usage, limit,
			cache, rss, dirty, wb, file, limit - usage + clean
	}' "$dir/monitor.log"
}

# probe T0 T1: the bystander's lateness between T0 and T1 (bench_probe's log): the 99th
# percentile and the largest, in ms; "none" without a probe log.
probe() {
	local f=$dir/probe.log
	if [ ! -s "$f" ]; then
		printf 'probe_p99_ms none\nprobe_max_ms none\n'
		return
	fi
	awk -v t0="$1" -v t1="$2" '$1 == "P" && $2 >= t0 && $2 <= t1 { print $3 }' "$f" | sort -n |
		awk '{ v[NR] = $1 }
		END { if (!NR) { print "probe_p99_ms none"; print "probe_max_ms none"; exit }
			i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
			printf "probe_p99_ms %.1f\nprobe_max_ms %.1f\n", v[i] / 1000, v[NR] / 1000 }'
}

# oom_kills T0 T1: how many kills the cgroup's own OOM killer made between T0 and T1.
oom_kills() {
	awk -v t0="$1" -v t1="$2" '$1 == "S" && $2 >= t0 && $2 <= t1 { if (a == "") a = $7; b = $7 }
		END { print (b == "" ? 0 : b - a) }' "$dir/monitor.log"
}

# stall T0 T1: total memory "full" stall of the cgroup (s) and the longest stretch of samples in
# which the cgroup's tasks were fully stalled at least half of the time (s).
stall() {
	awk -v t0="$1" -v t1="$2" '
	$1 == "S" && $2 >= t0 && $2 <= t1 {
		if (pt != "") { dt = ($2 - pt) * 1000; df = $16 - pf; tot += df
			if (dt > 0 && df >= dt / 2) { run += dt; if (run > best) best = run } else run = 0 }
		pt = $2; pf = $16 }
	END { printf "stall_s %.2f\nlongest_stall_s %.2f\n", tot / 1e6, best / 1e6 }' "$dir/monitor.log"
}

printf 't_ms\tpid\tcomm\tusage_kib\tlimit_kib\tcache_kib\trss_kib\tdirty_kib\twriteback_kib\tfile_kib\theadroom_kib\n' >"$dir/kills.tsv"
case $scen in
flood)
	t0=$(ev_time flood_start)
	t1=$(ev_time settled)
	settled=1
	[ -z "$t1" ] && t1=$(ev_time timeout) settled=0
	[ -z "$t1" ] && t1=$(ev_time end)
	[ -z "$t0" ] || [ -z "$t1" ] && { echo "error no_flood_events"; exit 0; }
	alive=$(ev_field settled 3)
	[ -z "$alive" ] && alive=$(ev_field timeout 3)
	kills "$t0" "$t1" >>"$dir/kills.tsv"
	# Eaters only die by a kill, so the dead eaters are the kill count (the monitor can miss a task
	# that is started and killed within one sampling interval); kills.tsv has those it saw.
	# Eaters that never ran (exit status 1..127: exec or mmap failed) are not kills.
	failed=$(awk '$2 == "eater_exit" && $4 > 0 && $4 < 128 { n++ } END { print n + 0 }' "$dir/events.log")
	echo "failed_to_start $failed"
	# The optimum: as many eaters as fit in the limit beside FLOOD_RESERVE_KIB (the writers'
	# buffers, page tables); every kill beyond N minus that is an excess kill.
	best=$(((FLOOD_LIMIT_KIB - ${FLOOD_RESERVE_KIB:-16384}) / FLOOD_EATER_KIB))
	[ "$best" -gt "$FLOOD_N" ] && best=$FLOOD_N
	awk -F'\t' -v s="$settled" -v dead="$((FLOOD_N - ${alive:-0} - failed))" \
		-v need="$((FLOOD_N - best - failed))" -v best="$best" '
		NR > 1 { last = $1; if ($3 == "writer") w++ }
		END { k = dead + w; if (need < 0) need = 0
			printf "settled %d\nkills %d\nkills_seen %d\n", s, k, NR - 1
			printf "optimum_survivors %d\nexcess_kills %d\n", best, k - need
			printf "time_to_last_kill_s %.2f\n", last / 1000 }' "$dir/kills.tsv"
	echo "kernel_kills $(oom_kills "$t0" "$t1")"
	stall "$t0" "$t1"
	echo "survivors ${alive:-0}"
	echo "unused_mib $(((${FLOOD_LIMIT_KIB} - ${alive:-0} * FLOOD_EATER_KIB) / 1024))"
	probe "$t0" "$t1"
	analysed=1
	;;
fit)
	t0=$(ev_time fit_start)
	t1=$(ev_time end)
	echo "fit $(ev_field fit_result 3)"
	[ -n "$t0" ] && [ -n "$t1" ] && kills "$t0" "$t1" >>"$dir/kills.tsv"
	echo "kills $(($(wc -l <"$dir/kills.tsv") - 1))"
	analysed=1
	;;
thrash)
	t0=$(ev_time thrash_ready)
	t1=$(ev_time end)
	res=$(ev_field thrash_end 3)
	[ -z "$t0" ] && { echo "error thrasher_not_ready"; exit 0; }
	kills "$t0" "$t1" >>"$dir/kills.tsv"
	# %.0f: mawk prints a sum of this size as 1.79639e+12, and its %d stops at 2^31 - 1
	tk=$(awk -F'\t' -v t0="$t0" '$3 == "thrasher" { printf "%.0f\n", $1 + t0; exit }' \
		"$dir/kills.tsv")
	# The monitor samples every 50 ms and stops at the end: a kill the driver saw first (it ends
	# the run at once) leaves no sample. Then the driver's thrash_end is the kill time: an upper
	# bound, which can only lengthen the time to kill.
	if [ -z "$tk" ] && [ "$res" = killed ]; then
		tk=$(ev_time thrash_end)
		[ -n "$tk" ] && echo "kill_time_from thrash_end"
	fi
	# Thrashing starts when the first pass ends (the thrasher's "pass 1 ... real_ms=W", on the
	# events' clock): the first pass is cold reads at the disk's rate, not a refault.
	onset=$(awk '$1 == "pass" && $2 == 1 { for (i = 3; i <= NF; i++)
			if ($i ~ /^real_ms=/) { print substr($i, 9); exit } }' "$dir/thrasher.out")
	if [ -n "$onset" ]; then
		awk -v ms="$((onset - t0))" 'BEGIN { printf "cold_pass_s %.2f\n", ms / 1000 }'
	else
		echo "cold_pass_s none"
	fi
	if [ "$res" = killed ] && [ -n "$tk" ] && { [ -z "$onset" ] || [ "$tk" -lt "$onset" ]; }; then
		echo "time_to_kill_s none"
		echo "killed_before_thrashing 1" # in the cold first pass: premature
	elif [ "$res" = killed ] && [ -n "$tk" ]; then
		awk -v ms="$((tk - onset))" 'BEGIN { printf "time_to_kill_s %.2f\n", ms / 1000 }'
		echo "killed_before_thrashing 0"
	else
		echo "time_to_kill_s none"
		echo "killed_before_thrashing 0"
	fi
	echo "kernel_kills $(oom_kills "$t0" "$t1")"
	# read rate while thrashing: median of the thrasher's progress lines after the first pass
	sed -n 's/^progress .*read_mib_s=\([0-9.]*\).*passes=\([0-9]*\).*/\2 \1/p' "$dir/thrasher.out" |
		awk '$1 >= 1 { print $2 }' | sort -g |
		awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			if (NR) printf "rate_mib_s %.2f\n", m; else print "rate_mib_s none" }'
	stall "$t0" "$t1"
	probe "$t0" "$t1"
	analysed=1
	;;
stuck)
	tf=$(ev_time victim_frozen)
	tr=$(ev_time second_ready)
	t1=$(ev_time end)
	[ -z "$tf" ] && { echo "error victim_not_frozen"; exit 0; }
	# the limit is reached at the first sample after the freeze whose failcnt moved
	tl=$(awk -v tf="$tf" '$1 == "S" { if ($2 <= tf) f = $5; else if ($5 > f) { print $2; exit } }' \
		"$dir/monitor.log")
	kills "$tf" "$t1" >>"$dir/kills.tsv"
	if [ -n "$tl" ] && [ -n "$tr" ]; then
		awk -v a="$tl" -v b="$tr" 'BEGIN { d = (b - a) / 1000; printf "time_to_free_s %.2f\n", d < 0 ? 0 : d }'
	else
		echo "time_to_free_s none"
	fi
	echo "kernel_kills $(oom_kills "$tf" "$t1")"
	stall "$tf" "$t1"
	probe "$tf" "$t1"
	analysed=1
	;;
esac
# A command bash cannot expand (arithmetic on "1.79639e+12") abandons the whole case above and
# goes on here: a branch that did not reach its end is a failed analysis (run.sh counts it).
[ "${analysed:-0}" = 1 ]
