#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The thrash grid: thrashing caught on any disk and any workload, and nothing else caught. Each
# cell runs in a fresh v1 memory group (reads throttled through blkio), once per contender, and
# prints one line; then the report goes to docs/bench-thrash.md (plots in docs/bench/).
#   caught cells: a thrasher holds anon memory and rereads a file that exceeds the room left
#     for it in the group by OVER %, read() or mmap, at RATE MiB/s (0: unthrottled); thrashing
#     starts when its first pass ends (its "pass 1" line): a kill must come within 2 s of that,
#     and none before it (the first pass is a cold read: I/O, not thrashing);
#   not-caught cells (zero kills): a stream of a fresh file ten times the group beside anon
#     of ANON % of it (read(), or mmap in the tightest room); a rereading working set that
#     fits; one that fits with 5 % to spare while a writer churns the page cache; a build
#     (short-lived processes allocating and exiting).
# Usage: bench/thrash-grid.sh [--profile full|quick|check] [--contenders a,b] [--out DIR]
#                             [--report FILE] [--read-ahead KB] [--busy N]
#   full   every cell for oomguard; a subset of cells for the others (the default)
#   quick  a few cells of each kind, for every contender
#   check  the `make check` subset: a slow-disk cell, a fast one, a stream; oomguard only; exits
#          1 when a cell fails
#   slower disks slower than the grid's slowest (1 and 2 MiB/s: SD cards, throttled volumes),
#          outside the space the rules were measured on: thrash cells 10-200 % over beside 50 %
#          anon, read() and mmap, and the streams beside 50 and 90 % anon
#   --rejudge DIR  judge the cells of a finished run in DIR again and rewrite its report
#   --resume       with --out DIR of a run that stopped: run only the cells it has no line for
#   --only REGEX   only the cells whose line ("KIND RATE OVER ANON MODE", e.g. "churn 16 0 90
#                  read") matches the extended regular expression
#   --read-ahead KB  the files' disk reads ahead KB (its read_ahead_kb) for the run, restored
#                  after it (default: as the disk is set; the kernel's default is 128)
#   --busy N       N CPU hogs (busy loops, normal priority) run beside every cell, in a group
#                  of their own: a busy host, where PSI divides a waiting task's stall among
#                  the busy CPUs (default 0: an idle host)
#   --report FILE  the report (default docs/bench-thrash.md for the full profile; with --only
#                  or another profile, DIR/report.md)
#   DIR and FILE are taken from the directory the script is called from.
set -u
caller=$PWD # --out, --report and --rejudge name paths from the caller's directory
cd "$(dirname "$0")/.." || exit 1
top=$PWD
from_caller() { case $1 in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }
profile=full contenders=oomguard,kernel,earlyoom,nohang out="" report=""
rejudge_dir="" resume=0 only="" read_ahead="" busy=0
while [ $# -gt 0 ]; do
	case $1 in
	--profile) profile=$2; shift ;;
	--contenders) contenders=$2; shift ;;
	--out) out=$(from_caller "$2"); shift ;;
	--report) report=$(from_caller "$2"); shift ;;
	--rejudge) rejudge_dir=$(from_caller "$2"); shift ;;
	--resume) resume=1 ;;
	--only) only=$2; shift ;;
	--read-ahead) read_ahead=$2; shift ;;
	--busy) busy=$2; shift ;;
	-h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "thrash-grid.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
case $profile in full | quick | check | slower) ;; *) echo "thrash-grid.sh: bad --profile $profile" >&2; exit 2 ;; esac
[ "$profile" = check ] && contenders=oomguard
[ -z "$read_ahead" ] || [[ $read_ahead =~ ^[1-9][0-9]{0,5}$ ]] ||
	{ echo "thrash-grid.sh: --read-ahead wants KiB (a positive number), not '$read_ahead'" >&2; exit 2; }
[[ $busy =~ ^[0-9]{1,2}$ ]] ||
	{ echo "thrash-grid.sh: --busy wants a number of CPU hogs (0-99), not '$busy'" >&2; exit 2; }

CG_TAG=grid
# shellcheck source=tests/lib/cgroup.sh
. tests/lib/cgroup.sh
cg_require blkio || exit 77
[ "$profile" = check ] || scripts/deps.sh bench || exit 1
tools=$top/build/tools oomguard=${OOMGUARD_BIN:-$top/oomguard}
for b in "$tools/thrasher" "$tools/mem_eater" "$tools/writer" "$oomguard"; do
	[ -x "$b" ] || { echo "thrash-grid.sh: $b is missing (make bench builds it)" >&2; exit 1; }
