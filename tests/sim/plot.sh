#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --csv writes one time series per rule with the documented columns; --plot draws them with
# gnuplot into a PNG (skipped when gnuplot is not installed).
set -u
bin=${OOMGUARD_BIN:-./oomguard}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
"$bin" sim churn-livelock --compare --mem-mib 32 --csv "$tmp/csv" >/dev/null || { echo "FAIL: --csv exit $?"; exit 1; }
for rule in base rework mainline; do
	f="$tmp/csv/churn-livelock-$rule.csv"
	[ -s "$f" ] || { echo "FAIL: $f missing"; rc=1; continue; }
	head -n1 "$f" | grep -qx 'time_s,free_pages,reclaimable_pages,dirty_pages,writeback_pages,no_progress_loops,oom_calls,oom_kills,stalled_tasks' ||
		{ echo "FAIL: $f header: $(head -n1 "$f")"; rc=1; }
	[ "$(wc -l <"$f")" -gt 10 ] || { echo "FAIL: $f has too few rows"; rc=1; }
done
# base never kills; rework ends on one kill, with no_progress_loops reaching 16 before it.
[ "$(tail -n1 "$tmp/csv/churn-livelock-base.csv" | cut -d, -f8)" = 0 ] || { echo "FAIL: base CSV shows a kill"; rc=1; }
[ "$(cut -d, -f6 "$tmp/csv/churn-livelock-rework.csv" | sort -n | tail -n1)" -ge 15 ] ||
	{ echo "FAIL: rework CSV never shows no_progress_loops near 16"; rc=1; }
if ! command -v gnuplot >/dev/null; then
	echo "SKIP: gnuplot not installed (scripts/deps.sh bench)"
	exit $([ $rc = 0 ] && echo 77 || echo 1)
fi
"$bin" sim stuck-victim --compare --mem-mib 32 --plot "$tmp/p.png" >/dev/null || { echo "FAIL: --plot exit $?"; exit 1; }
[ -s "$tmp/p.png" ] && [ "$(head -c 4 "$tmp/p.png" | tail -c 3)" = PNG ] || { echo "FAIL: no PNG drawn"; rc=1; }
[ -s "$tmp/p.png.data/stuck-victim-rework.csv" ] || { echo "FAIL: --plot without --csv keeps no data"; rc=1; }
exit $rc
