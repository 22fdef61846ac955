#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Writes the bench report from one bench/run.sh output directory: a markdown file with the medians
# of every figure per scenario and contender, oomguard's ratios against each other contender, and
# gnuplot plots (memory over time with kill marks, time to kill, time to free) in a folder beside it.
# Usage: bench/report.sh OUTDIR [REPORT.md]    (default docs/bench.md, plots in docs/bench/)
set -u
cd "$(dirname "$0")/.." || exit 1
out=$1 report=${2:-docs/bench.md}
plots=${report%.md}
rel=$(basename "$plots")
mkdir -p "$plots"
results=$out/results.tsv
meta() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$out/meta"; }
profile=$(meta profile)

# medians: "scen who key median n" for every figure; "none" (no event before the time limit)
# sorts above every number, so a median of "none" means most runs saw nothing.
awk -F'\t' '{ k = $1 "\t" $2 "\t" $4; v[k] = v[k] " " $5 }
	END {
		for (k in v) {
			n = split(substr(v[k], 2), a, " ")
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
				x = (a[i] == "none") ? 1e18 : a[i] + 0; y = (a[j] == "none") ? 1e18 : a[j] + 0
				if (y < x) { t = a[i]; a[i] = a[j]; a[j] = t }
			}
			if (n % 2) m = a[(n + 1) / 2]
			else if (a[n / 2] == "none" || a[n / 2 + 1] == "none") m = "none"
			else m = (a[n / 2] + a[n / 2 + 1]) / 2
			print k "\t" m "\t" n
		}
	}' "$results" | sort >"$out/medians.tsv"

med() { awk -F'\t' -v s="$1" -v w="$2" -v k="$3" '$1 == s && $2 == w && $3 == k { print $4 }' \
	"$out/medians.tsv"; }
fmt() {
	local v=$1 lim=${2:-}
	case $v in
	"") echo "-" ;;
	none) echo "none${lim:+ (> $lim s)}" ;;
	*) awk -v x="$v" 'BEGIN { if (x == int(x)) printf "%d", x; else printf "%.2f", x }' ;;
	esac
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "") { print "-"; exit }
		if (a == "none" && b == "none") { print "both none"; exit }
		if (a == "none") { print "oomguard none"; exit }
		if (b == "none") { print "contender none"; exit }
		if (b + 0 == 0) { print (a + 0 == 0 ? "1 (both 0)" : "- (contender 0)"); exit }
		printf "%.2f", a / b }'
}

mapfile -t who_all < <(awk '$1 == "contender" { print $2 }' "$out/meta")
mapfile -t who_ok < <(awk '$1 == "contender" && $3 == "ok" { print $2 }' "$out/meta")
has_oomguard=0
for w in "${who_ok[@]}"; do [[ $w == oomguard* ]] && has_oomguard=1; done

# table SCEN "key:title:limit_s" ...: one row per contender, medians of each figure.
table() {
	local scen=$1 spec w row key title lim
	shift
	row="| contender |"
	for spec in "$@"; do
		IFS=: read -r key title lim <<<"$spec"
		row+=" $title |"
	done
	echo "$row"
	echo "|---|$(printf -- '---|%.0s' "$@")"
	for w in "${who_all[@]}"; do
		if ! printf '%s\n' "${who_ok[@]}" | grep -qx "$w"; then
			echo "| $w | not available: $(awk -v w="$w" '$1 == "contender" && $2 == w { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$out/meta") |"
			continue
		fi
		row="| $w |"
		for spec in "$@"; do
			IFS=: read -r key title lim <<<"$spec"
			row+=" $(fmt "$(med "$scen" "$w" "$key")" "$lim") |"
		done
		echo "$row"
	done
	if [ "$has_oomguard" = 1 ]; then
		echo
		echo "oomguard's ratio (oomguard's median / the contender's median):"
		echo
		echo "| oomguard vs | $(for spec in "$@"; do IFS=: read -r key title lim <<<"$spec"; printf '%s | ' "$title"; done)"
		echo "|---|$(printf -- '---|%.0s' "$@")"
		for w in "${who_ok[@]}"; do
			[ "$w" = oomguard ] && continue
			row="| $w |"
			for spec in "$@"; do
				IFS=: read -r key title lim <<<"$spec"
				row+=" $(ratio "$(med "$scen" oomguard "$key")" "$(med "$scen" "$w" "$key")") |"
			done
			echo "$row"
		done
	fi
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
Profile **$profile**, $(meta runs) runs per scenario and contender, medians shown.
Kernel $(meta kernel), $(meta cpus) CPUs, $(meta date). earlyoom $(meta earlyoom), nohang $(meta nohang),
lxcfs $(meta lxcfs) (Debian packages).

