# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests.sh (selection `thrash-grid`, not part of `all`): the thrash grid of
# bench/thrash-grid.sh in the scope kinds this host lacks, a v2 group and the whole machine, at
# fewer points (TCG is slow): each line "GRID SCOPE KIND RATE OVER ANON MODE ONSET_S KILL_S
# OUTCOME", then the cell's PASS or FAIL.
#   thrash: a thrasher holds anon and rereads a file OVER % larger than the room left beside it,
#     by read() or mmap, its reads throttled to RATE MiB/s through io.max (0: not throttled).
#     Thrashing starts when its first pass ends (machine cells: when it goes on, below); the kill
#     must come within 3 s of that (2 s on the host; the guest runs under TCG) and not before
#     (a kill while the reader waits is early too). Outcomes: caught (<= 2 s), caught-3
#     (2-3 s), late (3-10 s), missed, early (in the cold pass), kernel (the kernel's OOM killer
#     took it first), nothrash (below), unthrashed (killed after the first pass with fewer than
#     256 pages refaulted since: it was reading from the cache, the kill was not for thrashing).
#   stream: a fresh file ten times the room, read once beside anon (30 s at most); fits: a
#     rereading working set with 20 % of the room to spare (30 s): no kill (ok), else false or
#     kernel.
# The v2 cells run in a group with memory.max; the machine cells in a group that only throttles,
# with the anon taking all of MemAvailable but the room. The machine's room is not a sharp
# figure: what the page cache held at the end of a first pass was 11 MiB under to 32 MiB over
# the room so set (5 December, one boot, 2 GiB), and beside anon of MemAvailable but 16 MiB a
# 48 MiB file was reread from the cache in one boot and thrashed in the next. So a machine thrash
# cell's reader pauses after its first pass while an eater takes what the cache holds of the file
# beyond the room the cell is named for (grid_squeeze; squeeze=MiB), and thrashing starts when it
# goes on. The GRID line gives what the scope held then (held=MiB: the group's file pages, or for
# the machine what the cache holds of the file) and the refaults after it (refaulted=MiB);
# a thrash cell that was not killed did not thrash ("nothrash", SKIP, not a miss)
# when in the 10 s after its first pass it refaulted less than a quarter of its file, or less
# than a quarter of what its passes after the first reread (an unthrottled loop whose file the
# cache mostly kept: 92 passes of 268 MiB in 10 s with 93 MiB refaulted, 6 December, is a task
# at the cache's speed, which the kernel's workingset protection kept there).
# vmgridrounds=1 (kernel command line, VM_GRID_ROUNDS=1): every round line of oomguard's debug log
# of each cell, as "ROUND CELL: TIME ...", after its GRID line.
# vmgridbusy=N (kernel command line, VM_GRID_BUSY): N CPU hogs run beside each cell's workload
# in its group (a v2 group's own busy tasks; for a machine cell, busy CPUs of the machine).

GRID_COLD_S=12 # a cold pass at a throttled rate takes about this long (as on the host)
# A machine cell's cold pass at a throttled rate is longer: the machine's page cache moves by
# the gap between its low and high watermarks at each kswapd wake (about 11 MiB at 2 GiB), and
# beside a 48 MiB file that made the +10 % cells +33 % and +78 % (6 December); 120 MiB keeps it
# nearer the named over.
GRID_COLD_S_MACHINE=30

# grid_sizes RATE OVER ANON [COLD_S]: "LIMIT FILE ANON" in MiB, as bench/thrash-grid.sh sizes a
# cell (a cold pass of COLD_S seconds, default GRID_COLD_S, at a throttled RATE).
grid_sizes() {
	awk -v r="$1" -v o="$2" -v a="$3" -v c="${4:-$GRID_COLD_S}" 'BEGIN {
		k = a / (100 - a); f1 = 1 + o / 100
		if (r > 0) lim = r * c * (1 + f1 * k) / f1; else lim = 512
		if (lim < 48) lim = 48
		if (lim > 1024) lim = 1024
		file = f1 * lim / (1 + f1 * k)
		printf "%d %d %d\n", lim, file, file * k }'
}

