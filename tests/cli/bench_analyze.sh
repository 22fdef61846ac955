#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/analyze.sh on hand-made logs: a flood with kills beyond the optimum, a task that is not
# part of the workload, the bystander probe's lateness, thrash kills before and after the first
# pass, a stuck victim freed; bench/report-stats.sh's medians, quartiles and failed runs.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
d=$(mktemp -d /tmp/oomguard-test-analyze.XXXXXX)
trap 'rm -rf "$d"' EXIT
# want FILE KEY VALUE
want() { grep -qx "$2 $3" "$1" || fail "$2: want $3, got: $(grep "^$2 " "$1")"; }

# S t usage limit failcnt under_oom oom_kill cache rss dirty wb inactive_file active_file nr some full
mkdir -p "$d/flood"
cat >"$d/flood/env" <<'EOT'
FLOOD_EATER_KIB 81920
FLOOD_LIMIT_KIB 524288
FLOOD_N 8
FLOOD_RESERVE_KIB 16384
EOT
cat >"$d/flood/events.log" <<'EOT'
1000 flood_start
1010 eaters_started 4 81920
5000 settled 2 2
5100 end
EOT
cat >"$d/flood/monitor.log" <<'EOT'
S 900 100000 524288 0 0 0 90000 10000 0 0 50000 40000 3 0 0
S 1100 300000 524288 0 0 0 100000 200000 5000 0 60000 40000 7 0 0
G 1150 41 mem_eater
S 1150 300000 524288 1 0 0 100000 200000 5000 0 60000 40000 6 0 50000
S 1200 524000 524288 5 0 1 4000 520000 0 0 2000 2000 6 0 100000
G 1250 42 mem_eater
G 1250 43 sleep
S 1250 450000 524288 5 0 1 4000 440000 0 0 2000 2000 4 0 150000
S 1300 450000 524288 5 0 2 4000 440000 0 0 2000 2000 4 0 150000
EOT
# The probe: 200 wake-ups in the flood, 1..200 ms late; one before it, 900 ms late, is not counted.
{
	echo "P 990 900000"
	for i in $(seq 200); do echo "P $((1000 + i * 10)) $((i * 1000))"; done
} >"$d/flood/probe.log"
bench/analyze.sh flood "$d/flood" >"$d/flood.out" || fail "analyze flood failed"
# 8 eaters, 2 survive: 6 kills, of which 2 are needed ((512 - 16) / 80 = 6 fit)
want "$d/flood.out" kills 6
want "$d/flood.out" kills_seen 2
want "$d/flood.out" optimum_survivors 6
want "$d/flood.out" excess_kills 4
want "$d/flood.out" probe_p99_ms 198.0
want "$d/flood.out" probe_max_ms 200.0
want "$d/flood.out" kernel_kills 2
want "$d/flood.out" time_to_last_kill_s 0.25
want "$d/flood.out" survivors 2
want "$d/flood.out" unused_mib 352
want "$d/flood.out" stall_s 0.15
want "$d/flood.out" longest_stall_s 0.15
# headroom: free + clean page cache at the sample before each kill
[ "$(awk -F'\t' 'NR == 2 { print $2, $11 } NR == 3 { print $2, $11 }' "$d/flood/kills.tsv" | tr '\n' ' ')" = "41 319288 42 4288 " ] ||
	fail "kills.tsv: $(cat "$d/flood/kills.tsv")"

mkdir -p "$d/thrash"
printf 'THRASH_ANON_KIB 1000\nTHRASH_FILE_KIB 1000\n' >"$d/thrash/env"
printf '2000 thrash_ready\n9500 thrash_end killed\n9600 end\n' >"$d/thrash/events.log"
printf 'S 2000 5 10 0 0 0 1 1 0 0 1 0 2 0 0\nG 9400 7 thrasher\nS 9400 5 10 0 0 0 1 1 0 0 1 0 1 0 0\n' \
	>"$d/thrash/monitor.log"
# The first pass (cold reads) ends at 4000 (its "pass 1" line): the kill at 9400 is 5.40 s into
# the thrashing; the read rate is the median of the progress lines after the first pass.
cat >"$d/thrash/thrasher.out" <<'EOT'
ready
progress t_ms=1000 read_mib_s=4.00 passes=0
pass 1 t_ms=2000 real_ms=4000
progress t_ms=3000 read_mib_s=9.00 passes=1
progress t_ms=4000 read_mib_s=2.00 passes=2
progress t_ms=5000 read_mib_s=3.00 passes=2
EOT
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out" || fail "analyze thrash failed"
want "$d/thrash.out" time_to_kill_s 5.40
want "$d/thrash.out" cold_pass_s 2.00
want "$d/thrash.out" killed_before_thrashing 0
want "$d/thrash.out" rate_mib_s 3.00
want "$d/thrash.out" probe_p99_ms none
# The same run on the real clock (ms since the epoch, 13 digits): mawk prints such a sum as
# 1.79639e+12 unless told a format, and the figures after the cold pass were lost.
mkdir -p "$d/thrash13"
cp "$d/thrash/env" "$d/thrash/thrasher.out" "$d/thrash13/"
awk '{ $1 = sprintf("%.0f", $1 + 1796386870000); print }' "$d/thrash/events.log" \
	>"$d/thrash13/events.log"