Every run is a fresh cgroup v1 memory group \`oomguard-test-bench-*\` with a limit and no swap.
earlyoom and nohang run inside the group, as users run them in a container: in a new PID namespace,
with lxcfs's \`/proc/meminfo\` bind-mounted so that they see the group as their machine, with their
Debian defaults (earlyoom: SIGTERM at 10 % available, SIGKILL at 5 %; nohang: /etc/nohang/nohang.conf).
The kernel alone is the group's own OOM killer. oomguard runs outside the group and watches it;
"oomguard-ockd" is oomguard with the group's \`oom_kill_disable\` set.

To rerun: \`make bench\` (this size) or \`bench/run.sh --full\` (the cover letter's sizes);
\`bench/run.sh --help\` for the options. Raw logs stay in \`build/bench/\`.

## Contenders
$(for w in "${who_all[@]}"; do awk -v w="$w" '$1 == "contender" && $2 == w { if ($3 == "ok") print "- " w ": ran"; else { $1 = $2 = $3 = ""; sub(/^ +/, ""); print "- " w ": **not available**: " $0 } }' "$out/meta"; done)

EOF
has flood && cat <<EOF
## 1. Flood
2 writers (4 MiB blocks, $(mib WRITER_SIZE_KIB) MiB files, removed and rewritten) for $(meta WARMUP_S) s, then
$(meta FLOOD_N) eaters of $(mib FLOOD_EATER_KIB) MiB at once in a $(mib FLOOD_LIMIT_KIB) MiB group. Settled when every
surviving eater holds its memory and nothing died for $(($(meta FLOOD_SETTLE_MS) / 1000)) s.

- kills: eaters and writers killed; kernel kills: the group's \`oom_kill\` count.
- premature: kills at which the group's free memory plus its clean page cache (memory.stat at the last
  sample before the kill, 50 ms sampling) was at least one eater's size: the demand could have been met.
- time to last kill: from the eaters' start. Stall: the group's memory "full" pressure (its cgroup v2
  twin's memory.pressure); longest stall: the longest stretch with tasks fully stalled >= half the time.
- unused: the limit minus what the surviving eaters hold. Never started: eaters that could not even
  enter the full group (a write to cgroup.procs or an exec fails with ENOMEM under oom_kill_disable);
  they are not counted as kills.

$(table flood kills:kills premature:premature failed_to_start:'never started' kernel_kills:'kernel kills' time_to_last_kill_s:'time to last kill (s)' stall_s:'full stall (s)' longest_stall_s:'longest stall (s)' survivors:survivors unused_mib:'unused (MiB)')

![flood memory](${rel}/flood-memory.png)

![flood time to last kill](${rel}/flood-time-to-last-kill.png)

EOF
has fit && cat <<EOF
## 2. Fit
2 writers for $(meta WARMUP_S) s, then 10 eaters of one size in a $(mib FIT_LIMIT_KIB) MiB group; the size is
bisected ($(meta FIT_STEPS) probes per run, each probe a fresh group) for the largest at which all 10 survive
$(($(meta FIT_HOLD_MS) / 1000)) s. Margin: the limit minus 10 eaters of that size (smaller is better: a killer that acts
late lets the workload use its memory).

$(table fit max_eater_mib:'largest eater (MiB)' margin_mib:'margin to the limit (MiB)')

EOF
has thrash && cat <<EOF
## 3. Thrash
$(mib THRASH_ANON_KIB) MiB of anonymous memory plus a $(mib THRASH_FILE_KIB) MiB file reread in a loop, in a
$(mib THRASH_LIMIT_KIB) MiB group whose disk reads are throttled to $(($(meta THRASH_READ_BPS) / 1048576)) MiB/s (blkio): the file never fits,
every pass rereads it from the disk. Thrashing starts with the first reread: the first pass is
cold reads at the disk's rate ("cold pass", from the task's start). Time from the start of
thrashing to the kill (none: not killed within $(($(meta THRASH_MAX_MS) / 1000)) s of the task's start; a kill in the cold pass
would be premature and counts as none), and the task's read rate meanwhile.

$(table thrash time_to_kill_s:'time to kill (s)':$(($(meta THRASH_MAX_MS) / 1000)) cold_pass_s:'cold pass (s)' rate_mib_s:'read rate while thrashing (MiB/s)' kernel_kills:'kernel kills' stall_s:'full stall (s)')

![thrash time to kill](${rel}/thrash-time-to-kill.png)

EOF
has stuck && cat <<EOF
## 4. Stuck victim
An eater of $(mib STUCK_VICTIM_KIB) MiB is frozen (cgroup freezer: it cannot run, so it cannot exit), then a second of
$(mib STUCK_SECOND_KIB) MiB starts in the $(mib STUCK_LIMIT_KIB) MiB group. Time from the group reaching its limit
(failcnt moves) until the second eater has all its memory: only reaping the frozen victim's memory
(the kernel's OOM reaper, process_mrelease) frees it (none: not within $(($(meta STUCK_MAX_MS) / 1000)) s).

$(table stuck time_to_free_s:'time to free (s)':$(($(meta STUCK_MAX_MS) / 1000)) kernel_kills:'kernel kills')

![stuck time to free](${rel}/stuck-time-to-free.png)

EOF
cat <<EOF
## Notes
- Medians over the runs; a median of "none" means most runs saw no kill (or no freeing) in time.
- Other work ran on the same 2-CPU machine during the bench, so times spread between runs; the
  medians and the per-run points in the plots show how much.
- Stuck victim: a frozen task stays frozen after SIGKILL, yet its memory can be freed: a task
  with SIGKILL pending counts as exiting for the group's OOM path, which then hands it to the
  kernel's OOM reaper without a new kill (the \`oom_kill\` count does not move). So a contender that
  only sends SIGKILL gets the kernel's reaping once the group hits its limit again.
- Thrash: the rereads are page-cache misses that wait on the throttled disk; see the "full stall"
  column for how much of that the group's memory pressure (PSI) counts.
- earlyoom and nohang run inside the group they guard, so their own memory is charged to it; the
  other contenders and the scenario driver run outside.
- The sampling interval is 50 ms: a task started and killed within one interval is counted
  (the driver sees it die) but has no memory.stat line.
- Raw per-run logs (events, 50 ms samples, memory.stat at each kill in kills.tsv, daemon logs) are in
  \`$(realpath --relative-to="$PWD" "$out" 2>/dev/null || echo "$out")\` after a run.
EOF
} >"$report"
echo "report: $report (plots in $plots/)"
