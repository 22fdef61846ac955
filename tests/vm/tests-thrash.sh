# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests.sh: thrashing caught by oomguard in the scope kinds this host lacks. A
# thrasher holds anon memory and rereads a file that does not fit beside it, its reads throttled
# through io.max: in a v2 group bounded by memory.max (its reads counted in the group's
# io.stat), and on the whole machine (the machine's pgpgin; the group there only throttles).
# Thrashing starts when the thrasher's first pass ends ("pass 1"); the kill must come within
# 3 s of that (2 s on the host; the guest runs under TCG) and not before.

THRASH_TESTS="daemon-thrash-v2 daemon-stream-v2 daemon-thrash-machine daemon-stream-machine
	daemon-churn-v2"
# thrash_file MIB: a fresh file on the scratch disk, out of the page cache, with no shadow
# entries (it was never evicted: written, synced, dropped).
thrash_file() {
	rm -f "$VM_DISK/thrash"
	dd if=/dev/zero of="$VM_DISK/thrash" bs=1M count="$1" 2>/dev/null
	sync
	echo 1 >/proc/sys/vm/drop_caches
}

# thrash_run NAME CGROUP ANON_MIB OOMGUARD_ARGS...: start oomguard, then the thrasher in
# CGROUP; sets why, onset_cs, kill_cs.
thrash_run() {
	tname=$1 tcg=$2 anon=$3
	shift 3
	: >"$OG_LOG"
	og_start "$@" || { why="$why oomguard run exited at once: $(tail -n 3 "$OG_LOG");"; return; }
	spawn "$tcg" thrasher -k -a "${anon}M" -i 1000 "$VM_DISK/thrash" >/tmp/thrasher.out 2>&1
	thr=$!
	onset_cs="" kill_cs="" t0=$(now_cs)
	while [ $(($(now_cs) - t0)) -lt 18000 ]; do
		if [ -z "$onset_cs" ] && grep -q '^pass 1 ' /tmp/thrasher.out; then
			onset_cs=$(now_cs)
		fi
		# the kill as sent (its log line), or the death, whichever is seen first: a task
		# killed while it waits for a throttled read dies when the read completes
		if grep -q " kill scope=" "$OG_LOG" || [ ! -d "/proc/$thr" ] ||
			grep -q '^State:.*Z' "/proc/$thr/status" 2>/dev/null; then
			kill_cs=$(now_cs)
			break
		fi
		[ -n "$onset_cs" ] && [ $(($(now_cs) - onset_cs)) -gt 3000 ] && break
		sleep 0.1
	done
	i=0
	while [ -d "/proc/$thr" ] && ! grep -q '^State:.*Z' "/proc/$thr/status" 2>/dev/null &&
		[ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -d "/proc/$thr" ] && ! grep -q '^State:.*Z' "/proc/$thr/status" 2>/dev/null &&
		why="$why the thrasher outlived its kill by 10 s;"
	[ -d "/proc/$og_pid" ] || why="$why oomguard died: $(tail -n 3 "$OG_LOG");"
	og_stop
	if [ -z "$kill_cs" ]; then
		why="$why the thrasher was not killed ($(grep '^progress' /tmp/thrasher.out | tail -n 1));"
		kill -9 "$thr" 2>/dev/null
	elif [ -z "$onset_cs" ]; then
		why="$why killed in the cold pass;"
	elif [ $((kill_cs - onset_cs)) -gt 300 ]; then
		why="$why killed $(secs $((kill_cs - onset_cs))) s after thrashing started (> 3 s);"
	fi
	wait "$thr" 2>/dev/null
	grep -q " kill scope=.* pid=$thr " "$OG_LOG" || why="$why the kill was not oomguard's;"
	info "$tname: onset $(secs $((${onset_cs:-0} - t0))) s after the start, kill" \
		"$([ -n "$kill_cs" ] && [ -n "$onset_cs" ] && secs $((kill_cs - onset_cs)) || echo -) s after it"
	grep ' oom scope=\| reads ' "$OG_LOG" | head -n 2 | cut -c1-300 | sed "s/^/INFO $tname: log: /"
}

test_thrash_v2() {
	name=daemon-thrash-v2
	why=""
	io_group oomguard-test-thrash 256M 16777216 || return
	thrash_file 128
	thrash_run $name "$cg" 160 --cgroup "$cg"
	grep -q "(cgroup-v2).*reads io.stat" "$OG_LOG" || why="$why the group's reads were not its io.stat;"
	cg_del "$cg"
	verdict $name "$why"
}