# grid_file MIB NAME: a fresh file of MIB MiB on the scratch disk ($VM_DISK/NAME; the other
# one removed), out of the page cache.
grid_file() {
	rm -f "$VM_DISK/thrash" "$VM_DISK/stream"
	dd if=/dev/zero of="$VM_DISK/$2" bs=1M count="$1" 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# grid_avail: MemAvailable in MiB, once it has settled: the largest of readings 0.5 s apart until
# one is no larger than the one before (up to 5 s), so that a cell does not size its anon while
# the cell before still gives back its memory.
grid_avail() {
	ga_best=0 ga_i=0
	while [ $ga_i -lt 10 ]; do
		ga_v=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
		[ "$ga_v" -le "$ga_best" ] && break
		ga_best=$ga_v ga_i=$((ga_i + 1))
		sleep 0.5
	done
	echo "$ga_best"
}

# The page cache the scope holds, MiB: the group's file pages (v2), the machine's file LRU.
grid_held() {
	if [ "$g_scope" = v2 ]; then
		awk '$1 == "file" { printf "%d", $2 / 1048576 }' "$g_cg/memory.stat"
	else
		awk '$1 == "Active(file):" || $1 == "Inactive(file):" { k += $2 }
			END { printf "%d", k / 1024 }' /proc/meminfo
	fi
}

grid_dead() { [ ! -d "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# The kernel's OOM kills so far: of the group (v2) or of the machine.
grid_kernel_kills() {
	if [ "$g_scope" = v2 ]; then field "$g_cg/memory.events" oom_kill; else field /proc/vmstat oom_kill; fi
}

# The file refaults so far: of the group (v2) or of the machine.
grid_refaults() {
	if [ "$g_scope" = v2 ]; then
		field "$g_cg/memory.stat" workingset_refault_file
	else
		field /proc/vmstat workingset_refault_file
	fi
}

# grid_squeeze: a machine thrash cell's first pass is over and its reader waits (thrasher -w).
# The room set from MemAvailable misses by tens of MiB (above): the page cache may still hold
# all of the file, with free memory beside it. So eaters take memory, each the size of what the
# cache holds of the file beyond FILE / (1 + OVER), the room the cell is named for, until it
# holds no more than 1 MiB over that (the first ones take free memory, the later ones the file's
# pages; at most 40 eaters and 512 MiB), then the reader goes on; its refaults count from there.
# Sets squeeze (MiB taken) and held (MiB of the file the cache holds as the reader goes on); the
# eaters are in $squeezers. Returns 1 when oomguard killed meanwhile (the cell is early).
grid_squeeze() {
	local want res n=0
	want=$((file * 100 / (100 + g_over)))
	squeeze=0
	rm -rf "$READY" && mkdir -p "$READY"
	while [ $n -lt 40 ] && [ $squeeze -lt 512 ]; do
		res=$(($(vm_fincore "$VM_DISK/$fname") / 1024))
		[ "$res" -gt $((want + 1)) ] || break
		spawn "$cg" vm_eater $((res - want)) "$READY"
		squeezers="$squeezers $!" squeeze=$((squeeze + res - want))
		wait_ready $! 60 || { why="$why the squeezing eater did not start;"; break; }
		n=$((n + 1))
	done
	held=$(($(vm_fincore "$VM_DISK/$fname") / 1024))
	r0=$(grid_refaults)
	touch "$go"
	! grep -q " kill scope=" "$OG_LOG"
}

# grid_cell SCOPE KIND RATE OVER ANON MODE: one cell, one GRID line and one verdict.
grid_cell() {
	g_scope=$1 g_kind=$2 g_rate=$3 g_over=$4 g_anon=$5 g_mode=$6
	name="grid-$g_scope-$g_kind-r$g_rate-o$g_over-a$g_anon-$g_mode"
	why=""
	local cold=$GRID_COLD_S
	[ "$g_scope" = machine ] && cold=$GRID_COLD_S_MACHINE
	# shellcheck disable=SC2046 # three numbers
	set -- $(grid_sizes "$g_rate" "$g_over" "$g_anon" $cold)
	lim=$1 file=$2 anon=$3
	case $g_kind in
	stream) lim=64 file=640 anon=$((64 * g_anon / 100)) ;;
	fits) lim=256 anon=$((256 * g_anon / 100)) file=$(((256 - 256 * g_anon / 100) * 8 / 10)) ;;
	esac
	m=""
	[ "$g_mode" = mmap ] && m=-m
	fname=thrash
	[ "$g_kind" = stream ] && fname=stream
	grid_file "$file" $fname
	rbps=$((g_rate * 1048576))
	[ "$g_rate" = 0 ] && rbps=max
	if [ "$g_scope" = v2 ]; then
		io_group oomguard-test-grid "${lim}M" "$rbps" || return
		scope_args="--cgroup $cg"
	else
		io_group oomguard-test-grid "" "$rbps" || return
		avail=$(grid_avail)
		anon=$((avail - (lim - anon)))
		scope_args=--machine
	fi
	g_cg=$cg
	: >"$OG_LOG"
	# shellcheck disable=SC2086 # scope_args is two words on purpose
	og_start $scope_args --log-level debug ||
		{ fail $name "oomguard run exited at once: $(tail -n 3 "$OG_LOG")"; cg_del "$cg"; return; }
	k0=$(grid_kernel_kills)
	hogs="" n=0
	while [ "$n" -lt "${vmgridbusy:-0}" ]; do
		spawn "$cg" sh -c 'while :; do :; done'
		hogs="$hogs $!" n=$((n + 1))
	done
	: >/tmp/grid.out
	go=""
	if [ "$g_kind" = stream ]; then
		rm -rf "$READY" && mkdir -p "$READY"
		spawn "$cg" vm_eater "$anon" "$READY"
		holder=$!
		wait_ready $holder 120 || why="$why the eater did not start;"
		if [ "$g_mode" = mmap ]; then
			spawn "$cg" thrasher -m -k -p 1 -i 1000 "$VM_DISK/$fname" >/tmp/grid.out 2>&1
		else
			spawn "$cg" dd if="$VM_DISK/$fname" of=/dev/null bs=1M >/tmp/grid.out 2>&1
		fi
	else
		holder=""
		# a machine thrash cell's reader waits after its first pass while grid_squeeze sets its
		# room
		[ "$g_scope" = machine ] && [ "$g_kind" = thrash ] && go=/tmp/grid.go && rm -f "$go"
		spawn "$cg" thrasher $m -k -a "${anon}M" -i 1000 ${go:+-w "$go"} "$VM_DISK/$fname" \
			>/tmp/grid.out 2>&1
	fi
	thr=$!
	onset="" kill_t="" t0=$(now_cs) limit_cs=3000 held="" r0=0 r_last=$(grid_refaults)
	squeeze=- squeezers=""
	r_now=$r_last
	[ "$g_kind" = thrash ] && limit_cs=24000
	while [ $(($(now_cs) - t0)) -lt $limit_cs ]; do
		# r0: the refaults read before the last poll that did not see "pass 1" (the second
		# pass's first read, a whole read-ahead window of refaults, is counted as it starts)
		[ "$g_kind" = thrash ] && [ -z "$onset" ] && r_now=$(grid_refaults)
		if [ -z "$onset" ] && [ "$g_kind" = thrash ] && grep -q '^pass 1 ' /tmp/grid.out; then
			if [ -z "$go" ]; then
				r0=$r_last held=$(grid_held)
				onset=$(now_cs) limit_cs=$(($(now_cs) - t0 + 1000))
			elif grid_squeeze; then # sets held and r0; onset: when the reader goes on
				onset=$(now_cs) limit_cs=$(($(now_cs) - t0 + 1000))
			fi
		fi
		[ "$g_kind" = thrash ] && r_last=$r_now
		if grep -q " kill scope=" "$OG_LOG" || grid_dead "$thr" ||
			{ [ -n "$holder" ] && grid_dead "$holder"; }; then
			kill_t=$(now_cs)
			break
		fi
		sleep 0.1
	done
	refaulted=- rf_pages=0
	[ -n "$onset" ] && rf_pages=$(($(grid_refaults) - r0)) && refaulted=$((rf_pages / 256))
	grid_dead "$thr" || kill -9 "$thr" 2>/dev/null # at the end, or dying of a kill already
	[ -n "$holder" ] && kill -9 "$holder" 2>/dev/null
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$squeezers" ] && kill -9 $squeezers 2>/dev/null && wait $squeezers 2>/dev/null
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$hogs" ] && kill -9 $hogs 2>/dev/null && wait $hogs 2>/dev/null
	wait "$thr" 2>/dev/null
	[ -n "$holder" ] && wait "$holder" 2>/dev/null
	by_og=0
	grep -q " kill scope=" "$OG_LOG" && by_og=1
	passes=$(grep -c '^pass ' /tmp/grid.out)
	by_kernel=$(($(grid_kernel_kills) - k0))
	[ -d "/proc/$og_pid" ] || why="$why oomguard died: $(tail -n 3 "$OG_LOG");"
	og_stop
	after="-"
	[ -n "$kill_t" ] && [ -n "$onset" ] && after=$(secs $((kill_t - onset)))
	case $g_kind in
	thrash)
		if [ $by_og = 0 ] && [ "$by_kernel" -gt 0 ]; then
			out=kernel
		elif [ -z "$onset" ] && [ $by_og = 1 ]; then
			out=early
		elif [ $by_og = 0 ] && [ -n "$onset" ] && { [ "$refaulted" -lt $((file / 4)) ] ||
			[ $(((passes - 1) * file)) -gt $((4 * refaulted)) ]; }; then
			out=nothrash # the file was reread from the cache: the cell did not thrash
		elif [ $by_og = 0 ]; then
			out=missed
		elif [ "$rf_pages" -lt 256 ]; then
			out=unthrashed # killed after its first pass, which it reread from the cache
		elif [ $((kill_t - onset)) -le 200 ]; then
			out=caught
		elif [ $((kill_t - onset)) -le 300 ]; then
			out=caught-3
		else
			out=late
		fi
		case $out in
		caught | caught-3 | nothrash) ;;
		*) why="$why $out ($after s after the first pass);" ;;
		esac
		;;
	*)
		if [ $by_og = 1 ]; then
			out=false
			why="$why oomguard killed: $(first_kill);"
		elif [ "$by_kernel" -gt 0 ]; then
			out=kernel
		else
			out=ok
		fi
		;;
	esac
	echo "GRID $g_scope $g_kind $g_rate $g_over $g_anon $g_mode" \
		"$([ -n "$onset" ] && secs $((onset - t0)) || echo -) $after $out" \
		"lim=$lim file=$file anon=$anon count=$(peak_count) held=${held:--}" \
		"refaulted=$refaulted squeeze=$squeeze"
	info "$name: reader's last line: $(grep -v '^ready' /tmp/grid.out | tail -n 1 | cut -c1-120);" \
		"passes $(grep -c '^pass ' /tmp/grid.out)$([ "$g_scope" = v2 ] || echo "; MemAvailable before: $avail MiB")"
	if [ $by_og = 1 ]; then # the rounds that made the verdict
		grep ' round\| kill scope=' "$OG_LOG" | grep -B 2 -m 1 ' kill scope=' | head -n 2 |
			sed 's/^.*scope=[^ ]* //' | cut -c1-600 | sed "s/^/INFO $name: round before the kill: /"
	elif [ -n "$why" ]; then
		grep ' round' "$OG_LOG" | tail -n 3 | sed 's/^.*scope=[^ ]* //' | cut -c1-600 |
			sed "s/^/INFO $name: round: /"
	fi
	if [ "${vmgridrounds:-0}" = 1 ]; then # every round of the cell, for a look afterwards
		grep ' round\| kill scope=' "$OG_LOG" | sed 's/^\([^ ]*\) .*scope=[^ ]* /\1 /' |
			cut -c1-900 | sed "s/^/ROUND $name: /"
	fi
	cg_del "$cg"
	rm -f "$VM_DISK/$fname"
	if [ "$out" = nothrash ]; then
		skip "$name" "the file was reread from the cache ($refaulted MiB refaulted after the first pass, $passes passes): no thrash to catch"
	else
		verdict "$name" "$why"
	fi
}

