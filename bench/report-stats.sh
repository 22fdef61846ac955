#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The bench's statistics: from results.tsv (scen, contender, run, key, value) and failed.tsv (scen,
# contender, run, reason), one line per scenario, contender and figure over the runs that did not
# fail: "scen who key median q1 q3 min max n sum" (tab-separated). "none" (no event before the
# time limit) sorts above every number; a statistic that falls on it, or between it and a number,
# is "none". Quartiles interpolate between the two nearest ranks (q = x[h] with h = (n-1)p + 1).
# Values that are neither numbers nor "none" (labels such as kill_time_from) are left out.
# Usage: bench/report-stats.sh RESULTS.tsv FAILED.tsv
set -u
[ $# -eq 2 ] || { echo "usage: report-stats.sh RESULTS.tsv FAILED.tsv" >&2; exit 2; }
[ -r "$1" ] || { echo "report-stats.sh: cannot read $1" >&2; exit 1; }
awk -F'\t' '
	FILENAME == ARGV[1] { bad[$1 "\t" $2 "\t" $3] = 1; next }
	(($1 "\t" $2 "\t" $3) in bad) { next }
	$5 != "none" && $5 !~ /^-?[0-9]+(\.[0-9]+)?$/ { next }
	{ k = $1 "\t" $2 "\t" $4; n[k]++; v[k, n[k]] = $5; if (!(k in order)) order[k] = ++nk }
	function num(x) { return x == "none" ? 1e300 : x + 0 }
	function q(k, p,   h, lo, a, b) {
		h = (n[k] - 1) * p + 1; lo = int(h)
		a = s[lo]; if (h == lo) return a
		b = s[lo + 1]
		if (a == "none" || b == "none") return "none"
		return a + (h - lo) * (b - a)
	}
	END {
		for (k in n) {
			m = n[k]; sum = 0
			for (i = 1; i <= m; i++) { s[i] = v[k, i]; if (s[i] != "none") sum += s[i] }
			for (i = 2; i <= m; i++) {
				x = s[i]
				for (j = i - 1; j >= 1 && num(s[j]) > num(x); j--) s[j + 1] = s[j]
				s[j + 1] = x
			}
			printf "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", k, q(k, 0.5), q(k, 0.25), q(k, 0.75),
				s[1], s[m], m, sum
		}
	}' "$2" "$1" | sort