test_thrash_machine() {
	name=daemon-thrash-machine
	why=""
	io_group oomguard-test-thrash-io "" 16777216 || return
	# anon: all that is available but 256 MiB; the file: 384 MiB, which cannot fit beside it.
	avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
	thrash_file 384
	thrash_run $name "$cg" $((avail - 256)) --machine
	grep -q "scope machine (machine).*reads machine pgpgin" "$OG_LOG" ||
		why="$why the machine's reads were not pgpgin;"
	cg_del "$cg"
	verdict $name "$why"
}

# stream_run CGROUP ANON_MIB FILE SECONDS OOMGUARD_ARGS...: start oomguard, an eater of ANON_MIB in
# CGROUP, then FILE read once by dd in CGROUP (SECONDS at most); adds to why when oomguard
# killed, died, or the eater or the stream did not live to the end; t0: when the read began.
stream_run() {
	scg=$1 sanon=$2 sfile=$3 swait=$4
	shift 4
	: >"$OG_LOG"
	og_start "$@" || { why="$why oomguard run exited at once;"; return; }
	rm -rf "$READY" && mkdir -p "$READY"
	spawn "$scg" vm_eater "$sanon" "$READY"
	eater=$!
	wait_ready $eater 120 || why="$why the eater did not start;"
	t0=$(now_cs)
	spawn "$scg" dd if="$sfile" of=/dev/null bs=1M
	reader=$!
	wait_exit $reader "$swait"
	rc=$?
	[ $rc = 0 ] || why="$why the stream ended with $rc;"
	[ -d "/proc/$eater" ] || why="$why the eater was killed;"
	grep -q " kill scope=" "$OG_LOG" &&
		why="$why oomguard killed: $(first_kill);"
	[ -d "/proc/$og_pid" ] || why="$why oomguard died: $(tail -n 3 "$OG_LOG");"
	og_stop
}

# A stream is not thrashing: a fresh 640 MiB file (ten times the group) read once at 64 MB/s
# beside 32 MiB of anon in a 64 MiB v2 group: oomguard kills nothing.
test_stream_v2() {
	name=daemon-stream-v2
	why=""
	io_group oomguard-test-stream 64M 67108864 || return
	thrash_file 640
	stream_run "$cg" 32 "$VM_DISK/thrash" 120 --cgroup "$cg"
	info "$name: 640 MiB read in $(secs $(($(now_cs) - t0))) s, memory.events:" \
		"$(tr '\n' ' ' <"$cg/memory.events")"
	cg_del "$cg"
	verdict $name "$why"
}

# A stream on the whole machine is not thrashing either: all memory but 256 MiB held by an
# eater, an 8 GiB sparse file (32 times the room; its holes read as zeros at memory speed, the
# fastest stream there is: kswapd reclaims the page cache flat out) read once: oomguard kills
# nothing. The machine's PSI counts kswapd's reclaim as a stall of its own.
test_stream_machine() {
	name=daemon-stream-machine
	why=""
	cg=$(cg_new oomguard-test-stream-m) || { fail $name "cannot create a cgroup"; return; }
	rm -f "$VM_DISK/sparse"
	truncate -s 8G "$VM_DISK/sparse"
	echo 1 >/proc/sys/vm/drop_caches
	avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
	stream_run "$cg" $((avail - 256)) "$VM_DISK/sparse" 300 --machine --log-level debug
	info "$name: 8 GiB read in $(secs $(($(now_cs) - t0))) s beside $((avail - 256)) MiB;" \
		"rounds: $(grep -c ' round, ' "$OG_LOG"), stall over bound:" \
		"$(grep -c 'round="stall over bound' "$OG_LOG"), longest count:" \
		"$(peak_count)"
	rm -f "$VM_DISK/sparse"
	cg_del "$cg"
	verdict $name "$why"
}

