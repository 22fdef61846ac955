#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/analyze.sh on hand-made logs: a flood with one premature and one justified kill, a task
# that is not part of the workload, a thrash kill and a stuck victim freed. Checks each figure.
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
FLOOD_N 4
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
bench/analyze.sh flood "$d/flood" >"$d/flood.out" || fail "analyze flood failed"
want "$d/flood.out" kills 2
want "$d/flood.out" kills_seen 2
want "$d/flood.out" premature 1
want "$d/flood.out" kernel_kills 2
want "$d/flood.out" time_to_last_kill_s 0.25
want "$d/flood.out" survivors 2
want "$d/flood.out" unused_mib 352
want "$d/flood.out" stall_s 0.15
want "$d/flood.out" longest_stall_s 0.15
[ "$(awk -F'\t' 'NR == 2 { print $2, $11 } NR == 3 { print $2, $11 }' "$d/flood/kills.tsv" | tr '\n' ' ')" = "41 1 42 0 " ] ||
	fail "kills.tsv: $(cat "$d/flood/kills.tsv")"

mkdir -p "$d/thrash"
printf 'THRASH_ANON_KIB 1000\nTHRASH_FILE_KIB 1000\n' >"$d/thrash/env"
printf '2000 thrash_ready\n9500 thrash_end killed\n9600 end\n' >"$d/thrash/events.log"
printf 'S 2000 5 10 0 0 0 1 1 0 0 1 0 2 0 0\nG 9400 7 thrasher\nS 9400 5 10 0 0 0 1 1 0 0 1 0 1 0 0\n' \
	>"$d/thrash/monitor.log"
# The first pass (cold reads) ends between t_ms 2000 and 3000: thrashing is counted from 2000,
# the kill (7400 ms after ready) 5.40 s later.
printf 'ready\nprogress t_ms=1000 read_mib_s=4.00 passes=0\nprogress t_ms=2000 read_mib_s=2.00 passes=0\nprogress t_ms=3000 read_mib_s=9.00 passes=1\n' \
	>"$d/thrash/thrasher.out"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out" || fail "analyze thrash failed"
want "$d/thrash.out" time_to_kill_s 5.40
want "$d/thrash.out" cold_pass_s 2.00
want "$d/thrash.out" rate_mib_s 4.00
# A kill before the first pass ended is premature: no time to kill.
printf 'ready\nprogress t_ms=8000 read_mib_s=4.00 passes=0\nprogress t_ms=9000 read_mib_s=4.00 passes=1\n' \
	>"$d/thrash/thrasher.out"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" time_to_kill_s none
want "$d/thrash.out" killed_before_thrashing 1
# A kill the monitor missed (no G line): counted at the driver's thrash_end, an upper bound.
printf 'S 2000 5 10 0 0 0 1 1 0 0 1 0 2 0 0\n' >"$d/thrash/monitor.log"
printf 'progress t_ms=1000 read_mib_s=4.00 passes=0\nprogress t_ms=2000 read_mib_s=4.00 passes=0\nprogress t_ms=3000 read_mib_s=4.00 passes=1\n' \
	>"$d/thrash/thrasher.out"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" time_to_kill_s 5.50
want "$d/thrash.out" kill_time_from thrash_end
printf '2000 thrash_ready\n9500 thrash_end alive\n9600 end\n' >"$d/thrash/events.log"
bench/analyze.sh thrash "$d/thrash" >"$d/thrash.out"
want "$d/thrash.out" time_to_kill_s none

mkdir -p "$d/stuck"
printf 'STUCK_SECOND_KIB 1000\n' >"$d/stuck/env"
printf '1000 victim_frozen 9\n1005 second_started 10\n3500 second_ready\n3600 end\n' >"$d/stuck/events.log"
printf 'S 990 5 10 4 0 0 1 1 0 0 1 0 2 0 0\nS 1500 5 10 4 0 0 1 1 0 0 1 0 2 0 0\nS 2000 5 10 9 0 0 1 1 0 0 1 0 2 0 0\n' \
	>"$d/stuck/monitor.log"
bench/analyze.sh stuck "$d/stuck" >"$d/stuck.out" || fail "analyze stuck failed"
want "$d/stuck.out" time_to_free_s 1.50
exit 0
