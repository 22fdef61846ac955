#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/machine/metrics.sh and report.sh on hand-made cells (what a guest of the machine bench
# writes): frozen seconds inside the scenario only, kills seen by the harness and named by the
# journal counted once, a premature kill and a justified one, wrong victims (a bystander, a pid
# the harness did not start, the service), recovery, memory unused, fit; then the report's tables.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
d=$(mktemp -d /tmp/oomguard-test-mbreport.XXXXXX)
trap 'rm -rf "$d"' EXIT
# want FILE KEY VALUE
want() { grep -qx "$2 $3" "$1" || fail "$2: want $3, got: $(grep "^$2 " "$1")"; }

# cell DIR CONTENDER SCENARIO: meta, results of the probe and the service (both fine).
cell() {
	mkdir -p "$1/out"
	printf 'contender=%s\nscenario=%s\nquick=1\nzram=0\nswaps=\nkernel=6.1\n' "$2" "$3" >"$1/out/meta"
	printf 'mem_total_kib=2000000\nio=rbps 50M wbps 50M riops 1000\nerror=\n' >>"$1/out/meta"
	printf 'ActiveState=active\nResult=success\nExecMainPID=400\n' >"$1/out/probe.result"
	printf 'ActiveState=active\nResult=success\nExecMainPID=401\n' >"$1/out/service.result"
	: >"$1/out/journal.txt"
}
# probe DIR SECONDS [S:LATE_MS...]: one probe line per second from real time 0, late 50 ms but
# for the seconds given.
probe() {
	local f=$1/out/probe.log n=$2 s late
	shift 2
	: >"$f"
	for s in $(seq 0 $((n - 1))); do
		late=50
		for x in "$@"; do [ "${x%%:*}" = "$s" ] && late=${x#*:}; done
		echo "sec=$s real_ms=$((s * 1000)) late_ms=$late cmd_ms=10" >>"$f"
	done
}
# samples DIR SECONDS LOW_FROM LOW_TO [OOM_AT [REFAULTS_PER_S]]: MemAvailable 1500000 KiB each
# second, 100000 between the seconds given; /proc/vmstat oom_kill 5, 6 from second OOM_AT;
# refaults growing by REFAULTS_PER_S pages a second (default 100).
samples() {
	awk -v n="$2" -v a="$3" -v b="$4" -v o="${5:-999}" -v r="${6:-100}" 'BEGIN {
		for (s = 0; s < n; s++)
			print s * 1000, (s >= a && s <= b) ? 100000 : 1500000, 0, 0, 0, \
				(s >= o ? 6 : 5), s * r }' >"$1/out/samples.log"
}

# Flood with oomguard: frozen at 5 s (before the start), 30-32 s; e1 killed at 33 s in a
# memory shortage, w1 (a bystander) at 40 s, e3 at 60 s with memory there (premature), e2 after
# the end (not a kill); the kernel kills pid 300 (not the harness's) at 50 s; oomguard's line
# for e1 is the same kill; dbus.service's main process is killed (cron's after the end); the
# service was OOM-killed (counted once, by its result).
r=$d/run
c=$r/flood/oomguard
cell "$c" oomguard flood
probe "$c" 90 5:3000 30:1500 31:2500 32:1200
samples "$c" 86 25 33
cat >"$c/out/events.log" <<'EOT'
1000 boot uptime=13
10000 start
10100 spawn w1 201 bystander
20000 trouble
20100 spawn e1 101 offender
20200 spawn e2 102 offender
20300 spawn e3 103 offender
33000 exit e1 101 137
40000 exit w1 201 143
60000 exit e3 103 137
80000 end
81000 exit e2 102 143
EOT
cat >"$c/out/journal.txt" <<'EOT'
32.900000 machine-bench oomguard[5]: kill scope=machine pid=101 comm=vm_eater rss_kib=81920
50.000000 machine-bench kernel: Out of memory: Killed process 300 (foo) total-vm:1kB
51.000000 machine-bench systemd[1]: dbus.service: Main process exited, code=killed, status=9/KILL
52.000000 machine-bench systemd[1]: mb-service.service: Main process exited, code=killed, status=9
90.000000 machine-bench systemd[1]: cron.service: Main process exited, code=killed, status=9/KILL
EOT
printf 'ActiveState=failed\nResult=oom-kill\nExecMainPID=401\n' >"$c/out/service.result"
bench/machine/metrics.sh "$c" >"$d/a" || fail "metrics.sh failed on the flood cell"
want "$d/a" frozen 3
want "$d/a" kills 6
want "$d/a" premature 1
want "$d/a" wrong 4
want "$d/a" recovery_s 40.0
want "$d/a" recovered 1
want "$d/a" unused_mib 1464
want "$d/a" fit_mib -
want "$d/a" duration_s 70.0
want "$d/a" probe ok
want "$d/a" service killed

