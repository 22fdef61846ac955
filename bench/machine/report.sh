#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The machine bench's report: each cell's figures (metrics.sh) in tables, frozen seconds per
# contender and scenario, oomguard's ratio to each contender, and plots (gnuplot: frozen seconds;
# per scenario, the probe's lateness and MemAvailable over time) beside the report.
# Usage: bench/machine/report.sh [--out=FILE] [--title=TEXT] [--why=FILE] RUNDIR...
#   RUNDIR  a directory of cells (bench/machine/run.sh --out): RUNDIR/SCENARIO[-zram]/CONTENDER/;
#           a cell in several RUNDIRs is a repeat: the tables give the median of its frozen
#           seconds (min-max, n), premature and wrong victims summed; "Every cell" lists each
#   --out   the report (default docs/bench-machine.md); plots go to FILE's name without .md/
#   --why   what is known of each scenario's losses (default bench/machine/why.txt): lines
#           "SCENARIO<TAB>TEXT"; the report gives each losing scenario's, or says it has none
set -euo pipefail
cd "$(dirname "$0")/../.."
out=docs/bench-machine.md title="" why=bench/machine/why.txt
dirs=()
for arg in "$@"; do
	case $arg in
	--out=*) out=${arg#*=} ;;
	--title=*) title=${arg#*=} ;;
	--why=*) why=${arg#*=} ;;
	--*) echo "report.sh: unknown option $arg" >&2; exit 2 ;;
	*) dirs+=("$arg") ;;
	esac
done
[ -r "$why" ] || { echo "report.sh: cannot read the --why file $why" >&2; exit 2; }
[ ${#dirs[@]} -gt 0 ] || { echo "usage: report.sh [--out=FILE] RUNDIR..." >&2; exit 2; }
plots=${out%.md}
tmp=$(mktemp -d /tmp/oomguard-mb-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
contenders="kernel oomguard earlyoom nohang systemd-oomd"
order="flood thrash leak forkstorm fit idle"

# One row per cell: LABEL CONTENDER then the figures (metrics.sh's keys, in this order).
keys="frozen kills premature wrong recovery_s recovered unused_mib fit_mib duration_s probe service"
keys="$keys kernel_kills"
for d in "${dirs[@]}"; do
	[ -d "$d" ] || { echo "report.sh: no directory $d" >&2; exit 1; }
	for cell in "$d"/*/*/; do
		cell=${cell%/}
		label=$(basename "$(dirname "$cell")") cont=$(basename "$cell")
		if [ -s "$cell/out/meta" ] && bench/machine/metrics.sh "$cell" >"$tmp/m" 2>"$tmp/err"; then
			row="$label $cont"
			for k in $keys; do row="$row $(awk -v k="$k" '$1 == k { print $2 }' "$tmp/m")"; done
			err=$(sed -n 's/^error //p' "$tmp/m")
			echo "$row ${err// /_}" >>"$tmp/rows"
			echo "$label $cont $cell" >>"$tmp/cells"
		else
			echo "$label $cont - - - - - - - - - - - - no_results" >>"$tmp/rows"
		fi
	done
done
[ -s "$tmp/rows" ] || { echo "report.sh: no cells in ${dirs[*]}" >&2; exit 1; }

# Repeats (a scenario and contender in more than one RUNDIR): one row each in $tmp/agg, frozen
# seconds their median (fields 16-18: n, min, max), premature and wrong victims summed; the other
# figures those of the last. The tables, ratios and goal read it; "Every cell" lists each boot.
awk '{ k = $1 " " $2; if (!(k in last)) order[++nk] = k; last[k] = $0
	if ($3 != "-") { nv[k]++; v[k, nv[k]] = $3 + 0; pm[k] += $5; wr[k] += $6 } }
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; n = nv[k] + 0; split(last[k], f, " ")
			if (n) {
				for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++)
					if (v[k, b] < v[k, a]) { x = v[k, a]; v[k, a] = v[k, b]; v[k, b] = x }
				f[3] = n % 2 ? v[k, (n + 1) / 2] : (v[k, n / 2] + v[k, n / 2 + 1]) / 2
				f[5] = pm[k]; f[6] = wr[k]
			}
			row = f[1]; for (j = 2; j <= 15; j++) row = row " " f[j]
			print row, n, n ? v[k, 1] : "-", n ? v[k, n] : "-"
		}
	}' "$tmp/rows" >"$tmp/agg"

# Scenario labels in the bench's order (flood, flood-zram, thrash, ...), contenders present.
labels=$(for s in $order; do for z in "" -zram; do for p in "" -continue; do
	awk -v l="$s$z$p" '$1 == l { print l; exit }' "$tmp/rows"; done; done; done)
present=$(for c in $contenders; do awk -v c="$c" '$2 == c { print c; exit }' "$tmp/rows"; done)