# The cells (fewer than the host's: a cell takes 30-60 s under TCG).
grid_cells() {
	for s in machine v2; do
		for r in 4 0; do
			for o in 10 200; do
				for m in read mmap; do echo "$s thrash $r $o 50 $m"; done
			done
		done
	done
	# the machine's room moves by tens of MiB: 10 % over is at its edge, 50 % less so
	for r in 4 0; do
		for m in read mmap; do echo "machine thrash $r 50 50 $m"; done
	done
	echo "v2 thrash 4 50 10 read"
	echo "v2 thrash 4 50 90 read"
	for r in 4 0; do
		for m in read mmap; do
			echo "machine stream $r 0 50 $m"
			echo "v2 stream $r 0 50 $m"
			echo "v2 stream $r 0 90 $m"
		done
	done
	echo "machine fits 0 0 50 read"
	for m in read mmap; do echo "v2 fits 0 0 50 $m"; done
}

if ! og_built; then
	skip thrash-grid "daemon not built"
elif [ -z "${VM_DISK:-}" ]; then
	skip thrash-grid "no scratch disk"
else
	# vmreadahead (kernel command line): the scratch disk's read-ahead in KiB for the grid
	[ -z "${vmreadahead:-}" ] || echo "$vmreadahead" >/sys/block/vda/queue/read_ahead_kb ||
		info "thrash-grid: read_ahead_kb $vmreadahead refused"
	info "thrash-grid: read_ahead_kb $(cat /sys/block/vda/queue/read_ahead_kb)"
	info "thrash-grid: busy ${vmgridbusy:-0}"
	# vmgridonly (kernel command line): only the cells matching this extended regular expression
	grid_cells | grep -E "${vmgridonly:-.}" >/tmp/grid.cells
	# the cells on fd 3: what a cell starts reads nothing of them
	while read -r c <&3; do
		# shellcheck disable=SC2086 # a cell is a word list
		grid_cell $c
	done 3</tmp/grid.cells
fi