# The same flood with earlyoom: frozen 6 s to the end: not recovered; nothing killed.
c=$r/flood/earlyoom
cell "$c" earlyoom flood
probe "$c" 90 70:1500 72:1500 73:1500 74:2000 75:3000 79:9000
samples "$c" 86 60 80
printf '10000 start\n20000 trouble\n80000 end\n' >"$c/out/events.log"
bench/machine/metrics.sh "$c" >"$d/b" || fail "metrics.sh failed on the earlyoom cell"
want "$d/b" frozen 6
want "$d/b" kills 0
want "$d/b" recovered 0
want "$d/b" recovery_s 60.0

# The same flood with nohang: one frozen second, fewer than oomguard's.
c=$r/flood/nohang
cell "$c" nohang flood
probe "$c" 90 40:1100
samples "$c" 86 60 61
printf '10000 start\n20000 trouble\n80000 end\n' >"$c/out/events.log"

# Fit with the kernel: 1024 and 1280 MiB finished, 1536 killed in a shortage (not premature).
c=$r/fit/kernel
cell "$c" kernel fit
probe "$c" 8
samples "$c" 8 3 4 4
cat >"$c/out/events.log" <<'EOT'
1000 start
1500 trouble
2000 fit 1024 ok
3000 fit 1280 ok
3500 spawn job1536 555 offender
4000 exit job1536 555 137
4000 fit 1536 killed status=137
5000 end
EOT
echo '3.900000 machine-bench kernel: Out of memory: Killed process 555 (mem_eater)' \
	>"$c/out/journal.txt"
bench/machine/metrics.sh "$c" >"$d/c" || fail "metrics.sh failed on the fit cell"
want "$d/c" fit_mib 1280
want "$d/c" kills 1
want "$d/c" premature 0
want "$d/c" wrong 0
want "$d/c" kernel_kills 1
want "$d/a" kernel_kills 0

# A thrash keeps MemAvailable high with the pages it rereads: a kill with 1.5 GB available is
# not premature when the 10 s before it read back 10 % of MemTotal (50,000 pages of 4 KiB a
# second over 10 s: 200,000 KiB of 2,000,000), and is one page a second under that.
for rate in 5000 4999; do
	c=$d/run2/thrash-$rate/oomguard
	cell "$c" oomguard thrash
	probe "$c" 40
	samples "$c" 40 99 99 999 "$rate"
	printf '1000 start\n2000 trouble\n2100 spawn tab1 101 offender\n30000 exit tab1 101 137\n' \
		>"$c/out/events.log"
	echo '35000 end' >>"$c/out/events.log"
	bench/machine/metrics.sh "$c" >"$d/t$rate" || fail "metrics.sh failed on the thrash cell"
	want "$d/t$rate" kills 1
done
want "$d/t5000" premature 0
want "$d/t4999" premature 1
# ... or the last 2 s read back at 1 % of MemTotal a second (20,000 KiB/s: 5,000 pages), though
# the 10 s sum stays under 10 %: a thrash (or a leak's bystanders) caught as it begins. Refaults
# from 28 s on, 6,000 or 4,999 pages a second; the kill seen at 30 s.
for rate in 6000 4999; do
	c=$d/run2/late-$rate/oomguard
	cell "$c" oomguard thrash
	probe "$c" 40
	awk -v r="$rate" 'BEGIN { for (s = 0; s < 40; s++)
		print s * 1000, 1500000, 0, 0, 0, 5, (s > 28 ? (s - 28) * r : 0) }' >"$c/out/samples.log"
	printf '1000 start\n2000 trouble\n2100 spawn tab1 101 offender\n30000 exit tab1 101 137\n' \
		>"$c/out/events.log"
	echo '35000 end' >>"$c/out/events.log"
	bench/machine/metrics.sh "$c" >"$d/l$rate" || fail "metrics.sh failed on the late thrash cell"
	want "$d/l$rate" kills 1