done
[ -n "$rejudge_dir" ] && out=$rejudge_dir
[ -z "$out" ] && out=$top/build/bench/thrash-$(date -u +%Y%m%dT%H%M%SZ)-$profile
mkdir -p "$out/files"
# Absolute: earlyoom's and nohang's cells start the workload from another directory (their PID
# namespace's), where a relative path names no file and the cell ran nothing.
out=$(cd "$out" && pwd) || exit 1
# A run of some cells (--only), or of a profile other than the full grid, is not the grid
# docs/bench-thrash.md reports: its report stays beside its results unless asked (a slower
# profile's run once overwrote the full grid's report there)
if [ -z "$report" ]; then
	report=docs/bench-thrash.md
	[ -z "$only" ] && [ "$profile" = full ] || report=$out/report.md
fi
results=$out/results.tsv
if [ -z "$rejudge_dir" ] && ! { [ "$resume" = 1 ] && [ -s "$results" ]; }; then
	printf '%s\t' kind rate over anon mode contender limit_mib file_mib anon_mib onset_ms \
		kill_ms outcome >"$results"
	printf 'died_ms\n' >>"$results"
fi
MIB=$((1 << 20))
OVERHEAD_MIB=0   # none assumed: the group's own share (page tables, buffers) only adds to OVER
COLD_S=12        # a cold pass takes about this long at a throttled rate
GRACE_MS=2000    # a thrash must be killed within this of its start

# The kernel's view: fresh files only (a file read before keeps shadow entries in its page
# cache, and a read of those counts as a refault: docs/daemon-design.md says what that means).
# A page left cached there is charged to the grid's own group, not the cell's: its reads cost
# the cell nothing, and a file can seem to fit in less room than it needs (seen once: a "fits"
# cell read its 48 MiB first pass in 10 s on a 4 MiB/s disk). fincore checks that none is left.
make_file() { # PATH MIB: written outside any limit, synced, dropped from the page cache
	local res
	rm -f "$1"
	dd if=/dev/zero of="$1" bs=1M count="$2" conv=fsync status=none || return 1
	for _ in 1 2 3; do
		python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$1"
		res=$(fincore --bytes --noheadings --output RES "$1" 2>/dev/null | tr -d ' ')
		[ "${res:-0}" = 0 ] && return 0
		sync
	done
	echo "thrash-grid: $1: $res bytes stayed in the page cache" >&2
	return 1
}

# shellcheck source=bench/lxcfs.sh
. bench/lxcfs.sh
# shellcheck source=bench/contenders.sh
. bench/contenders.sh
DAEMON_LIMIT=256M # each daemon's own memory group, as in bench/run.sh
DPID="" # the daemon of the running cell: stopped with the grid
ra_file=/sys/dev/block/$(cg_disk_of "$out")/queue/read_ahead_kb
ra_was=$(cat "$ra_file") || exit 1
trap '[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null; cg_cleanup_all; stop_lxcfs; rm -rf "$out/files"
	[ "$(cat "$ra_file")" = "$ra_was" ] || echo "$ra_was" >"$ra_file"' EXIT
if [ -n "$read_ahead" ] && [ -z "$rejudge_dir" ]; then
	echo "$read_ahead" >"$ra_file" || { echo "thrash-grid.sh: cannot set $ra_file" >&2; exit 1; }
fi

# sizes RATE OVER ANON: LIMIT FILE ANON in MiB for a thrash cell. The file exceeds the room left
# beside anon (limit - anon - overhead) by OVER %; anon:file is ANON:(100 - ANON); the file is
# what a cold pass reads in COLD_S at RATE (unthrottled: a 512 MiB group).
sizes() {
	awk -v r="$1" -v o="$2" -v a="$3" -v oh=$OVERHEAD_MIB -v c=$COLD_S 'BEGIN {
		k = a / (100 - a); f1 = 1 + o / 100
		if (r > 0) { file = r * c; lim = oh + file * (1 + f1 * k) / f1 }
		else lim = 512
		if (lim < 48) lim = 48
		if (lim > 1024) lim = 1024
		file = f1 * (lim - oh) / (1 + f1 * k)
		printf "%d %d %d\n", lim, file, file * k }'
}

