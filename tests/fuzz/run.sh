#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs each libFuzzer harness for SECONDS on its seeds and prints the executions of each and in
# total; exits 1 if any harness crashed (its input is kept under DIR/artifacts/).
# Seeds: tests/fuzz/corpus/<parser>/ (fixtures and odd inputs), DIR/gen/<parser>/ (generated);
# what the fuzzer finds goes to DIR/corpus/<parser>/ and is seed to the next run.
# Usage: tests/fuzz/run.sh SECONDS DIR HARNESS... (make fuzz FUZZ_SECONDS=N [FUZZ_ARGS=...])
set -u
secs=${1:?usage: run.sh SECONDS DIR HARNESS...}
dir=${2:?usage: run.sh SECONDS DIR HARNESS...}
shift 2
here=$(dirname "$0")
mkdir -p "$dir/logs" "$dir/artifacts"
[ "$secs" -gt 0 ] || { echo "run.sh: SECONDS must be at least 1" >&2; exit 2; }
total=0
crashed=0
harnesses=0
for bin in "$@"; do
	harnesses=$((harnesses + 1))
	name=${bin##*/fuzz_}
	mkdir -p "$dir/corpus/$name"
	seeds="$here/corpus/$name"
	[ -d "$dir/gen/$name" ] && seeds="$seeds $dir/gen/$name"
	log=$dir/logs/$name.log
	# shellcheck disable=SC2086 # FUZZ_ARGS and seeds are lists (no blanks in the paths)
	"$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/$name-" ${FUZZ_ARGS:-} "$dir/corpus/$name" $seeds \
		>"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	[ -n "$runs" ] || runs=0
	total=$((total + runs))
	if [ "$rc" -ne 0 ]; then
		crashed=$((crashed + 1))
		printf 'fuzz: %-22s CRASHED after %s executions (exit %s), log %s\n' "$name" "$runs" "$rc" "$log"
		grep -m 3 -E 'ERROR|broken promise|runtime error' "$log" | sed 's/^/      /'
		grep -m 1 'Test unit written to' "$log" | sed 's/^/      /'
	else
		printf 'fuzz: %-22s %12s executions in %s s (%s/s)\n' "$name" "$runs" "$secs" $((runs / secs))
	fi
done
printf 'fuzz: total %s executions, %s harnesses, %s crashed\n' "$total" "$harnesses" "$crashed"
[ "$crashed" -eq 0 ]