# table COLUMN: a scenario x contender table of one figure.
table() {
	local col=$1 l c
	printf '| scenario |'
	for c in $present; do printf ' %s |' "$c"; done
	printf '\n|---|'
	for c in $present; do printf -- '---:|'; done
	printf '\n'
	for l in $labels; do
		printf '| %s |' "$l"
		for c in $present; do
			printf ' %s |' "$(awk -v l="$l" -v c="$c" -v k="$col" '$1 == l && $2 == c {
					v = $k; if (k == 3 && $16 > 1) v = v " (" $17 "-" $18 ", n=" $16 ")" }
				END { print v == "" ? "" : v }' "$tmp/agg")"
		done
		printf '\n'
	done
}

# The ratio of oomguard's frozen seconds to each other contender's.
ratios() {
	local l c
	printf '| scenario |'
	for c in $present; do [ "$c" = oomguard ] || printf ' oomguard / %s |' "$c"; done
	printf '\n|---|'
	for c in $present; do [ "$c" = oomguard ] || printf -- '---:|'; done
	printf '\n'
	for l in $labels; do
		printf '| %s |' "$l"
		for c in $present; do
			[ "$c" = oomguard ] && continue
			printf ' %s |' "$(awk -v l="$l" -v c="$c" '$1 == l && $2 == "oomguard" { o = $3 }
				$1 == l && $2 == c { x = $3 }
				END {
					if (o == "" || x == "" || o == "-" || x == "-") print ""
					else if (x == 0) print (o == 0 ? "= (0, 0)" : "worse (" o ", 0)")
					else printf "%.2f (%s, %s)\n", o / x, o, x
				}' "$tmp/agg")"
		done
		printf '\n'
	done
}

# goal: one line per way oomguard misses the goal in a scenario ("none" when it misses none).
goal() {
	awk '$3 != "-" { f[$1, $2] = $3; w[$1, $2] = $6; p[$1, $2] = $5; u[$1, $2] = $9
		if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END {
			for (i = 1; i <= n; i++) {
				l = order[i]
				if (!((l, "oomguard") in f)) continue
				o = f[l, "oomguard"]
				for (k in f) {
					split(k, kk, SUBSEP)
					if (kk[1] == l && kk[2] != "oomguard" && f[k] < o) {
						printf "- %s: %s frozen seconds, %s had %s\n", l, o, kk[2], f[k]; bad++
					}
				}
				if (w[l, "oomguard"] > 0) { printf "- %s: %d wrong victims\n", l, w[l, "oomguard"]; bad++ }
				if (p[l, "oomguard"] > 0) { printf "- %s: %d premature kills\n", l, p[l, "oomguard"]; bad++ }
				if ((l, "kernel") in u && u[l, "oomguard"] != "-" && u[l, "kernel"] != "-" &&
				    u[l, "oomguard"] > u[l, "kernel"]) {
					printf "- %s: %s MiB unused, the kernel %s MiB\n", l, u[l, "oomguard"], u[l, "kernel"]
					bad++
				}
			}
			if (!bad) print "- none"
		}' "$tmp/agg"
}

# For each scenario the goal lists, what is known of why (the --why file), in the goal's order.
why_losses() {
	local l text
	sed -n 's/^- \([^:]*\): .*/\1/p' "$tmp/goal" | awk '!seen[$0]++' >"$tmp/losing"
	[ -s "$tmp/losing" ] || return 0
	echo "Why, as far as measured (bench/machine/README.md has the runs):"
	echo
	while read -r l; do
		text=$(awk -F'\t' -v l="$l" '$1 == l { print $2; exit }' "$why")
		echo "- $l: ${text:-not explained yet}"
	done <"$tmp/losing"
	echo
}