# run_cell KIND RATE OVER ANON MODE CONTENDER: one line into results.tsv.
run_cell() {
	local kind=$1 rate=$2 over=$3 anon=$4 mode=$5 who=$6 lim file anonm secs dir cg memcg
	local opts=() into c m="" dcg fail
	dir=$out/$kind-r$rate-o$over-a$anon-$mode/$who
	rm -rf "$dir" # a cell run again (--resume) starts from nothing
	mkdir -p "$dir"
	[ "$mode" = mmap ] && m=-m
	unset CELL_W1 CELL_W2 CELL_AFTER_PASS
	case $kind in
	thrash)
		read -r lim file anonm < <(sizes "$rate" "$over" "$anon")
		make_file "$out/files/f" "$file" || return 1
		export CELL_W1="$tools/thrasher $m -k -a ${anonm}M -i 1000 $out/files/f"
		secs=$((COLD_S * 3 + 20))
		;;
	fits) # the reread file fits: 80 % of the room beside anon
		lim=256 anonm=$((256 * anon / 100)) file=$(((256 - anonm - OVERHEAD_MIB) * 8 / 10))
		make_file "$out/files/f" "$file" || return 1
		export CELL_W1="$tools/thrasher $m -k -a ${anonm}M -i 1000 $out/files/f"
		secs=40
		;;
	churn) # anon + file = 95 % of the group; a writer churns the cache from the third pass on
		lim=256 anonm=$((243 * anon / 100)) file=$((243 - 243 * anon / 100 - OVERHEAD_MIB))
		make_file "$out/files/f" "$file" || return 1
		export CELL_W1="$tools/thrasher $m -k -a ${anonm}M -i 1000 $out/files/f"
		export CELL_W2="$tools/writer $out/files/w 512M" CELL_AFTER_PASS=2
		secs=40
		;;
	stream) # a fresh file of ten times the group, read once beside anon of ANON % of the group
		lim=128 anonm=$((128 * anon / 100)) file=1280
		make_file "$out/files/f" "$file" || return 1
		export CELL_W1="$tools/mem_eater ${anonm}M"
		# by read(): dd; by mmap: a thrasher's single pass, a byte of each page
		if [ "$mode" = mmap ]; then
			export CELL_W2="$tools/thrasher -m -k -p 1 -i 1000 $out/files/f"
		else
			export CELL_W2="dd if=$out/files/f of=/dev/null bs=1M"
		fi
		secs=30
		;;
	build) # 4 at a time, 200 processes of 24-56 MiB that touch their memory and exit
		lim=256 anonm=0 file=0
		cat >"$out/files/build.sh" <<-EOF
			for i in \$(seq 50); do
				for s in 24 40 48 56; do $tools/mem_eater -x \$s >/dev/null & done
				wait
			done
		EOF
		export CELL_W1="bash $out/files/build.sh"
		secs=40
		;;
	esac
	opts=(--psi)
	if [ "$rate" -gt 0 ]; then
		opts+=(--read-bps "$out/files" $((rate * MIB)))
	else
		opts+=(--blkio)
	fi
	cg_new cg "${lim}M" "${opts[@]}" || return 1
	cg_new dcg "$DAEMON_LIMIT" || { cg_destroy "$cg"; return 1; }
	memcg=$(cg_path "$cg" memory)
	NS_PID="" NS_WRAP="" DPID="" fail=""
	case $who in
	oomguard)
		# debug: every round's judgement, each line stamped (ms, CLOCK_REALTIME) on arrival
		(
			echo "$BASHPID" >"$(cg_path "$dcg" memory)/cgroup.procs" || exit 126
			exec "$oomguard" run --log-level debug --cgroup "$memcg"
		) > >(while IFS= read -r l; do echo "${EPOCHREALTIME/./} $l"; done >"$dir/daemon.log") 2>&1 &
		DPID=$!
		wait_for "$dir/daemon.log" "$(ready_re oomguard)" "$DPID" 10000 || fail=daemon_not_ready
		;;
	earlyoom | nohang) # as bench/run.sh runs them: bench/contenders.sh
		if ! ns_start "$memcg" "$dir"; then
			fail=namespace
		elif ! view_ok "$dir" $((lim * 1024)); then
			fail=view
		elif ! daemon_start "$who" "$memcg" "$(cg_path "$dcg" memory)" "$dir"; then
			fail=daemon_not_ready
		fi
		echo "view $(tr '\n' ' ' <"$dir/view" 2>/dev/null)(limit $((lim * 1024)) kB)" >"$dir/driver.log"
		;;
	esac
	into=""
	for c in unified blkio memory; do # memory last: see cg_enter
		[ -d "$(cg_path "$cg" "$c")" ] && into+="$(cg_path "$cg" "$c")/cgroup.procs "
	done
	if [ -z "$fail" ]; then
		SPAWN_INTO=$into SPAWN_NS=$NS_PID bench/thrash-cell.sh "$dir" "$secs" >>"$dir/driver.log" 2>&1
		# liveness: the daemon must have lived through the cell
		[ -n "$DPID" ] && ! kill -0 "$DPID" 2>/dev/null && fail=daemon_died
	fi
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null
	cg_field "$cg" memory.oom_control oom_kill >"$dir/kernel_kills"
	cg_destroy "$cg"
	cg_destroy "$dcg"
	[ -n "$DPID" ] && wait "$DPID" 2>/dev/null
	[ -n "$NS_WRAP" ] && wait "$NS_WRAP" 2>/dev/null
	DPID=""
	rm -f "$out/files/f" "$out/files/w"
	if [ -n "$fail" ]; then
		echo "$fail" >"$dir/failed"
		echo "thrash-grid: $kind $rate $over $anon $mode $who: failed: $fail" >&2
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$rate" "$over" "$anon" "$mode" \
		"$who" "$lim" "$file" "$anonm" "$(judge "$kind" "$dir" "$rate" | tr " " "\t")" >>"$results"
	tail -n1 "$results" | tr '\t' ' '
}