done
want "$d/l6000" premature 0
want "$d/l4999" premature 1
# nohang names its victim over several lines; the victim, SIGTERMed, exits 0 (mem_eater does):
# the kill is seen only in the journal. The line of its top list names another pid first.
c=$d/run2/leak/nohang
cell "$c" nohang leak
probe "$c" 40
samples "$c" 40 25 35
printf '1000 start\n2000 trouble\n2100 spawn leak 326 offender\n30500 exit leak 326 0\n' \
	>"$c/out/events.log"
echo '35000 end' >>"$c/out/events.log"
cat >"$c/out/journal.txt" <<'EOT'
30.000000 machine-bench nohang[220]:   thrasher            309     843
30.000000 machine-bench nohang[220]:   PID: 326, name: mem_eater, badness: 1258
30.000000 machine-bench nohang[220]:   PID:       326, name: mem_eater, state: S (sleeping), EUID: 1000
30.000000 machine-bench nohang[220]: Implementing a corrective action:
30.000000 machine-bench nohang[220]:   Sending SIGTERM to the victim
EOT
bench/machine/metrics.sh "$c" >"$d/n" || fail "metrics.sh failed on the nohang cell"
want "$d/n" kills 1
want "$d/n" wrong 0
want "$d/n" premature 0

# A unit killed whole (oomguard's kill_unit auto, systemd-oomd): the main process of the
# offending unit's service (mb-work.service, a holder, --oom-policy=continue) dies with it: a
# kill, not a wrong victim; the bystanders' unit's (mb-bg.service) is a wrong one.
c=$d/run3/forkstorm-continue/oomguard
cell "$c" oomguard forkstorm
probe "$c" 40
samples "$c" 40 25 35
printf '1000 start\n2000 trouble\n2100 spawn small 501 offender\n30600 exit small 501 137\n' \
	>"$c/out/events.log"
echo '35000 end' >>"$c/out/events.log"
cat >"$c/out/journal.txt" <<'EOT'
30.500000 machine-bench oomguard[211]: kill scope=machine pid=501 comm=vm_eater rss_kib=12900
30.5 machine-bench oomguard[211]: kill unit scope=machine cgroup=/w.service reason=regrown tasks=1
30.6 machine-bench systemd[246]: mb-work.service: Main process exited, code=killed, status=9/KILL
EOT
bench/machine/metrics.sh "$c" >"$d/u" || fail "metrics.sh failed on the unit cell"
want "$d/u" kills 2
want "$d/u" wrong 0
echo '31.0 machine-bench systemd[246]: mb-bg.service: Main process exited, code=killed,' \
	'status=9/KILL' >>"$c/out/journal.txt"
bench/machine/metrics.sh "$c" >"$d/u" || fail "metrics.sh failed on the unit cell"
want "$d/u" kills 3
want "$d/u" wrong 1

# Samples of an older mb_sample (6 columns): the refaults are not known, memory alone decides.
cut -d' ' -f1-6 "$d/run2/thrash-5000/oomguard/out/samples.log" >"$d/s6"
mv "$d/s6" "$d/run2/thrash-5000/oomguard/out/samples.log"
bench/machine/metrics.sh "$d/run2/thrash-5000/oomguard" >"$d/t6" || fail "metrics.sh, 6 columns"
want "$d/t6" premature 1