# Plots: the frozen seconds; per scenario, the probe's lateness and MemAvailable over time.
plotted=0
if command -v gnuplot >/dev/null; then
	mkdir -p "$plots"
	for l in $labels; do
		for c in $present; do
			cell=$(awk -v l="$l" -v c="$c" '$1 == l && $2 == c { p = $3 } END { print p }' \
				"$tmp/cells" 2>/dev/null) # a repeat: the last given
			[ -n "$cell" ] || continue
			t0=$(awk '$2 == "start" { print $1; exit }' "$cell/out/events.log")
			awk -v t0="$t0" '{ split($2, r, "="); split($3, x, "=")
				if (r[2] >= t0) print (r[2] - t0) / 1000, x[2] / 1000 }' \
				"$cell/out/probe.log" >"$tmp/late-$l-$c"
			awk -v t0="$t0" '$1 >= t0 { print ($1 - t0) / 1000, $2 / 1024 }' \
				"$cell/out/samples.log" >"$tmp/mem-$l-$c"
		done
		{
			echo "set terminal pngcairo size 900,600 font ',10'"
			echo "set output '$plots/$l.png'"
			echo "set multiplot layout 2,1 title '$l: the probe and the memory, per contender'"
			echo "set ylabel 'probe late (s)'; set key top right; set grid"
			echo "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2"
			p="plot"
			for c in $present; do
				[ -s "$tmp/late-$l-$c" ] && p="$p '$tmp/late-$l-$c' with lines title '$c',"
			done
			echo "${p%,}"
			echo "unset arrow; set xlabel 'seconds since the scenario started'"
			echo "set ylabel 'MemAvailable (MiB)'"
			p="plot"
			for c in $present; do
				[ -s "$tmp/mem-$l-$c" ] && p="$p '$tmp/mem-$l-$c' with lines title '$c',"
			done
			echo "${p%,}"
			echo "unset multiplot"
		} >"$tmp/$l.gp"
		gnuplot "$tmp/$l.gp" 2>>"$tmp/gnuplot.err" || true
	done
	awk -v cs="$present" -v ls="$labels" 'BEGIN { nc = split(cs, c, " "); nl = split(ls, l, " ") }
		{ v[$1, $2] = $3 }
		END { for (i = 1; i <= nl; i++) { printf "%s", l[i]
			for (j = 1; j <= nc; j++)
				printf " %s", ((l[i], c[j]) in v && v[l[i], c[j]] != "-") ? v[l[i], c[j]] : 0
			printf "\n" } }' "$tmp/agg" >"$tmp/frozen.dat"
	{
		echo "set terminal pngcairo size 900,400 font ',10'"
		echo "set output '$plots/frozen.png'"
		echo "set style data histogram; set style histogram clustered gap 1"
		echo "set style fill solid border -1; set ylabel 'frozen seconds'; set grid y"
		echo "set xtics rotate by -30; set key top left"
		p="plot"
		i=2
		for c in $present; do
			p="$p '$tmp/frozen.dat' using $i:xtic(1) title '$c',"
			i=$((i + 1))
		done
		echo "${p%,}"
	} >"$tmp/frozen.gp"
	gnuplot "$tmp/frozen.gp" 2>>"$tmp/gnuplot.err" && plotted=1
fi

meta1=$(awk '{ print $3; exit }' "$tmp/cells" 2>/dev/null)/out/meta
mval() { sed -n "s/^$1=//p" "$meta1" 2>/dev/null | head -n 1; }
rel=${plots#"$(dirname "$out")/"}
{
	echo "# The whole machine: oomguard against earlyoom, nohang and systemd-oomd"
	echo
	echo "${title:-Written by \`bench/machine/report.sh\` from ${dirs[*]}.}"
	echo "A Debian bookworm guest, systemd as PID 1, under qemu TCG (2 GiB, 2 CPUs), kernel"
	echo "$(mval kernel); quick=$(mval quick); the user's disks throttled (io.max on user.slice):"
	echo "$(mval io). How it runs and what each figure means: bench/machine/README.md."
	echo
	echo "## Frozen seconds (the probe late by more than 1 s), per contender and scenario"
	echo
	table 3
	echo
	[ $plotted = 1 ] && echo "![frozen seconds]($rel/frozen.png)" && echo
	if echo "$present" | grep -qx oomguard && [ "$(echo "$present" | wc -w)" -gt 1 ]; then
		echo "## oomguard's frozen seconds against each contender's (ratio; the two counts)"
		echo
		ratios
		echo
	fi
	if echo "$present" | grep -qx oomguard; then
		echo "## The goal, cell by cell"
		echo
		echo "oomguard should have the fewest frozen seconds in every scenario, no wrong victim, no"
		echo "premature kill, and leave no more memory unused than the kernel. Where it does not:"
		echo
		[ "$(echo "$present" | wc -w)" -gt 1 ] ||
			echo "- (oomguard alone in these cells: only its own wrong and premature kills count)"
		goal | tee "$tmp/goal"
		echo
		why_losses
	fi
	echo "## Every cell"
	echo
	echo "| scenario | contender | frozen s | kills | by the kernel | premature | wrong victims |" \
		"recovery s | memory unused MiB | fit MiB | run s | probe | service | error |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
	for l in $labels; do
		for c in $present; do
			awk -v l="$l" -v c="$c" '$1 == l && $2 == c {
				rec = $7 == "-" ? "-" : ($8 == 0 ? ">" $7 " (frozen at the end)" : $7)
				e = $15; gsub(/_/, " ", e)
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					$1, $2, $3, $4, $14, $5, $6, rec, $9, $10, $11, $12, $13, e }' "$tmp/rows"
		done
	done
	if [ $plotted = 1 ]; then
		echo
		echo "## The probe and the memory over time"
		echo
		for l in $labels; do echo "![${l}]($rel/$l.png)"; done
	fi
} >"$out"
echo "report.sh: $out ($(wc -l <"$tmp/rows") cells)"