# judge KIND DIR RATE: "onset_ms kill_ms outcome died_ms" (times from the start of the workload; -
# where none). kill_ms is when the kill was sent where the contender says so to the millisecond
# (oomguard's log line, stamped on arrival), else when the task was seen dead; died_ms is the
# latter (a task killed while it waits for a throttled read dies when the read completes: up to
# a read-ahead batch's time on the disk later).
#   thrash: caught (killed within GRACE_MS of the first pass's end), late (killed after that),
#           missed (alive at the end), early (killed in the cold pass), fits (on a throttled
#           disk, its second pass took under a quarter of the first: the file stayed cached, no
#           thrash; a cell to resize; unthrottled, the host's cache makes both passes fast and
#           this is not told), none (the first pass never ended)
#   others: ok (no kill), false (a task was killed), kernel (every task that died was killed by
#           the kernel's OOM killer while the contender watched: not the contender's kill)
#   any: failed (the contender did not come up, saw another machine or died: $dir/failed)
#        error (the workload did not start, or one of its tasks exited with a status 1-127)
# deaths DIR: "TIME wI", one line per workload task that died before the cell's end: of a signal
# (exit status 128 + n), or stopped by one it caught (status 0 with the tool's "stopped signal="
# line: the tools catch SIGTERM, earlyoom's and nohang's first signal, and exit 0).
deaths() {
	local t w st
	while read -r t w st; do
		if [ "$st" -gt 128 ] ||
			{ [ "$st" = 0 ] && grep -q '^stopped signal=' "$1/$w.out" 2>/dev/null; }; then
			echo "$t $w"
		fi
	done < <(awk '$2 == "exit" { print $1, $3, $4 }' "$1/events.log")
}