awk '{ $2 = sprintf("%.0f", $2 + 1796386870000); print }' "$d/thrash/monitor.log" \
	>"$d/thrash13/monitor.log"
sed -i 's/real_ms=4000/real_ms=1796386874000/' "$d/thrash13/thrasher.out"
bench/analyze.sh thrash "$d/thrash13" >"$d/thrash13.out" || fail "analyze thrash13 failed"
want "$d/thrash13.out" time_to_kill_s 5.40
want "$d/thrash13.out" cold_pass_s 2.00
# A branch bash gives up on (a value its arithmetic cannot read) is a failure, not a short list.
sed -i 's/real_ms=1796386874000/real_ms=4e3/' "$d/thrash13/thrasher.out"
bench/analyze.sh thrash "$d/thrash13" >/dev/null 2>&1 && fail "analyze of a broken run exited 0"
# A kill before the first pass ended is premature: no time to kill, counted as before thrashing.
sed -i 's/real_ms=4000/real_ms=9450/' "$d/thrash/thrasher.out"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" time_to_kill_s none
want "$d/thrash.out" killed_before_thrashing 1
# So is a kill when no pass ever ended.
sed -i '/^pass /d' "$d/thrash/thrasher.out"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" killed_before_thrashing 1
want "$d/thrash.out" cold_pass_s none
# A kill the monitor missed (no G line): counted at the driver's thrash_end, an upper bound.
printf 'pass 1 t_ms=2000 real_ms=4000\n' >>"$d/thrash/thrasher.out"
printf 'S 2000 5 10 0 0 0 1 1 0 0 1 0 2 0 0\n' >"$d/thrash/monitor.log"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" time_to_kill_s 5.50
want "$d/thrash.out" kill_time_from thrash_end
want "$d/thrash.out" killed_before_thrashing 0
printf '2000 thrash_ready\n9500 thrash_end alive\n9600 end\n' >"$d/thrash/events.log"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" time_to_kill_s none
want "$d/thrash.out" killed_before_thrashing 0

mkdir -p "$d/stuck"
printf 'STUCK_SECOND_KIB 1000\n' >"$d/stuck/env"
printf '1000 victim_frozen 9\n1005 second_started 10\n3500 second_ready\n3600 end\n' >"$d/stuck/events.log"
printf 'S 990 5 10 4 0 0 1 1 0 0 1 0 2 0 0\nS 1500 5 10 4 0 0 1 1 0 0 1 0 2 0 0\nS 2000 5 10 9 0 0 1 1 0 0 1 0 2 0 0\n' \
	>"$d/stuck/monitor.log"
bench/analyze.sh stuck "$d/stuck" >"$d/stuck.out" || fail "analyze stuck failed"
want "$d/stuck.out" time_to_free_s 1.50

# report-stats: run 5 failed and is left out; "none" sorts above every number; a quartile
# between a number and "none" is "none"; labels are no figures; sum counts 0/1 figures.
printf 'a\tx\t%s\tt\t%s\n' 1 1 2 3 3 none 4 2 5 9 >"$d/results.tsv"
printf 'a\tx\t5\tfailed\tview\na\tx\t1\tkill_time_from\tthrash_end\n' >>"$d/results.tsv"
printf 'a\tx\t%s\tb\t%s\n' 1 1 2 0 3 1 4 0 >>"$d/results.tsv"
printf 'a\tx\t5\tfailed view\n' >"$d/failed.tsv"
bench/report-stats.sh "$d/results.tsv" "$d/failed.tsv" >"$d/stats.tsv" || fail "report-stats failed"
# scen who key median q1 q3 min max n sum
[ "$(grep -P '^a\tx\tt\t' "$d/stats.tsv")" = "$(printf 'a\tx\tt\t2.5\t1.75\tnone\t1\tnone\t4\t6')" ] ||
	fail "stats of t: $(grep -P '^a\tx\tt\t' "$d/stats.tsv")"
[ "$(grep -P '^a\tx\tb\t' "$d/stats.tsv")" = "$(printf 'a\tx\tb\t0.5\t0\t1\t0\t1\t4\t2')" ] ||
	fail "stats of b: $(grep -P '^a\tx\tb\t' "$d/stats.tsv")"
grep -q kill_time_from "$d/stats.tsv" && fail "a label was taken for a figure"
bench/report-stats.sh "$d/missing.tsv" "$d/failed.tsv" 2>/dev/null && fail "a missing file was accepted"
exit 0
