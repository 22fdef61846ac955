#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/thrash-grid.sh --rejudge on hand-made cells: a thrash killed 1.5 s after its first pass
# is caught; a cell whose workload exited with status 1 (its file could not be opened, as
# earlyoom's and nohang's cells did when --out was relative) is "error", whether a thrash cell
# (it was "none") or a cell that must not be caught (it was "ok": a pass for a cell that ran
# nothing); the report counts them as not judged. A thrash cell of a daemon whose workload the
# kernel's own memcg OOM killer took in its first pass (the group's oom_kill count) is "kernel"
# (it was "early", a false kill the daemon never made), counted as kernel first. Needs the blkio
# controller and the tools. Called from the run's directory with relative paths, which name
# files from there (they were taken from the tree's top). A run of some cells (--only) writes
# its report beside its results. A run with CPU hogs beside (busy N in its meta) says so in its
# report.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
d=$(mktemp -d -p "$PWD/build" thrash-grid-judge.XXXXXX)
trap 'rm -rf "$d"' EXIT
printf '%s\n' "profile full" "kernel test" "date test" "contenders oomguard earlyoom nohang" \
	"readahead_kb 128" "oomguard_build abc1234-test" >"$d/meta"
echo "kind rate over anon mode contender limit_mib file_mib anon_mib onset_ms kill_ms outcome" \
	"died_ms" | tr ' ' '\t' >"$d/results.tsv"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t64\t48\t48\t-\t-\t-\t-\n' "$@" >>"$d/results.tsv"; }
cell() { mkdir -p "$d/$1/$2" && cat >"$d/$1/$2/events.log"; }

row thrash 4 50 50 read oomguard
cell thrash-r4-o50-a50-read oomguard <<'EOT'
1000 start
1000 spawn w1 100
15600 exit w1 137
15700 end
EOT
echo "pass 1 t_ms=13000 real_ms=14000" >"$d/thrash-r4-o50-a50-read/oomguard/w1.out"
echo "15500000 2026-12-05T00:00:15.5Z oomguard: warning: kill scope=x pid=100" \
	>"$d/thrash-r4-o50-a50-read/oomguard/daemon.log"

row thrash 4 50 50 read earlyoom
cell thrash-r4-o50-a50-read earlyoom <<'EOT'
1000 start
1000 spawn w1 101
1060 exit w1 1
1080 end
EOT
echo "thrasher: open build/x/files/f: No such file or directory" \
	>"$d/thrash-r4-o50-a50-read/earlyoom/w1.out"

row stream 4 0 50 read nohang
cell stream-r4-o0-a50-read nohang <<'EOT'
1000 start
1000 spawn w1 102
1050 exit w1 1
1070 end
EOT

row thrash 4 200 50 mmap nohang
cell thrash-r4-o200-a50-mmap nohang <<'EOT'
1000 start
1000 spawn w1 103
9400 exit w1 137
9420 end
EOT
echo 1 >"$d/thrash-r4-o200-a50-mmap/nohang/kernel_kills"

# the same after the onset: the kernel's kill, not the daemon's late one
row thrash 4 50 50 mmap oomguard
cell thrash-r4-o50-a50-mmap oomguard <<'EOT'
1000 start
1000 spawn w1 104
17600 exit w1 137
17700 end
EOT
echo "pass 1 t_ms=13000 real_ms=14000" >"$d/thrash-r4-o50-a50-mmap/oomguard/w1.out"
echo 1 >"$d/thrash-r4-o50-a50-mmap/oomguard/kernel_kills"

# SIGTERM, earlyoom's and nohang's first signal, is caught by the tools, which exit 0 and say
# "stopped signal=15": a kill all the same (these cells were "none" and "ok", and every kill by
# SIGTERM went unseen). A tool that ended on its own (a stream's one pass) says nothing of the
# kind: no kill.
row thrash 16 10 90 mmap earlyoom
cell thrash-r16-o10-a90-mmap earlyoom <<'EOT'
1000 start
1000 spawn w1 105
4300 exit w1 0
4320 end
EOT
printf '%s\n' "ready anon_kib=952320 file_kib=65536" "done read_mib=1 passes=0" \
	"stopped signal=15" >"$d/thrash-r16-o10-a90-mmap/earlyoom/w1.out"
row stream 0 0 90 mmap nohang
cell stream-r0-o0-a90-mmap nohang <<'EOT'
1000 start
1000 spawn w1 106
1200 spawn w2 107
3000 exit w1 0
3100 exit w2 0
3200 end
EOT
printf '%s\n' "ready size_kib=117760" "stopped signal=15" >"$d/stream-r0-o0-a90-mmap/nohang/w1.out"
row stream 0 0 90 read earlyoom
cell stream-r0-o0-a90-read earlyoom <<'EOT'
1000 start
1000 spawn w1 108
1200 spawn w2 109
3100 exit w2 0
9000 end
EOT
printf '%s\n' "pass 1 t_ms=1900 real_ms=2900" "done read_mib=1280 passes=1" \
	>"$d/stream-r0-o0-a90-read/earlyoom/w2.out"

