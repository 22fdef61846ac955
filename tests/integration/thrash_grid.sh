#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The thrash grid's quick subset (bench/thrash-grid.sh --profile check), with the shipped
# ./oomguard ($OOMGUARD_SHIPPED_BIN): a thrash on a 4 MiB/s disk and one unthrottled must each
# be killed within 2 s of the end of the cold pass (and not before), and a fresh file ten times
# the group streamed at 4 MiB/s beside anon must not be; then the 4 MiB/s thrash again beside two
# CPU hogs (--busy 2), where PSI divides the reader's I/O stall among the busy CPUs
# (docs/daemon-design.md, "The I/O stall on a busy machine"), caught all the same; and a run
# of a binary other than the tree's names it as given, and resumed keeps one header. About two
# minutes. Tools: $OOMGUARD_TOOLS (make tools).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=$(mktemp -d -p "$PWD/build" thrash-grid-check.XXXXXX)
trap 'rm -rf "$out"' EXIT
OOMGUARD_BIN=${OOMGUARD_SHIPPED_BIN:-$PWD/oomguard} bench/thrash-grid.sh --profile check --out "$out"
rc=$?
# The cells ran a copy of the binary made at the start, and the run says whose build it is.
if [ "$rc" != 77 ]; then
	cmp -s "$out/oomguard.bin" "${OOMGUARD_SHIPPED_BIN:-$PWD/oomguard}" ||
		{ echo "FAIL: $out/oomguard.bin is not a copy of the binary the grid was given"; rc=1; }
	grep -q '^oomguard_build [0-9a-z]' "$out/meta" ||
		{ echo "FAIL: no oomguard_build line in $out/meta: $(cat "$out/meta")"; rc=1; }
fi
dirs=("$out")
if [ "$rc" = 0 ]; then
	dirs=("$out/busy")
	OOMGUARD_BIN=${OOMGUARD_SHIPPED_BIN:-$PWD/oomguard} bench/thrash-grid.sh --profile check \
		--busy 2 --only '^thrash 4 ' --out "$out/busy"
	rc=$?
	[ "$rc" = 77 ] || grep -q '^busy 2$' "$out/busy/meta" ||
		{ echo "FAIL: no 'busy 2' line in $out/busy/meta"; rc=1; }
	[ "$rc" = 77 ] || [ "$(awk 'NR > 1' "$out/busy/results.tsv" | wc -l)" = 1 ] ||
		{ echo "FAIL: the busy run ran not one cell: $(cat "$out/busy/results.tsv")"; rc=1; }
	for pid in $(awk '$1 == "hog" { print $2 }' "$out/busy/meta" 2>/dev/null); do
		kill -0 "$pid" 2>/dev/null && { echo "FAIL: the busy run left its CPU hog $pid"; rc=1; }
	done
fi
# A binary other than the tree's is named as given, not as the tree's commit (no cell runs).
if [ "$rc" = 0 ]; then
	cp "${OOMGUARD_SHIPPED_BIN:-$PWD/oomguard}" "$out/other" && echo >>"$out/other"
	OOMGUARD_BIN=$out/other bench/thrash-grid.sh --profile check --only '^none$' \
		--out "$out/given" >/dev/null || { echo "FAIL: a run of no cell failed"; rc=1; }
	grep -qx "oomguard_build given $out/other (not this tree's ./oomguard)" "$out/given/meta" ||
		{ echo "FAIL: the binary given is not named: $(grep oomguard_build "$out/given/meta")"; rc=1; }
	# resumed, the run's header stays one and a line says when and with which build
	OOMGUARD_BIN=$out/other bench/thrash-grid.sh --profile check --only '^none$' --resume \
		--out "$out/given" >/dev/null || { echo "FAIL: a resumed run of no cell failed"; rc=1; }
	[ "$(grep -c '^profile ' "$out/given/meta")" = 1 ] &&
		grep -qx "resumed .*, oomguard given $out/other (not this tree's ./oomguard)" \
			"$out/given/meta" || { echo "FAIL: the resumed meta: $(cat "$out/given/meta")"; rc=1; }
fi
[ "$rc" = 0 ] || [ "$rc" = 77 ] || for f in "${dirs[0]}"/*/oomguard/daemon.log; do
	echo "== $f"
	grep -v ' debug: ' "$f" | tail -n 5
done
# A cell that failed: each round the daemon counted, from 1 s before the onset (ms since the
# cell's start; a gap of more than 100 ms is a poll that was no round, or lines the log folded), so that a late or early
# kill on another machine shows which rule held or counted.
[ "$rc" = 0 ] || [ "$rc" = 77 ] ||
	while IFS=$'\t' read -r kind rate over anon mode who _ _ _ onset _ outcome _; do
		case $outcome in ok | caught | outcome) continue ;; esac
		d=${dirs[0]}/$kind-r$rate-o$over-a$anon-$mode/$who
		echo "== rounds of $kind $rate $over $anon $mode ($outcome, onset $onset ms)"
		awk -v onset="$onset" '
			FNR == 1 && FILENAME ~ /events.log$/ { start = $1; next }
			FILENAME ~ /events.log$/ { next }
			/ round, / {
				t = int($1 / 1000) - start
				if (onset != "-" && t < onset - 1000) next
				line = sprintf("%6d", t)
				if (match($0, /log: [0-9]+ more identical lines[^:]*/)) {
					print line " (" substr($0, RSTART + 5, RLENGTH - 5) ")"
					next
				}
				for (i = 2; i <= NF; i++)
					if ($i ~ /^(loops|stall_events|refaulted_pages|span_ms|span_read_pages|span_refaulted_pages|file_pages)=/)
						line = line " " $i
				match($0, /round="[^"]*"/)
				print line " " substr($0, RSTART, RLENGTH)
			}' "$d/events.log" "$d/daemon.log" | tail -n 60
	done <"${dirs[0]}/results.tsv"
exit $rc
