#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Writes the bench report from one bench/run.sh output directory: a markdown file with the medians
# and quartiles of every figure per scenario and contender, and gnuplot plots (memory over time
# with kill marks, time to kill, time to free) in a folder beside it.
# Usage: bench/report.sh OUTDIR [REPORT.md]    (default docs/bench.md, plots in docs/bench/)
# Lines "note TEXT" in OUTDIR/meta (added by hand: how the run was made, when that is not what
# the report says by itself) come out as paragraphs under the report's first one.
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1 report=${2:-docs/bench.md}
plots=${report%.md}
rel=$(basename "$plots")
mkdir -p "$plots"
results=$out/results.tsv
meta() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$out/meta"; }
profile=$(meta profile)

# A run is failed when its result has a "failed" or "error" line (the daemon did not come up,
# saw another machine, died; the workload's events are missing); its figures stay out of the
# statistics, and each table counts it.
awk -F'\t' '$4 == "failed" || $4 == "error" { print $1 "\t" $2 "\t" $3 "\t" $4 " " $5 }' "$results" |
	sort -u >"$out/failed.tsv"
# stats.tsv: "scen who key median q1 q3 min max n sum" over the runs that did not fail; "none"
# (no event before the time limit) sorts above every number, and a statistic that falls on it is
# "none". Quartiles interpolate between the two nearest ranks.
bench/report-stats.sh "$results" "$out/failed.tsv" >"$out/stats.tsv"

stat() { awk -F'\t' -v s="$1" -v w="$2" -v k="$3" -v c="$4" \
	'$1 == s && $2 == w && $3 == k { print $c }' "$out/stats.tsv"; }
# other_load: the runs in which processes outside the bench used the CPU (bench/other-cpu.py):
# the bench's claim of an otherwise idle machine, per run.
OTHER_LOAD_S=1.0
other_load() {
	local n
	n=$(awk -F'\t' '$4 == "other_cpu_s"' "$results" | wc -l)
	if [ "$n" = 0 ]; then
		echo "Not measured in this bench (its runs predate the measure)."
		return
	fi
	echo "CPU seconds used during each run outside the bench (bench/other-cpu.py): \"other\", the"
	echo "root cpuacct group's time less the bench's group and the kernel threads alive at both ends;"
	echo "\"of it user\", the root group's user time less the bench's. The first also counts kernel"
	echo "workers that ended during the run, and the bench's own writeback and block I/O ends that"
	echo "way (several CPU s a minute in a fit run with nothing else running); the second is what a"
	echo "build or a test beside the bench would show (mostly user time), and kernel threads have"
	echo "none. Recorded from the runs made after 2026-12-05T13:00Z (blank before)."
	if [ -s "$out/rerun" ]; then
		echo
		echo "$(grep -vc '^#' "$out/rerun") results were set aside and their runs made again"
		echo "(a run named twice, twice), because other load took more than 1 CPU s and more than"
		echo "1 % of the two CPUs over the run (user time, where measured; else all of it):"
		echo "$(grep -v '^#' "$out/rerun" |
			awk '{ printf "%s%s %s %s (%s s)", (NR > 1 ? ", " : ""), $1, $2, $3, $4 }')."
	fi
	echo
	awk -F'\t' -v lim="$OTHER_LOAD_S" '$4 == "other_cpu_s" { n++; sum += $5
			if ($5 + 0 > max) max = $5 + 0; if ($5 + 0 >= lim) over++ }
		$4 == "other_user_s" { un++; usum += $5; if ($5 + 0 > umax) umax = $5 + 0 }
		END { printf "%d runs: %d with %.1f CPU s or more of other load; the largest %.2f s, the mean %.2f s",
			n, over, lim, max, n ? sum / n : 0
			if (un) printf "; of it user, in %d runs: the largest %.2f s, the mean %.2f s",
				un, umax, usum / un
			print "."
			exit !over }' "$results" || return 0
	printf '\n| scenario | contender | run | other CPU (s) | of it user (s) | largest other processes |\n'
	echo "|---|---|---|---|---|---|"
	awk -F'\t' -v lim="$OTHER_LOAD_S" '$4 == "other_cpu_s" && $5 + 0 >= lim { v[$1 "|" $2 "|" $3] = $5 }
		$4 == "other_user_s" { u[$1 "|" $2 "|" $3] = $5 }
		$4 == "other_top" { top[$1 "|" $2 "|" $3] = $5 }
		END { for (k in v) { split(k, f, "|")
			printf "| %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], v[k], u[k], top[k] } }' \
		"$results" | sort -t'|' -k2,2 -k3,3 -k4n
}

runs_of() { # SCEN WHO: "ok/failed"
	local ok fail
	ok=$(awk -F'\t' -v s="$1" -v w="$2" '$1 == s && $2 == w { r[$3] = 1 }
		END { print length(r) }' "$results")
	fail=$(awk -F'\t' -v s="$1" -v w="$2" '$1 == s && $2 == w' "$out/failed.tsv" | wc -l)
	echo "$((ok - fail))/$fail"
}
fmt() {
	local v=$1 lim=${2:-}
	case $v in
	"") echo "-" ;;
	none) echo "none${lim:+ (> $lim s)}" ;;
	*) awk -v x="$v" 'BEGIN { if (x == int(x)) printf "%d", x; else printf "%.2f", x }' ;;
	esac
}
# cell SCEN WHO KEY KIND LIMIT: "median [q1-q3]" (KIND med) or "sum of n" (KIND sum).
cell() {
	local m q1 q3
	if [ "$4" = sum ]; then
		m=$(stat "$1" "$2" "$3" 10)
		[ -z "$m" ] && { echo "-"; return; }
		echo "$m of $(stat "$1" "$2" "$3" 9)"
		return
	fi
	m=$(stat "$1" "$2" "$3" 4)
	[ -z "$m" ] && { echo "-"; return; }
	q1=$(stat "$1" "$2" "$3" 5) q3=$(stat "$1" "$2" "$3" 6)
	if [ "$q1" = "$q3" ] && [ "$q1" = "$m" ]; then
		fmt "$m" "$5"
	else
		echo "$(fmt "$m" "$5") [$(fmt "$q1")–$(fmt "$q3")]"
	fi
}