# from the run's directory, by relative paths: they name files from where the script is called
out=$(cd "$d" && "$OLDPWD/bench/thrash-grid.sh" --rejudge . --report r.md 2>&1)
rc=$?
[ $rc = 77 ] && { echo "SKIP: no blkio controller: $out"; exit 77; }
[ $rc = 0 ] || fail "thrash-grid.sh --rejudge exited $rc: $out"
# got KIND CONTENDER [MODE] -> "onset kill outcome died" of its row (MODE: read by default)
got() {
	awk -F'\t' -v k="$1" -v w="$2" -v m="${3:-read}" \
		'$1 == k && $6 == w && $5 == m { print $10, $11, $12, $13 }' "$d/results.tsv"
}
# want EXPECTED WHAT KIND CONTENDER [MODE]: that row's judgement, or a failure naming WHAT
want() {
	local exp=$1 what=$2 g
	shift 2
	g=$(got "$@")
	[ "$g" = "$exp" ] || fail "$what: got '$g'"
}
want "13000 14500 caught 14600" "caught thrash" thrash oomguard
want "- - error -" "thrash whose workload failed" thrash earlyoom
want "- - error -" "stream whose workload failed" stream nohang
want "- 8400 kernel 8400" "thrash cell the kernel's killer took" thrash nohang mmap
want "13000 16600 kernel 16600" "thrash cell the kernel's killer took after the onset" \
	thrash oomguard mmap
grep -q '^| nohang | 1 | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | - | - |$' "$d/r.md" ||
	fail "report: nohang's cell not counted as kernel first: $(grep '^| nohang |' "$d/r.md")"
grep -q '^| earlyoom | 2 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | - | - |$' "$d/r.md" ||
	fail "report: earlyoom's cells not counted as early and not judged: $(grep '^| earlyoom |' \
		"$d/r.md")"
want "- 3300 early 3300" "thrash stopped by SIGTERM in its first pass" thrash earlyoom mmap
want "- 2000 false 2000" "stream whose anon holder was stopped by SIGTERM" stream nohang mmap
want "- - ok -" "stream that ended on its own" stream earlyoom
grep -q 'disk read-ahead 128 KiB, oomguard abc1234-test\. Raw results' "$d/r.md" ||
	fail "report: the header does not name oomguard's build: $(sed -n 3,4p "$d/r.md")"
head -n 1 "$d/r.md" | grep -q '^# The thrash grid$' ||
	fail "report of an idle host: title $(head -n 1 "$d/r.md")"
# a run beside CPU hogs (--busy) says so, in its title and its header
echo "busy 2" >>"$d/meta"
bench/thrash-report.sh "$d" "$d/busy.md" || fail "thrash-report.sh of a busy run"
head -n 1 "$d/busy.md" | grep -q '^# The thrash grid, on a busy host$' ||
	fail "report of a busy host: title $(head -n 1 "$d/busy.md")"
grep -q 'oomguard abc1234-test, \*\*2 CPU hogs beside every cell\*\*\. Raw results' "$d/busy.md" ||
	fail "report of a busy host: header $(sed -n 3,4p "$d/busy.md")"
# a resumed run (--resume) adds one line to the run's header; the report keeps the first build
echo "resumed 2026-12-06T09:00Z, oomguard def5678-test" >>"$d/meta"
bench/thrash-report.sh "$d" "$d/resumed.md" || fail "thrash-report.sh of a resumed run"
grep -q 'oomguard abc1234-test, \*\*2 CPU hogs' "$d/resumed.md" ||
	fail "report of a resumed run: header $(sed -n 3,4p "$d/resumed.md")"
grep -q '^Resumed 2026-12-06T09:00Z, oomguard def5678-test\.$' "$d/resumed.md" ||
	fail "report of a resumed run: no line for the resume"
grep -q '^| stream 4MiB/s anon50% read | - | - | error |$' "$d/r.md" ||
	fail "report: the stream cell: $(grep '^| stream' "$d/r.md")"
# a run of some cells (--only) without --report writes its report beside its results, not over
# the tree's docs/bench-thrash.md (it did)
before=$(git hash-object docs/bench-thrash.md)
out=$(cd "$d" && "$OLDPWD/bench/thrash-grid.sh" --rejudge . --only '^thrash' 2>&1) ||
	fail "thrash-grid.sh --rejudge --only: $out"
[ -s "$d/report.md" ] || fail "--only without --report: no report.md beside the results"
[ "$(git hash-object docs/bench-thrash.md)" = "$before" ] ||
	fail "--only without --report rewrote docs/bench-thrash.md (git checkout it)"
exit 0
