#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Soak: one shipped oomguard, started once, watches two v1 memory cgroups named in a config file
# while this script creates one, floods it (20 x 40 MiB in 512 MiB, oom_kill_disable) or thrashes
# it (200 MiB anon + a 64 MiB file reread at 16 MB/s in 256 MiB), removes it, and starts over,
# one workload at a time, for SOAK_SECONDS. Every SOAK_SAMPLE_SECONDS it samples the daemon's RSS,
# open descriptors and threads. It prints the figures and fails (exit 1) when the daemon died or
# logged a fault, a kill fell outside the script's own tasks in its groups (or a sentinel process
# in a third, unwatched group died), a flood or thrash was not resolved, or the daemon's
# descriptors, RSS or threads grew past the bounds below. The script signals only what it
# started: the daemon, and its groups' own tasks (tests/lib/cgroup.sh's cg_destroy).
# Usage: make soak        (builds ./oomguard and the tools, then runs this; root, cgroup v1
#                          memory and blkio)
#   SOAK_SECONDS=N        how long to keep starting workloads (default 3600; the one running at
#                         the deadline is finished)
#   SOAK_DIR=DIR          where the log, samples and the thrash file go (default
#                         /var/tmp/oomguard-soak-DATE-PID, kept: a `make clean` cannot take it)
#   OOMGUARD_BIN, OOMGUARD_TOOLS   the daemon (default ./oomguard) and the workload programs
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
export OOMGUARD_BIN=${OOMGUARD_BIN:-$top/oomguard}
export OOMGUARD_TOOLS=${OOMGUARD_TOOLS:-$top/build/tools}
CG_TAG=soak . tests/lib/cgroup.sh
. tests/lib/daemon.sh

SOAK_SECONDS=${SOAK_SECONDS:-3600}
SOAK_SAMPLE_SECONDS=${SOAK_SAMPLE_SECONDS:-10}

# Bounds. The daemon allocates nothing after start-up and locks its memory (docs/daemon-design.md):
# its RSS moves only by the few pages a rarely taken path touches first. 256 KiB is 64 such pages
# over the whole run; a leak of one page per workload passes it within 64 workloads (8 minutes).
RSS_SPAN_MAX_KIB=256
# The quarters' means: a page or two of late first touches, no more.
RSS_TREND_MAX_KIB=16
# Descriptors come in two kinds. The daemon's own (stdio, epoll sets, PSI, and per watched v1
# group its files and OOM and vmpressure eventfds; a victim's pidfd while it is killed and
# reaped): with no group present (after each workload, once the daemon logged the group gone)
# their count must come back to the same number every time (one kept per workload is a leak),
# and two groups plus a victim stay within 16 of it.
FD_OWN_SPAN_MAX=16
FD_OWN_IDLE_GROWTH_MAX=0
# The listing's cache (src/daemon/tasks.h): /proc/PID/stat and oom_score_adj kept open for each
# process a listing saw, closed after the next listing of the same scope once the process is
# gone. The soak's groups hold at most 20 eaters or 1 thrasher: 2 x 21 files.
FD_CACHE_MAX=42
# The loop, the reaper and its caller threads are all started at start-up.
THREADS_SPAN_MAX=0
# A watched group's flood ends (no task parked under_oom, every survivor holding its memory)
# within seconds (daemon_flood.sh: ~1 s); a thrash is killed ~1.5 s after its first pass.
FLOOD_SETTLE_MAX_S=60
THRASH_KILL_MAX_S=60
# The daemon looks for an absent group every 50 rounds (5 s at 100 ms); a removed group's
# eventfds fire at once.
WATCH_MAX_S=20

if [[ ! $SOAK_SECONDS =~ ^[1-9][0-9]*$ ]] || [[ ! $SOAK_SAMPLE_SECONDS =~ ^[1-9][0-9]*$ ]]; then
	echo "soak: SOAK_SECONDS and SOAK_SAMPLE_SECONDS are positive numbers of seconds" >&2
	exit 2
fi
cg_require blkio || exit 77
og_require_tools mem_eater thrasher || exit 77