mapfile -t who_all < <(awk '$1 == "contender" && !seen[$2]++ { print $2 }' "$out/meta")
mapfile -t who_ok < <(awk '$1 == "contender" && $3 == "ok" && !seen[$2]++ { print $2 }' "$out/meta")

# flood_best: the eaters the optimum keeps (bench/analyze.sh's optimum_survivors).
flood_best() {
	local b=$((($(meta FLOOD_LIMIT_KIB) - $(meta FLOOD_RESERVE_KIB)) / $(meta FLOOD_EATER_KIB)))
	[ "$b" -gt "$(meta FLOOD_N)" ] && b=$(meta FLOOD_N)
	echo "$b"
}

# table SCEN "key:title:better:kind:limit_s" ...: one row per contender. better: lower or
# higher (shown as ↓ or ↑ after the title), or - for a figure that only describes the run;
# kind: med (median [quartiles]) or sum (k of n).
table() {
	local scen=$1 spec w row key title better kind lim
	shift
	row="| contender | runs ok/failed |"
	for spec in "$@"; do
		IFS=: read -r key title better kind lim <<<"$spec"
		case $better in
		lower) row+=" $title ↓ |" ;;
		higher) row+=" $title ↑ |" ;;
		*) row+=" $title |" ;;
		esac
	done
	echo "$row"
	echo "|---|---|$(printf -- '---|%.0s' "$@")"
	for w in "${who_all[@]}"; do
		if ! printf '%s\n' "${who_ok[@]}" | grep -qx "$w"; then
			echo "| $w | not available: $(awk -v w="$w" '$1 == "contender" && $2 == w { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$out/meta") |"
			continue
		fi
		awk -F'\t' -v s="$scen" -v w="$w" '$1 == s && $2 == w { f = 1 } END { exit !f }' \
			"$results" || continue
		row="| $w | $(runs_of "$scen" "$w") |"
		for spec in "$@"; do
			IFS=: read -r key title better kind lim <<<"$spec"
			row+=" $(cell "$scen" "$w" "$key" "${kind:-med}" "$lim") |"
		done
		echo "$row"
	done
	echo
	echo "Median [first–third quartile] over the runs that did not fail; ↓: lower is better,"
	echo "↑: higher is better, no arrow: it describes the run."
}