# The sampler on this machine: seven columns, the last the refaults of /proc/vmstat (file + anon),
# between the counter read before it and the one read after.
# built with bench/machine/image.sh's flags (a warning there stops the image's build)
if cc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wshadow -Wconversion \
	-o "$d/mb_sample" bench/machine/mb_sample.c 2>"$d/cc"; then
	refaults() {
		awk '/^workingset_refault_(file|anon) / { s += $2 } END { print s + 0 }' /proc/vmstat
	}
	before=$(refaults)
	"$d/mb_sample" >"$d/samples" &
	sp=$!
	sleep 0.5
	kill "$sp"
	wait "$sp"
	after=$(refaults)
	awk -v lo="$before" -v hi="$after" 'NF != 7 || $7 < lo || $7 > hi { bad = 1 }
		END { exit bad || !NR }' "$d/samples" ||
		fail "mb_sample: want 7 columns, refaults in [$before, $after]: $(head -n 2 "$d/samples")"
	# -g: each group's memory.pressure totals (some, full) under the directories given; a
	# directory without the file (not a v2 group) is left out.
	mkdir -p "$d/cg/app.scope" "$d/cg/plain"
	{
		echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234"
		echo "full avg10=0.00 avg60=0.00 avg300=0.00 total=567"
	} >"$d/cg/app.scope/memory.pressure"
	echo "some avg10=0.00 avg60=0.00 avg300=0.00 total=89" >"$d/cg/app.scope/io.pressure"
	printf 'anon 4096\nworkingset_refault_anon 12\nworkingset_refault_file 345\n' \
		>"$d/cg/app.scope/memory.stat"
	printf 'usage_usec 678\nuser_usec 600\nsystem_usec 78\n' >"$d/cg/app.scope/cpu.stat"
	echo 901234 >"$d/cg/app.scope/memory.current"
	"$d/mb_sample" -g "$d/groups" "$d/cg" "$d/nothere" >/dev/null &
	sp=$!
	sleep 0.5
	kill "$sp"
	wait "$sp"
	# io's some total, cpu.pressure missing (-1), the memory.stat refaults (file, anon), the CPU
	# time used, memory.current; before each sample's groups, the machine's own line: its
	# memory some and full, io and cpu some (this host has PSI), the rest -1
	awk -v p="$d/cg/app.scope" '
		$2 == "/proc/pressure" { m++; if (prev == "/proc/pressure" || NF != 10 ||
			$3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/ ||
			$7 != -1 || $8 != -1 || $9 != -1 || $10 != -1) bad = 1; prev = $2; next }
		{ g++; if (prev != "/proc/pressure" || $2 != p || $3 != 1234 || $4 != 567 ||
			$5 != 89 || $6 != -1 || $7 != 345 || $8 != 12 || $9 != 678 || $10 != 901234 ||
			NF != 10) bad = 1; prev = $2 }
		END { exit bad || !m || m != g }' "$d/groups" ||
		fail "mb_sample -g: want 'MS /proc/pressure SOME FULL IO CPU -1 -1 -1 -1' then" \
			"'MS $d/cg/app.scope 1234 567 89 -1 345 12 678 901234' lines:" \
			"$(head -n 4 "$d/groups")"
	"$d/mb_sample" -x 2>/dev/null && fail "mb_sample -x: want an error"
else
	fail "mb_sample does not build: $(cat "$d/cc")"
fi

# A cell of --oom-policy=continue, listed after the flood's.
c=$r/flood-continue/kernel
cell "$c" kernel flood
probe "$c" 20 12:1500
samples "$c" 20 0 0
printf '1000 start\n2000 trouble\n15000 end\n' >"$c/out/events.log"

# A cell whose guest wrote nothing, and bad input.
mkdir -p "$r/thrash/nohang"
bench/machine/metrics.sh "$r/thrash/nohang" >/dev/null 2>"$d/err" &&
	fail "metrics.sh took a cell without results"
grep -q 'out/meta missing' "$d/err" || fail "metrics.sh did not name what was missing: $(cat "$d/err")"
bench/machine/report.sh --out="$d/r.md" "$d/none" 2>"$d/err" &&
	fail "report.sh took a missing directory"
grep -q "no directory $d/none" "$d/err" || fail "report.sh: $(cat "$d/err")"

bench/machine/report.sh --out="$d/r.md" "$r" >/dev/null || fail "report.sh failed"
grep -qxF '| flood |  | 3 | 6 | 1 |' "$d/r.md" || fail "frozen table: $(grep '^| flood' "$d/r.md")"
grep -qxF '| fit | 0 |  |  |  |' "$d/r.md" || fail "frozen table: $(grep '^| fit' "$d/r.md")"
grep -qxF '| flood-continue | 1 |  |  |  |' "$d/r.md" ||
	fail "frozen table: $(grep '^| flood-continue' "$d/r.md")"