judge() {
	local kind=$1 dir=$2 rate=$3 start onset="-" kill="" died="" dead rel
	[ -f "$dir/failed" ] && { echo "- - failed -"; return; } # the daemon's setup: not judged
	start=$(awk '$2 == "start" { print $1; exit }' "$dir/events.log" 2>/dev/null)
	[ -n "$start" ] || { echo "- - error -"; return; }
	# a workload task that failed on its own (exit status 1-127: a file it could not open): the
	# cell did not run what it says, and is not judged
	awk '$2 == "exit" && $4 > 0 && $4 < 128 { f = 1 } END { exit !f }' "$dir/events.log" &&
		{ echo "- - error -"; return; }
	# a workload task that died of a signal (128 + n), or was stopped by one, before the end
	dead=$(deaths "$dir")
	died=$(awk 'NR == 1 { print $1 }' <<<"$dead")
	[ -n "$died" ] && kill=$(awk '/ kill scope=/ { print substr($1, 1, length($1) - 3); exit }' \
		"$dir/daemon.log" 2>/dev/null)
	kill=${kill:-$died}
	rel=$([ -n "$died" ] && echo $((died - start)) || echo -)
	# every death the kernel's OOM killer's, in a daemon's cell: the kernel acted, not the daemon
	by_kernel=$([ -n "$died" ] && [ "$(basename "$dir")" != kernel ] && [ "$(cat "$dir/kernel_kills" \
		2>/dev/null || echo 0)" -ge "$(grep -c . <<<"$dead")" ] && echo 1)
	if [ "$kind" = thrash ]; then
		onset=$(awk '$1 == "pass" && $2 == 1 { sub("real_ms=", "", $4); print $4; exit }' \
			"$dir/w1.out" 2>/dev/null)
		if [ -n "$by_kernel" ]; then
			echo "$([ -n "$onset" ] && echo $((onset - start)) || echo -) $((kill - start)) kernel $rel"
		elif [ -z "$onset" ]; then
			[ -n "$kill" ] && echo "- $((kill - start)) early $rel" || echo "- - none -"
		elif [ -z "$kill" ] && [ "$rate" != 0 ] && awk -v s="$start" '$1 == "pass" && $2 == 2 {
				sub("real_ms=", "", $4); p2 = $4 } $1 == "pass" && $2 == 1 {
				sub("real_ms=", "", $4); p1 = $4 }
				END { exit !(p2 && (p2 - p1) * 4 < p1 - s) }' "$dir/w1.out"; then
			echo "$((onset - start)) - fits -"
		elif [ -z "$kill" ]; then
			echo "$((onset - start)) - missed -"
		elif [ "$kill" -lt "$onset" ]; then
			echo "$((onset - start)) $((kill - start)) early $rel"
		elif [ $((kill - onset)) -le $GRACE_MS ]; then
			echo "$((onset - start)) $((kill - start)) caught $rel"
		else
			echo "$((onset - start)) $((kill - start)) late $rel"
		fi
	else
		if [ -z "$kill" ]; then
			echo "- - ok -"
		elif [ -n "$by_kernel" ]; then
			echo "- $((kill - start)) kernel $rel"
		else
			echo "- $((kill - start)) false $rel"
		fi
	fi
}

# rejudge: results.tsv judged again from the cells' logs (after a change of judge()).
rejudge() {
	local tmp=$results.new
	head -n 1 "$results" >"$tmp"
	tail -n +2 "$results" | tr ' ' '\t' |
		while IFS=$'\t' read -r kind rate over anon mode who lim file anonm _; do
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$rate" "$over" \
				"$anon" "$mode" "$who" "$lim" "$file" "$anonm" \
				"$(judge "$kind" "$out/$kind-r$rate-o$over-a$anon-$mode/$who" "$rate" | tr ' ' '\t')"
		done >>"$tmp"
	mv "$tmp" "$results"
}

# The cells. Each line: KIND RATE OVER ANON MODE CONTENDERS ("all" or "oomguard").
cells() {
	local r o a m
	case $profile in
	check)
		echo "thrash 4 50 50 read oomguard"
		echo "thrash 0 50 50 read oomguard"
		echo "stream 4 0 50 read oomguard"
		return
		;;
	slower)
		for r in 1 2; do
			for o in 10 50 200; do
				for m in read mmap; do echo "thrash $r $o 50 $m all"; done
			done
			for a in 50 90; do echo "stream $r 0 $a read all"; done
		done
		return
		;;
	quick)
		for r in 4 0; do echo "thrash $r 50 50 read all"; echo "stream $r 0 50 read all"; done
		echo "thrash 16 10 90 mmap all"
		echo "churn 16 0 90 read all"
		echo "build 0 0 0 read all"
		return
		;;
	esac
	for r in 4 16 64 0; do
		for o in 10 50 200; do
			for a in 10 50 90; do
				for m in read mmap; do
					if [ "$a" = 50 ] && [ "$m" = read ] && { [ "$o" = 10 ] || [ "$o" = 200 ]; } &&
						{ [ "$r" = 4 ] || [ "$r" = 0 ]; }; then
						echo "thrash $r $o $a $m all"
					else
						echo "thrash $r $o $a $m oomguard"
					fi
				done
			done
		done
		echo "stream $r 0 50 read $([ "$r" = 4 ] || [ "$r" = 0 ] && echo all || echo oomguard)"
	done
	# A stream in a tight room (13 MiB beside the anon): a few read-ahead windows of a big one;
	# by mmap too, where a page read ahead and dropped before its touch is read again. Between
	# it and the 64 MiB room, rooms of 51, 38 and 26 MiB: 6, 5 and 3 windows of 8 MiB, just
	# over where the read-ahead hold ends (PROGRESS_RA_ROOM_WINDOWS).
	for r in 4 0; do
		for m in read mmap; do echo "stream $r 0 90 $m all"; done
		echo "stream $r 0 50 mmap oomguard"
		for a in 60 70 80; do
			for m in read mmap; do echo "stream $r 0 $a $m oomguard"; done
		done
	done
	for r in 4 0; do
		for m in read mmap; do echo "fits $r 0 50 $m oomguard"; done
	done
	echo "churn 16 0 90 read all"
	echo "churn 16 0 50 read oomguard"
	echo "build 0 0 0 read all"
}