# priority SCEN KEY TITLE: what priority changes, beside what separates oomguard from the others.
priority() {
	local scen=$1 key=$2 title=$3 w m og nort
	og=$(stat "$scen" oomguard "$key" 4) nort=$(stat "$scen" oomguard-nort "$key" 4)
	[ -n "$og" ] && [ -n "$nort" ] || return 0
	echo "| $title |$(for w in oomguard oomguard-nort earlyoom earlyoom-p nohang nohang-rt; do
		printf ' %s |' "$(fmt "$(stat "$scen" "$w" "$key" 4)")"; done) $(
		for w in earlyoom nohang; do
			m=$(stat "$scen" "$w" "$key" 4)
			awk -v a="$og" -v b="$nort" -v c="$m" -v w="$w" 'BEGIN {
				if (a == "none" || b == "none" || c == "none" || c == "") { printf "%s: -", w; exit }
				lead = c - a; prio = b - a
				if (lead <= 0) { printf "%s: no lead", w; exit }
				printf "%s: %.0f %%", w, 100 * prio / lead }'
			[ "$w" = earlyoom ] && printf '; '
		done) |"
}

# --- plots ---------------------------------------------------------------------------------
# Flood, run 1 of each contender: the cgroup's usage, anon and page cache over time, kills marked.
flood_plot() {
	local w d t0 n=0 cmds=()
	for w in "${who_ok[@]}"; do
		d=$out/flood/$w/run1
		[ -f "$d/monitor.log" ] || continue
		t0=$(awk '$2 == "flood_start" { print $1; exit }' "$d/events.log")
		[ -z "$t0" ] && continue
		awk -v t0="$t0" '$1 == "S" { printf "%.3f %.1f %.1f %.1f\n", ($2 - t0) / 1000, $3 / 1024, $9 / 1024, $8 / 1024 }' \
			"$d/monitor.log" >"$out/flood-$w.dat"
		awk -F'\t' 'NR > 1 { printf "%.3f %.1f\n", $1 / 1000, $4 / 1024 }' "$d/kills.tsv" >"$out/flood-$w-kills.dat"
		n=$((n + 1))
		cmds+=("set title '$w'; plot '$out/flood-$w.dat' u 1:2 w l lw 2 t 'usage', '' u 1:3 w l t 'anon (rss)', '' u 1:4 w l t 'page cache', '$out/flood-$w-kills.dat' u 1:2 w p pt 7 ps 0.6 lc rgb 'red' t 'kill'")
	done
	[ "$n" -eq 0 ] && return
	{
		echo "set terminal pngcairo size 900,$((260 * n)) font ',9'"
		echo "set output '$plots/flood-memory.png'"
		echo "set multiplot layout $n,1"
		echo "set xlabel 's since the eaters started'; set ylabel 'MiB'; set key outside right"
		echo "set xrange [-1:*]; set yrange [0:*]"
		printf '%s\n' "${cmds[@]}"
		echo "unset multiplot"
	} | gnuplot
}

# bars SCEN KEY FILE TITLE YLABEL: each run's value per contender; "none" drawn at the time limit.
bars() {
	local scen=$1 key=$2 file=$3 title=$4 ylabel=$5 cap=$6 i=0 w
	: >"$out/$file.dat"
	for w in "${who_ok[@]}"; do
		awk -F'\t' -v s="$scen" -v w="$w" -v k="$key" -v i="$i" -v cap="$cap" \
			'$1 == s && $2 == w && $4 == k { v = ($5 == "none") ? cap : $5; print i, v, "\"" w "\"" }' \
			"$results" >>"$out/$file.dat"
		i=$((i + 1))
	done
	[ -s "$out/$file.dat" ] || return
	gnuplot <<EOG
set terminal pngcairo size 800,400 font ',9'
set output '$plots/$file.png'
set title "$title"
set ylabel "$ylabel"
set yrange [0:*]
set xrange [-0.5:$((i - 1)).5]
set style fill solid 0.5
set boxwidth 0.5
set grid y
set xtics rotate by -30
$([ "$cap" -gt 0 ] && echo "set label \"each point is one run; runs without an event are drawn at the limit ($cap s)\" at graph 0.02, graph 0.95")
plot '$out/$file.dat' u 1:2:xtic(3) w p pt 7 ps 1.2 notitle
EOG
}