[ "$(grep -m 3 -oE '^\| (flood|flood-continue|fit) \|' "$d/r.md" | tr -d '| ' |
	tr '\n' ' ')" = "flood flood-continue fit " ] || fail "scenario order: $(grep -m 3 '^| f' "$d/r.md")"
grep -qxF '| flood |  | 0.50 (3, 6) | 3.00 (3, 1) |' "$d/r.md" ||
	fail "ratio: $(grep '^| flood' "$d/r.md")"
grep -qF '| flood | oomguard | 3 | 6 | 0 | 1 | 4 | 40.0 | 1464 | - | 70.0 | ok | killed | - |' \
	"$d/r.md" || fail "cells: $(grep '^| flood | oomguard' "$d/r.md")"
grep -qF '| flood | earlyoom | 6 | 0 | 0 | 0 | 0 | >60.0 (frozen at the end) |' "$d/r.md" ||
	fail "cells: $(grep '^| flood | earlyoom' "$d/r.md")"
grep -qF '| thrash | nohang | - |' "$d/r.md" || fail "a cell without results is not listed"
grep -qxF -- '- flood: 4 wrong victims' "$d/r.md" ||
	fail "goal: $(sed -n '/^## The goal/,/^## Every/p' "$d/r.md")"
grep -qxF -- '- flood: 1 premature kills' "$d/r.md" || fail "goal: no premature line"
grep -qxF -- '- flood: 3 frozen seconds, nohang had 1' "$d/r.md" || fail "goal: no frozen line"
grep -q -- 'earlyoom had' "$d/r.md" && fail "goal: oomguard's 3 s against 6 s is no loss"
# Why: each losing scenario once, with the --why file's text, or "not explained yet".
printf '# a comment\nfit\tnot this one\nflood\tthe writers, measured\n' >"$d/why"
bench/machine/report.sh --out="$d/rw.md" --why="$d/why" "$r" >/dev/null || fail "report.sh --why"
[ "$(grep -c '^- flood: the writers, measured$' "$d/rw.md")" = 1 ] ||
	fail "why: $(sed -n '/^Why/,/^## Every/p' "$d/rw.md")"
grep -q '^- fit: not this one' "$d/rw.md" && fail "why: fit lost nothing, yet explained"
printf 'fit\tx\n' >"$d/why"
bench/machine/report.sh --out="$d/rw.md" --why="$d/why" "$r" >/dev/null || fail "report.sh --why"
grep -qxF -- '- flood: not explained yet' "$d/rw.md" ||
	fail "why, none known: $(sed -n '/^Why/,/^## Every/p' "$d/rw.md")"
bench/machine/report.sh --out="$d/rw.md" --why="$d/nowhy" "$r" >/dev/null 2>"$d/err" &&
	fail "report.sh --why=MISSING: want an error"
grep -q "cannot read the --why file $d/nowhy" "$d/err" || fail "report.sh --why: $(cat "$d/err")"

# Repeats: the flood's oomguard cell again in two more run dirs (0 and 8 frozen seconds, one
# more premature kill): the median of 3, 0 and 8 is 3; premature kills are summed; every boot
# is listed.
for rep in 2 3; do
	mkdir -p "$d/run$rep/flood"
	cp -r "$r/flood/oomguard" "$d/run$rep/flood/"
done
probe "$d/run2/flood/oomguard" 90
probe "$d/run3/flood/oomguard" 90 30:2000 31:2000 32:2000 33:2000 34:2000 35:2000 36:2000 37:2000
bench/machine/report.sh --out="$d/r3.md" "$r" "$d/run2" "$d/run3" >/dev/null ||
	fail "report.sh failed on repeats"
grep -qxF '| flood |  | 3 (0-8, n=3) | 6 | 1 |' "$d/r3.md" ||
	fail "frozen table of repeats: $(grep '^| flood |' "$d/r3.md")"
grep -qxF -- '- flood: 3 premature kills' "$d/r3.md" || fail "goal of repeats: premature not summed"
[ "$(grep -c '^| flood | oomguard |' "$d/r3.md")" = 3 ] || fail "every cell: not each boot"
grep -qxF '| flood |  | 0.50 (3, 6) | 3.00 (3, 1) |' "$d/r3.md" ||
	fail "ratio of repeats: $(grep '^| flood |' "$d/r3.md" | sed -n 2p)"
exit 0