# A working set that fits with 5 % to spare while a writer streams through the group is not
# thrashing: a thrasher of 218 MiB anon rereading a 25 MiB file in a 256 MiB v2 group (reads at
# 16 MB/s), and from its second pass on a writer looping over a 512 MiB file. The reader's file
# is read back at the disk's rate (the writer's dirty pages are what reclaim cannot take): by its
# reads it thrashes, but the writer is the cause. oomguard kills nothing in 30 s.
# The writer's dirty pages must outgrow the room the reader's file leaves (38 - 25 MiB): at the
# default dirty_ratio (20 % of what the group could hold of the page cache: about 8 MiB) they do
# not, and the reader's hot file stays (5 December: 2,400 passes from the cache, no churn). So the
# test raises vm.dirty_ratio to 80 (a setting users choose for write-heavy work; dirty_bytes
# likewise) and throttles the group's writes to 8 MB/s, and puts both back after.
test_churn_v2() {
	name=daemon-churn-v2
	why=""
	io_group oomguard-test-churn 256M 16777216 || return
	echo "$(cat /sys/block/vda/dev) wbps=8388608" >"$cg/io.max" ||
		why="$why the group's writes could not be throttled;"
	thrash_file 25
	: >"$OG_LOG"
	og_start --cgroup "$cg" --log-level debug ||
		{ fail $name "oomguard run exited at once"; cg_del "$cg"; return; }
	spawn "$cg" thrasher -k -a 218M -i 1000 "$VM_DISK/thrash" >/tmp/thrasher.out 2>&1
	thr=$!
	t0=$(now_cs)
	while ! grep -q '^pass 2 ' /tmp/thrasher.out && [ -d "/proc/$thr" ] &&
		[ $(($(now_cs) - t0)) -lt 6000 ]; do
		sleep 0.1
	done
	grep -q '^pass 2 ' /tmp/thrasher.out || why="$why the thrasher did not reach its second pass;"
	old_dirty=$(cat /proc/sys/vm/dirty_ratio) old_bg=$(cat /proc/sys/vm/dirty_background_ratio)
	echo 80 >/proc/sys/vm/dirty_ratio
	echo 40 >/proc/sys/vm/dirty_background_ratio
	wstart=$(date +%T)
	spawn "$cg" writer "$VM_DISK/churn" 512M >/tmp/writer.out 2>&1
	wr=$!
	t1=$(now_cs)
	while [ $(($(now_cs) - t1)) -lt $((${VM_CHURN_S:-30} * 100)) ] && [ -d "/proc/$thr" ]; do
		sleep 0.2
	done
	p1=$(grep -c '^pass ' /tmp/thrasher.out)
	# passes while the writer writes: read back at the disk's 16 MB/s, 25 MiB allow about 2 a
	# second at most; many more came from the page cache, and the writer pushed nothing out
	p_writer=$((p1 - 2)) # the writer starts at the reader's second pass
	grep -q " kill scope=" "$OG_LOG" && why="$why oomguard killed: $(first_kill);"
	kill "$wr" "$thr" 2>/dev/null
	wait "$wr" "$thr" 2>/dev/null
	[ -d "/proc/$og_pid" ] || why="$why oomguard died: $(tail -n 3 "$OG_LOG");"
	og_stop
	echo "$old_dirty" >/proc/sys/vm/dirty_ratio
	echo "$old_bg" >/proc/sys/vm/dirty_background_ratio
	rm -f "$VM_DISK/churn"
	info "$name: the reader's passes: $p1 in all; rounds held for the writer:" \
		"$(grep -c "refaults beside a writer" "$OG_LOG"), judged thrashing:" \
		"$(grep -c 'round="thrashing' "$OG_LOG"), the count at most" \
		"$(peak_count);" \
		"memory.events: $(tr '\n' ' ' <"$cg/memory.events")"
	info "$name: the writer started at $wstart; rounds judged thrashing at" \
		"$(grep 'round="thrashing' "$OG_LOG" | sed "$TIME_OF_LINE" | tr '\n' ' ')"
	# a verdict's reasons: the rounds before it
	grep ' oom scope=' "$OG_LOG" >/dev/null &&
		grep ' round' "$OG_LOG" | tail -n 4 | sed 's/^.*scope=[^ ]* //' | cut -c1-700 |
		sed "s/^/INFO $name: round before the kill: /"
	cg_del "$cg"
	# Nothing to judge when the writer did not churn (5 December: 0 rounds held, 2,400 passes
	# of the reader from the cache, at ee50ca5 too): no pass for a case that did not happen.
	if [ -z "$why" ] && ! grep -q "refaults beside a writer" "$OG_LOG" &&
		[ "$p_writer" -gt $((2 * ${VM_CHURN_S:-30})) ]; then
		why="the writer pushed none of the reader's file out ($p_writer passes"
		skip $name "$why from the cache beside it): the case did not happen"
		return
	fi
	verdict $name "$why"
}

if ! og_built; then
	for t in $THRASH_TESTS; do
		skip $t "daemon not built"
	done
elif [ -z "${VM_DISK:-}" ]; then
	for t in $THRASH_TESTS; do
		skip $t "no scratch disk"
	done
else
	test_thrash_v2
	test_stream_v2
	test_thrash_machine
	test_stream_machine
	test_churn_v2
fi