flood_plot
bars thrash time_to_kill_s thrash-time-to-kill "thrash: time from the start of thrashing to the kill" "s" \
	"$(($(meta THRASH_MAX_MS) / 1000))"
bars stuck time_to_free_s stuck-time-to-free "stuck victim: time from the limit to memory freed" "s" \
	"$(($(meta STUCK_MAX_MS) / 1000))"
bars flood time_to_last_kill_s flood-time-to-last-kill "flood: time from the eaters' start to the last kill" "s" 0

mib() { echo $(($(meta "$1") / 1024)); }
# has SCEN: the run has figures for SCEN (a report covers only the scenarios that ran).
has() { awk -F'\t' -v s="$1" '$1 == s { f = 1; exit } END { exit !f }' "$results"; }
{
	cat <<EOF
# oomguard bench: the cover letter's scenarios on the real kernel

Generated by \`bench/run.sh\` (\`make bench\`) and \`bench/report.sh\`; do not edit by hand.
Profile **$profile**, $(meta runs) runs per scenario and contender, all runs in one shuffled order
(seed $(meta seed)). Kernel $(meta kernel), $(meta cpus) CPUs, $(meta date). earlyoom $(meta earlyoom),
nohang $(meta nohang), lxcfs $(meta lxcfs) (Debian packages).$(
# shellcheck disable=SC2016 # the backquotes are markdown
[ -n "$(meta reanalyzed)" ] && printf '\nThe runs'"'"' logs analysed again (`bench/run.sh --reanalyze`): %s.' "$(meta reanalyzed)")
$(awk '$1 == "note" { $1 = ""; sub(/^ /, ""); print ""; print }' "$out/meta")

Every run is a fresh cgroup v1 memory group \`oomguard-test-bench-*\` with a limit and no swap.
The scenario driver, the 50 ms monitor, the bystander probe and every daemon run outside the
workload's memory, blkio and PSI groups; each daemon runs in a memory group of its own.
earlyoom and nohang see the workload group as their machine: they run in a PID namespace whose
first process (a sleeper, pid 1 there) is in the workload group, and lxcfs answers
\`/proc/meminfo\` from the group of a namespace's first process; their \`/proc\` lists the
workload only. Before each of their runs the bench reads \`/proc/meminfo\` in the namespace and
requires MemTotal = the limit and SwapTotal = 0; every daemon must print its ready line within
10 s (no fixed sleep) and be alive at the end of the run. A run that fails any of this is
counted under "failed" and kept out of the figures.

To rerun: \`make bench\` (this size) or \`bench/run.sh --full\` (the cover letter's sizes);
\`bench/run.sh --help\` for the options. Raw logs stay in \`build/bench/\`.
$(missing=""; for sc in flood fit thrash stuck; do has "$sc" || missing+=" $sc"; done
	[ -n "$missing" ] && printf '\n**Not run for this report:**%s (see the commit that wrote it).\n' "$missing")

## Contenders
Each with the command it ran (\`{memcg}\`: the workload's group):

$(awk '$1 == "contender" && !seen[$2]++ { w = $2; st = $3; $1 = $2 = $3 = ""; sub(/^ +/, ""); sub(/ +$/, "")
	if (st == "ok") print "- " w ": `" $0 "`"; else print "- " w ": **not available**: " $0 }' "$out/meta")

- kernel: the group's own OOM killer, nothing else.
- oomguard: as shipped (its loop and reaper run SCHED_FIFO); oomguard-nort: \`--no-realtime\`,
  the same at normal priority; oomguard-ockd: with the group's \`oom_kill_disable\` set.
- earlyoom: Debian's options (\`/etc/default/earlyoom\`; its thresholds by default: SIGTERM at
  10 % available, SIGKILL at 5 %); earlyoom-p: with \`-p\` (nice -20), its own priority option;
  earlyoom-m1: \`-m 1\` (SIGTERM at 1 %, SIGKILL at 0.5 %).
- nohang: Debian's unit and config (SIGTERM at 5 % available, SIGKILL at 2 %); nohang-rt: the
  same under \`chrt --rr 1\` (the unit's commented-out CPUSchedulingPolicy=rr, priority 1);
  nohang-1pct: the packaged config at SIGTERM 1 %, SIGKILL 0.5 %, earlyoom-m1's thresholds.

The -m1 and -1pct rows put the thresholds near oomguard's reserve (1 % of the limit), so that
what comes from a threshold and what from the design can be told apart.

EOF
	has flood && cat <<EOF
## 1. Flood
2 writers (4 MiB blocks, $(mib WRITER_SIZE_KIB) MiB files, removed and rewritten) for $(meta WARMUP_S) s, then
$(meta FLOOD_N) eaters of $(mib FLOOD_EATER_KIB) MiB at once in a $(mib FLOOD_LIMIT_KIB) MiB group. Settled when every
surviving eater holds its memory and nothing died for $(($(meta FLOOD_SETTLE_MS) / 1000)) s.

- excess kills: kills beyond the optimum. The optimum keeps as many eaters as fit in the limit
  beside $(mib FLOOD_RESERVE_KIB) MiB for the writers' buffers and page tables ($(flood_best) here).
  Kills: eaters and writers killed; kernel kills: the group's \`oom_kill\` count.
- time to last kill: from the eaters' start. Stall: the group's memory "full" pressure (its
  cgroup v2 twin's memory.pressure).
- unused: the limit minus what the surviving eaters hold. Never started: eaters that could not
  even enter the full group (ENOMEM under oom_kill_disable); not counted as kills.
- probe p99 / max: how late the bystander (outside the group, normal priority, woken every
  100 ms) woke, 99th percentile and worst, in ms: what the rest of the machine pays.

$(table flood excess_kills:'excess kills':lower kills:kills:- failed_to_start:'never started':lower \
	kernel_kills:'kernel kills':- time_to_last_kill_s:'time to last kill (s)':lower \
	stall_s:'full stall (s)':lower survivors:survivors:higher unused_mib:'unused (MiB)':lower \
	probe_p99_ms:'probe p99 (ms)':lower probe_max_ms:'probe max (ms)':lower)

![flood memory](${rel}/flood-memory.png)

![flood time to last kill](${rel}/flood-time-to-last-kill.png)

EOF
	has fit && cat <<EOF
## 2. Fit
2 writers for $(meta WARMUP_S) s, then 10 eaters of one size in a $(mib FIT_LIMIT_KIB) MiB group; the size is
bisected ($(meta FIT_STEPS) probes per run, each probe a fresh group) for the largest at which all 10 survive
$(($(meta FIT_HOLD_MS) / 1000)) s. Margin: the limit minus 10 eaters of that size, the memory a contender leaves
unused. A run fails when any of its probes does.

$(table fit max_eater_mib:'largest eater (MiB)':higher margin_mib:'margin to the limit (MiB)':lower)

EOF
	has thrash && cat <<EOF
## 3. Thrash
$(mib THRASH_ANON_KIB) MiB of anonymous memory plus a $(mib THRASH_FILE_KIB) MiB file reread in a loop, in a
$(mib THRASH_LIMIT_KIB) MiB group whose disk reads are throttled to $(($(meta THRASH_READ_BPS) / 1048576)) MiB/s (blkio): the file never fits,
every pass rereads it from the disk. Thrashing starts when the first pass ends (the thrasher's
"pass 1" line): the first pass is cold reads at the disk's rate ("cold pass", from the task's
start). Time to kill: from the start of thrashing (none: not killed within $(($(meta THRASH_MAX_MS) / 1000)) s of the
task's start). A kill during the cold pass counts in "killed before thrashing" (runs of n).
Read rate: the thrasher's median after its first pass. One disk speed and one overcommit: the
thrash grid (\`bench/thrash-grid.sh\`) covers the others.

$(table thrash time_to_kill_s:'time to kill (s)':lower:med:$(($(meta THRASH_MAX_MS) / 1000)) \
	killed_before_thrashing:'killed before thrashing':lower:sum cold_pass_s:'cold pass (s)':- \
	rate_mib_s:'read rate (MiB/s)':higher kernel_kills:'kernel kills':- \
	stall_s:'full stall (s)':lower probe_p99_ms:'probe p99 (ms)':lower \
	probe_max_ms:'probe max (ms)':lower)

![thrash time to kill](${rel}/thrash-time-to-kill.png)

EOF
	has stuck && cat <<EOF
## 4. Stuck victim
An eater of $(mib STUCK_VICTIM_KIB) MiB is frozen (cgroup freezer: it cannot run, so it cannot exit), then a second of
$(mib STUCK_SECOND_KIB) MiB starts in the $(mib STUCK_LIMIT_KIB) MiB group. Time from the group reaching its limit
(failcnt moves) until the second eater has all its memory: only reaping the frozen victim's memory
(the kernel's OOM reaper, process_mrelease) frees it (none: not within $(($(meta STUCK_MAX_MS) / 1000)) s).

$(table stuck time_to_free_s:'time to free (s)':lower:med:$(($(meta STUCK_MAX_MS) / 1000)) \
	kernel_kills:'kernel kills':- probe_p99_ms:'probe p99 (ms)':lower \
	probe_max_ms:'probe max (ms)':lower)

![stuck time to free](${rel}/stuck-time-to-free.png)

EOF
	cat <<EOF
## Priority
Medians as shipped and at the other priority: oomguard and oomguard-nort (\`--no-realtime\`),
earlyoom and earlyoom-p (\`-p\`), nohang and nohang-rt (\`chrt --rr 1\`). The last column: the
share of oomguard's lead over earlyoom and over nohang (their median less oomguard's) that
oomguard gives up at normal priority (oomguard-nort's median less oomguard's); over 100 %:
at normal priority oomguard is behind; "no lead": oomguard as shipped is not ahead.

| figure | oomguard | oomguard-nort | earlyoom | earlyoom-p | nohang | nohang-rt | lead lost at normal priority |
|---|---|---|---|---|---|---|---|
$(priority flood time_to_last_kill_s 'flood: time to last kill (s) ↓'
	priority flood excess_kills 'flood: excess kills ↓'
	priority flood probe_p99_ms 'flood: probe p99 (ms) ↓'
	priority thrash time_to_kill_s 'thrash: time to kill (s) ↓'
	priority thrash probe_p99_ms 'thrash: probe p99 (ms) ↓'
	priority stuck time_to_free_s 'stuck: time to free (s) ↓'
	priority stuck probe_p99_ms 'stuck: probe p99 (ms) ↓')

## Failed runs
$(if [ -s "$out/failed.tsv" ]; then
		awk -F'\t' '{ print "- " $1 " " $2 " run " $3 ": " $4 }' "$out/failed.tsv"
	else
		echo "None."
	fi)

## Other load
$(other_load)

## Notes
- No ratios: with medians near 0 (stalls, kills) or "none", a ratio says nothing; medians and
  quartiles stand side by side instead.
- The machine has $(meta cpus) CPUs and is a VM: times spread between runs; the quartiles and the
  per-run points in the plots show how much.
- Stuck victim: a frozen task stays frozen after SIGKILL, yet its memory can be freed: a task
  with SIGKILL pending counts as exiting for the group's OOM path, which then hands it to the
  kernel's OOM reaper without a new kill (the \`oom_kill\` count does not move). So a contender that
  only sends SIGKILL gets the kernel's reaping once the group hits its limit again.
- earlyoom's and nohang's reads of \`/proc/meminfo\` go through lxcfs (FUSE): each costs a
  round trip to the lxcfs process, which runs outside every group at normal priority. That is
  the price of running them on a group; oomguard reads the group's files directly.
- No contender could lower its own oom_score_adj here (root in this VM lacks CAP_SYS_RESOURCE:
  oomguard and earlyoom -p log it and go on); each daemon runs outside the workload's group, so
  the group's OOM killer cannot pick it anyway.
- The sampling interval is 50 ms: a task started and killed within one interval is counted
  (the driver sees it die) but has no memory.stat line.
- Raw per-run logs (events, 50 ms samples, memory.stat at each kill in kills.tsv, the probe's
  wake-ups, the daemon's log and command line, the namespace's view) are in
  \`$(realpath --relative-to="$PWD" "$out" 2>/dev/null || echo "$out")\` after a run.
EOF
} >"$report"
echo "report: $report (plots in $plots/)"