if [ -n "$rejudge_dir" ]; then
	rejudge
	exec bench/thrash-report.sh "$out" "$report"
fi
IFS=, read -r -a who_list <<<"$contenders"
ok_list=()
for who in "${who_list[@]}"; do
	case $who in
	earlyoom | nohang)
		if ! command -v "$who" >/dev/null || ! start_lxcfs; then
			echo "thrash-grid: $who not available" | tee -a "$out/meta"
			continue
		fi
		;;
	esac
	ok_list+=("$who")
done
# oomguard's build: the tree's, or the binary given (OOMGUARD_BIN) when it is not the tree's
build_line() {
	if cmp -s "$oomguard" "$top/oomguard"; then
		git -C "$top" describe --always --dirty 2>/dev/null || echo unknown
	else
		echo "given $oomguard (not this tree's ./oomguard)"
	fi
}
# A resumed run adds one line to the header of the run it resumes (the report reads the first).
if [ "$resume" = 1 ] && [ -s "$out/meta" ]; then
	echo "resumed $(date -u +%Y-%m-%dT%H:%MZ), oomguard $(build_line)" >>"$out/meta"
else {
	echo "profile $profile"
	echo "kernel $(uname -r)"
	echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "contenders ${ok_list[*]}"
	echo "readahead_kb $(cat "/sys/dev/block/$(cg_disk_of "$out")/queue/read_ahead_kb")"
	echo "oomguard_build $(build_line)"
	echo "busy $busy"
} >>"$out/meta"; fi
# The hogs: in a group of their own (cg_cleanup_all stops them with the grid)
hogs="" hog_pid=""
if [ "$busy" -gt 0 ]; then
	cg_new hogs 16M || exit 1
	for _ in $(seq "$busy"); do
		cg_spawn "$hogs" hog_pid sh -c 'while :; do :; done'
		echo "hog $hog_pid" >>"$out/meta"
	done
fi
# The cells run a copy of the binary: a build in the tree during the run (it takes an hour)
# changes none of them. A resumed run keeps the copy it started with.
[ -x "$out/oomguard.bin" ] || cp "$oomguard" "$out/oomguard.bin" || exit 1
oomguard=$out/oomguard.bin
fails=0
while read -r kind rate over anon mode whom; do
	for who in "${ok_list[@]}"; do
		[ "$whom" = all ] || [ "$who" = oomguard ] || continue
		[ "$resume" = 1 ] && awk -F'\t' -v k="$kind $rate $over $anon $mode $who" \
			'$1 " " $2 " " $3 " " $4 " " $5 " " $6 == k { f = 1 } END { exit !f }' \
			"$results" && continue
		run_cell "$kind" "$rate" "$over" "$anon" "$mode" "$who" || {
			echo "thrash-grid: cell $kind $rate $over $anon $mode $who failed to run" >&2
			fails=$((fails + 1))
		}
	done
done < <(cells | awk -v re="$only" 're == "" || $1 " " $2 " " $3 " " $4 " " $5 ~ re')
echo "thrash-grid: results in $results"
if [ "$profile" = check ]; then
	awk -F'\t' 'NR > 1 && $12 != "caught" && $12 != "ok" { bad++ } END { exit bad > 0 }' \
		"$results" || { echo "thrash-grid: a cell failed"; exit 1; }
	[ "$fails" = 0 ] || exit 1
	exit 0
fi
bench/thrash-report.sh "$out" "$report"