run=${SOAK_DIR:-/var/tmp/oomguard-soak-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$run" || exit 1
rm -f "$run"/{faults,odd,floods,thrash_ms,sampler.stop} # a SOAK_DIR used before
# The groups: fixed names (cg_new names them oomguard-test-soak-PID-SEQ; SEQ is set before each),
# so that one config file names them for the whole run.
SEQ_FLOOD=1 SEQ_THRASH=2 SEQ_OUT=3
FLOOD_DIR=$CG_ROOT/memory/oomguard-test-$CG_LIB_TAG-$$-$SEQ_FLOOD
THRASH_DIR=$CG_ROOT/memory/oomguard-test-$CG_LIB_TAG-$$-$SEQ_THRASH

SAMPLER_PID=
stop_sampler() {
	[ -n "$SAMPLER_PID" ] || return 0
	touch "$run/sampler.stop"
	wait "$SAMPLER_PID" 2>/dev/null
	SAMPLER_PID=
}
finished=0
# shellcheck disable=SC2317 # run by the EXIT trap
on_exit() {
	stop_sampler
	og_cleanup # kills a daemon still running, removes the groups
	[ "$finished" = 1 ] || echo "soak: stopped early; groups removed; what was logged is in $run"
}
trap on_exit EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }
log_size() { stat -c %s "$OG_LOG"; }
# log_since OFFSET: the daemon's log from byte OFFSET on.
log_since() { tail -c +$(($1 + 1)) "$OG_LOG"; }
fault() {
	echo "$*" >>"$run/faults"
	echo "soak: FAULT: $*"
}
odd() {
	echo "$*" >>"$run/odd"
	echo "soak: odd: $*"
}
daemon_alive() { [ -n "$OG_PID" ] && [ -d "/proc/$OG_PID" ] && kill -0 "$OG_PID" 2>/dev/null; }

# new_group SEQ VAR LIMIT [cg_new options]: cg_new with the fixed name SEQ.
new_group() {
	local seq=$1
	shift
	CG_SEQ=$((seq - 1))
	cg_new "$@"
}

# wait_line SECONDS PATTERN COUNT: until the daemon's log holds COUNT lines matching PATTERN
# (fixed string); fails after SECONDS or when the daemon is gone.
wait_line() {
	local end=$(($(now_ms) + $1 * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		[ "$(grep -cF -- "$2" "$OG_LOG")" -ge "$3" ] && return 0
		daemon_alive || return 1
		sleep 0.1
	done
	return 1
}

# group_up SEQ VAR DIR LIMIT [options]: create the group, wait until the daemon watches it.
group_up() {
	local seq=$1 var=$2 dir=$3 n
	shift 3
	n=$(grep -cF "scope=$dir is there: watching it" "$OG_LOG")
	new_group "$seq" "$var" "$@" || { fault "cannot create $dir"; return 1; }
	[ "$(cg_path "${!var}" memory)" = "$dir" ] || { fault "cg_new named ${!var}, not $dir"; return 1; }
	wait_line "$WATCH_MAX_S" "scope=$dir is there: watching it" $((n + 1)) ||
		{ fault "$dir created, not watched within $WATCH_MAX_S s"; return 1; }
}

# group_down NAME DIR: remove the group (cg_destroy kills its tasks, which are ours), wait until
# the daemon says it is gone, then note the daemon's descriptors with no group present.
group_down() {
	local n
	n=$(grep -cF "scope=$2 is gone: waiting for it" "$OG_LOG")
	cg_destroy "$1" || fault "cannot remove $2"
	wait_line "$WATCH_MAX_S" "scope=$2 is gone: waiting for it" $((n + 1)) ||
		odd "$2 removed, not seen gone within $WATCH_MAX_S s"
	if daemon_alive && [ ! -d "$FLOOD_DIR" ] && [ ! -d "$THRASH_DIR" ]; then
		echo "$cycles $(fd_counts)" >>"$run/idle_fds"
	fi
}

# fd_counts: "ALL OWN CACHE": the daemon's open descriptors, those not of the listing's cache,
# and those of the cache (/proc/PID/stat, /proc/PID/oom_score_adj).
fd_counts() {
	find "/proc/$OG_PID/fd" -mindepth 1 -printf '%l\n' 2>/dev/null |
		awk '{ n++ } /^\/proc\/[0-9]+\/(stat|oom_score_adj)$/ { c++ }
			END { printf "%d %d %d\n", n, n - c, c }'
}

# sampler: every SOAK_SAMPLE_SECONDS, "T_S RSS_KIB FDS OWN_FDS CACHE_FDS THREADS GROUPS" (GROUPS:
# how many of the two soak groups exist), until $run/sampler.stop exists; "T_S dead" once the
# daemon is gone.
sampler() {
	local t0=$1 next=$1 now st rss thr fds groups
	while [ ! -e "$run/sampler.stop" ]; do
		now=$(date +%s)
		if [ "$now" -ge "$next" ]; then
			if ! st=$(cat "/proc/$OG_PID/status" 2>/dev/null); then
				echo "$((now - t0)) dead" >>"$run/samples"
				return
			fi
			rss=$(awk '/^VmRSS:/ { print $2 }' <<<"$st")
			thr=$(awk '/^Threads:/ { print $2 }' <<<"$st")
			fds=$(fd_counts)
			groups=0
			[ -d "$FLOOD_DIR" ] && groups=$((groups + 1))
			[ -d "$THRASH_DIR" ] && groups=$((groups + 1))
			echo "$((now - t0)) $rss $fds $thr $groups" >>"$run/samples"
			next=$((next + SOAK_SAMPLE_SECONDS))
		fi
		sleep 1
	done
}

# flood: 20 eaters of 40 MiB, in steps of 4 MiB, into the 512 MiB group with oom_kill_disable
# (tests/integration/daemon_flood.sh): the kernel kills nothing there, oomguard kills until the
# rest fit. One line per flood in $run/floods: "CYCLE KILLS SETTLE_MS SETTLED ALIVE".
flood() {
	local cg off t0 t_settle i k p under=unknown alive=0 ready=0 settled=0 kills kk pids=()
	group_up "$SEQ_FLOOD" cg "$FLOOD_DIR" 512M --oom-kill-disable || return 1
	off=$(log_size)
	t0=$(now_ms)
	for i in $(seq 20); do
		cg_spawn "$cg" p "$OG_TOOLS/mem_eater" -s 4M -i 100 40M >"$run/eater.$i" 2>&1
		disown "$p" # a SIGKILLed job is no news ("Killed" lines); bash still reaps it
		pids+=("$p")
		echo "$p $FLOOD_DIR" >>"$run/pids"
	done
	while [ $(($(now_ms) - t0)) -lt $((FLOOD_SETTLE_MAX_S * 1000)) ]; do
		sleep 0.1
		under=$(cg_field "$cg" memory.oom_control under_oom)
		alive=0 ready=0
		for k in "${!pids[@]}"; do
			kill -0 "${pids[$k]}" 2>/dev/null || continue
			alive=$((alive + 1))
			grep -q '^ready' "$run/eater.$((k + 1))" && ready=$((ready + 1))
		done
		if [ "$under" = 0 ] && [ "$alive" -gt 0 ] && [ "$alive" = "$ready" ]; then
			settled=1
			break
		fi
		daemon_alive || break
	done
	t_settle=$(($(now_ms) - t0))
	sleep 0.5 # a last kill's line; a victim still exiting (kill -0 finds it) is gone by then
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
	kills=$(log_since "$off" | grep -c "^[^ ]* \?oomguard: [a-z]*: kill scope=$FLOOD_DIR ")
	kk=$(cg_field "$cg" memory.oom_control oom_kill)
	echo "$cycles $kills $t_settle $settled $alive" >>"$run/floods"
	[ "$settled" = 1 ] || fault "flood $cycles not resolved in $FLOOD_SETTLE_MAX_S s" \
		"(under_oom=$under alive=$alive ready=$ready kills=$kills)"
	[ "${kk:-0}" = 0 ] || fault "flood $cycles: the kernel killed $kk tasks under oom_kill_disable"
	[ "$settled" = 1 ] && [ $((alive + kills)) != 20 ] &&
		odd "flood $cycles: $alive alive + $kills kills != 20 eaters"
	group_down "$cg" "$FLOOD_DIR"
	return 0
}

# thrash: 200 MiB anon and a 64 MiB file reread at 16 MB/s (blkio) in 256 MiB, the kernel's OOM
# killer in place (tests/integration/daemon_thrash.sh): from the second pass on every reread
# misses; oomguard kills the thrasher. Its time from thrashing (passes=1) to death goes to
# $run/thrash_ms.
thrash() {
	local cg off thr t_start="" t_end t_dead now kk
	group_up "$SEQ_THRASH" cg "$THRASH_DIR" 256M --read-bps "$run" 16777216 || return 1
	off=$(log_size)
	cg_spawn "$cg" thr "$OG_TOOLS/thrasher" -a 200M -f 64M -i 100 "$run/thrash.file" \
		>"$run/thrasher.out" 2>&1
	disown "$thr"
	echo "$thr $THRASH_DIR" >>"$run/pids"
	t_end=$(($(now_ms) + 120000)) # the file's write and its first (cold) pass
	while kill -0 "$thr" 2>/dev/null; do
		now=$(now_ms)
		if [ -z "$t_start" ] && grep -q 'passes=1' "$run/thrasher.out"; then
			t_start=$now
			t_end=$((now + THRASH_KILL_MAX_S * 1000))
		fi
		[ "$now" -ge "$t_end" ] && break
		daemon_alive || break
		sleep 0.05
	done
	t_dead=$(now_ms)
	sleep 0.3 # the kill's line
	kk=$(cg_field "$cg" memory.oom_control oom_kill)
	[ "${kk:-0}" = 0 ] || odd "thrash $cycles: the kernel killed $kk tasks"
	if log_since "$off" | grep -q "^[^ ]* \?oomguard: [a-z]*: kill scope=$THRASH_DIR pid=$thr "; then
		if [ -n "$t_start" ]; then
			echo "$((t_dead - t_start))" >>"$run/thrash_ms"
		else
			odd "thrash $cycles: killed during the first (cold) pass"
		fi
	elif kill -0 "$thr" 2>/dev/null; then
		fault "thrash $cycles: thrasher alive $THRASH_KILL_MAX_S s after thrashing started" \
			"(started: ${t_start:-never})"
	else
		odd "thrash $cycles: the thrasher ended without an oomguard kill" \
			"($(tail -n 1 "$run/thrasher.out"))"
	fi
	group_down "$cg" "$THRASH_DIR"
	return 0
}

# stats FILE COLUMN: "min max first-quarter-mean last-quarter-mean" of a column of numbers.
stats() {
	awk -v c="$2" '$2 != "dead" { v[n++] = $c }
		END {
			if (!n) { print "- - - -"; exit }
			q = int(n / 4); if (q < 1) q = 1
			min = max = v[0]
			for (i = 0; i < n; i++) { if (v[i] < min) min = v[i]; if (v[i] > max) max = v[i] }
			for (i = 0; i < q; i++) { a += v[i]; b += v[n - 1 - i] }
			printf "%d %d %.1f %.1f\n", min, max, a / q, b / q
		}' "$1"
}

# figures: compute the run's figures into globals (kills, samples' statistics, workloads).
figures() {
	local parsed
	grep "^[^ ]* \?oomguard: [a-z]*: kill scope=" "$OG_LOG" >"$run/kills.log"
	n_kills=$(wc -l <"$run/kills.log")
	sed -n 's/.* kill scope=\([^ ]*\) pid=\([0-9]*\) .*/\1 \2/p' "$run/kills.log" >"$run/kills"
	parsed=$(wc -l <"$run/kills")
	# A kill is inside when its scope is one of the soak's groups and its pid one this script
	# started in that group; a kill line that does not parse counts as outside.
	outside=$(awk 'NR == FNR { ours[$2 " " $1] = 1; next } !(($1 " " $2) in ours)' \
		"$run/pids" "$run/kills" | tee "$run/kills_outside" | wc -l)
	outside=$((outside + n_kills - parsed))
	before=$(grep -c 'before kill scope=' "$OG_LOG")
	reaps=$(sed -n 's/.* reap scope=.* result=\([a-z]*\).*/\1/p' "$OG_LOG" | sort | uniq -c |
		awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
	read -r rmin rmax rq1 rq4 <<<"$(stats "$run/samples" 2)"
	read -r fmin fmax fq1 fq4 <<<"$(stats "$run/samples" 3)"
	read -r omin omax oq1 oq4 <<<"$(stats "$run/samples" 4)"
	read -r cmin cmax cq1 cq4 <<<"$(stats "$run/samples" 5)"
	read -r tmin tmax tq1 tq4 <<<"$(stats "$run/samples" 6)"
	read -r i_first i_last i_min i_max i_cmax <<<"$(awk 'NR == 1 { f = $3; mn = mx = $3 }
		{ l = $3; if ($3 < mn) mn = $3; if ($3 > mx) mx = $3; if ($4 > cm) cm = $4 }
		END { print f, l, mn, mx, cm + 0 }' "$run/idle_fds")"
	[ "$i_cmax" -gt "${cmax:-0}" ] 2>/dev/null && cmax=$i_cmax
	flood_line=$(awk '{ n++; k += $2; if (n == 1 || $2 < kmin) kmin = $2; if ($2 > kmax) kmax = $2
		if (n == 1 || $3 < smin) smin = $3; if ($3 > smax) smax = $3 }
		END { if (n) printf "%d floods: %d kills (%d-%d each), resolved in %.1f-%.1f s", n, k,
			kmin, kmax, smin / 1000, smax / 1000; else print "no flood" }' "$run/floods" 2>/dev/null)
	thrash_line=$(sort -n "$run/thrash_ms" 2>/dev/null | awk '{ v[n++] = $1 } END { if (n)
		printf "%d thrashes killed by oomguard, thrashing to death %.2f / %.2f / %.2f s (min / median / max)",
			n, v[0] / 1000, v[int((n - 1) / 2)] / 1000, v[n - 1] / 1000; else print "no thrash killed by oomguard" }')
	n_samples=$(grep -vc dead "$run/samples")
}

row() { printf 'soak:   %-34s %6s %6s %12s %12s  %s\n' "$@"; }

# print_figures: the summary, also in $run/summary.
print_figures() {
	echo "soak: $elapsed s ($SOAK_SECONDS asked), $cycles workloads, one at a time: $floods_done floods, $thrashes_done thrashes"
	echo "soak: daemon $OG_BIN ($bin_id), pid $daemon_pid, started once: $daemon_end"
	echo "soak: kills by oomguard: $n_kills; outside the soak's groups or of a task it did not start: $outside"
	echo "soak:   $flood_line"
	echo "soak:   $thrash_line"
	echo "soak:   reaps: ${reaps:-none}; nothing killed (victim gone or OOM resolved before the kill): $before"
	echo "soak:   sentinel outside the watched groups (pid $sentinel): $sentinel_state"
	echo "soak:   the kernel's OOM kills, whole machine, anyone's (vmstat oom_kill): $machine_oom_kills"
	row "$n_samples samples, every $SOAK_SAMPLE_SECONDS s:" min max "mean 1st 1/4" "mean 4th 1/4" bound
	row "VmRSS (KiB)" "$rmin" "$rmax" "$rq1" "$rq4" \
		"max-min <= $RSS_SPAN_MAX_KIB, 4th-1st <= $RSS_TREND_MAX_KIB"
	row "open fds, all" "$fmin" "$fmax" "$fq1" "$fq4" "(own + cache)"
	row "open fds, own" "$omin" "$omax" "$oq1" "$oq4" "max-min <= $FD_OWN_SPAN_MAX"
	row "open fds, listing cache" "$cmin" "$cmax" "$cq1" "$cq4" "max <= $FD_CACHE_MAX"
	row "threads" "$tmin" "$tmax" "$tq1" "$tq4" "max-min <= $THREADS_SPAN_MAX"
	echo "soak:   own fds with no group present, after each of $(($(wc -l <"$run/idle_fds") - 1)) workloads: first $i_first, last $i_last, min $i_min, max $i_max (bound: last-first <= $FD_OWN_IDLE_GROWTH_MAX)"
}

# checks: the bounds; "soak: FAIL: ..." for each one broken; returns 1 if any is.
checks() {
	local fail=0
	failed() {
		echo "soak: FAIL: $*"
		fail=1
	}
	[ "$daemon_ok" = 1 ] || failed "the daemon died or did not stop cleanly"
	[ "$outside" = 0 ] || failed "$outside kills outside (see $run/kills_outside)"
	[ "$sentinel_state" = alive ] || failed "the sentinel outside the groups was killed"
	grep -q 'epoll_wait\|^[^ ]* \?oomguard: error:' "$OG_LOG" && failed "fatal lines in the log:" \
		"$(grep -m 3 'epoll_wait\|^[^ ]* \?oomguard: error:' "$OG_LOG")"
	if [ "$rmin" = - ]; then
		failed "no sample"
	else
		[ $((rmax - rmin)) -le "$RSS_SPAN_MAX_KIB" ] ||
			failed "RSS span $rmin-$rmax KiB, more than $RSS_SPAN_MAX_KIB"
		awk -v a="$rq1" -v b="$rq4" -v m="$RSS_TREND_MAX_KIB" 'BEGIN { exit !(b - a <= m) }' ||
			failed "RSS grew from $rq1 to $rq4 KiB (quarter means), more than $RSS_TREND_MAX_KIB"
		[ $((omax - omin)) -le "$FD_OWN_SPAN_MAX" ] ||
			failed "own fds span $omin-$omax, more than $FD_OWN_SPAN_MAX"
		[ "$cmax" -le "$FD_CACHE_MAX" ] || failed "listing cache fds $cmax, more than $FD_CACHE_MAX"
		[ $((tmax - tmin)) -le "$THREADS_SPAN_MAX" ] || failed "threads from $tmin to $tmax"
	fi
	[ $((i_last - i_first)) -le "$FD_OWN_IDLE_GROWTH_MAX" ] ||
		failed "own fds with no group present grew from $i_first to $i_last"
	[ -s "$run/faults" ] && failed "$(wc -l <"$run/faults") workload faults (see $run/faults)"
	[ -s "$run/odd" ] && echo "soak: odd, not failing: $(wc -l <"$run/odd") (see $run/odd)"
	[ "$fail" = 0 ] && echo "soak: PASS"
	return $fail
}

# The run.
cp "$OOMGUARD_BIN" "$run/oomguard" || exit 1
OG_BIN=$run/oomguard
bin_id="sha256 $(sha256sum "$OG_BIN" | cut -c1-12), tree $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- src 2>/dev/null || echo '+src changes')"
cat >"$run/oomguard.conf" <<CONF
# bench/soak.sh: the two groups the soak creates and removes over and over
[oomguard]
cgroup = $FLOOD_DIR
cgroup = $THRASH_DIR
CONF
new_group "$SEQ_OUT" OUT 64M || exit 1
cg_spawn "$OUT" sentinel sleep infinity
disown "$sentinel"
og_start "$run/oomguard.log" --config "$run/oomguard.conf" || exit 1
daemon_pid=$OG_PID
echo "soak: $SOAK_SECONDS s in $run: daemon pid $OG_PID, groups $FLOOD_DIR (flood) and $THRASH_DIR (thrash)"
oom_kill0=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
echo "- $(fd_counts)" >"$run/idle_fds"
: >"$run/pids"
: >"$run/samples"
t0=$(date +%s)
sampler "$t0" &
SAMPLER_PID=$!
cycles=0 floods_done=0 thrashes_done=0
while [ $(($(date +%s) - t0)) -lt "$SOAK_SECONDS" ] && daemon_alive; do
	if [ $((cycles % 2)) = 0 ]; then
		flood || break
		floods_done=$((floods_done + 1))
	else
		thrash || break
		thrashes_done=$((thrashes_done + 1))
	fi
	cycles=$((cycles + 1))
	[ $((cycles % 10)) = 0 ] && echo "soak: $(($(date +%s) - t0)) s, $cycles workloads," \
		"$(grep -c '^[^ ]* \?oomguard: [a-z]*: kill scope=' "$OG_LOG") kills, last sample: $(tail -n 1 "$run/samples")"
done
elapsed=$(($(date +%s) - t0))
stop_sampler
machine_oom_kills=$(($(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat) - oom_kill0))
sentinel_state=dead
kill -0 "$sentinel" 2>/dev/null && sentinel_state=alive
daemon_ok=0
if daemon_alive; then
	if og_stop; then
		daemon_ok=1
		daemon_end="alive to the end; $(grep -o 'stopping: .*' "$run/oomguard.log" | tail -n 1), exit 0"
	else
		daemon_end="did not stop cleanly"
	fi
else
	wait "$OG_PID"
	daemon_end="DIED (exit status $?) during the run"
	OG_PID=
fi
rm -f "$run/thrash.file"
figures
print_figures | tee "$run/summary"
checks | tee -a "$run/summary"
rc=${PIPESTATUS[0]}
finished=1
echo "soak: log, samples and summary in $run"
exit "$rc"
