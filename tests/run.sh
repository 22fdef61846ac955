#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs every test quietly and ends on one line: "N passed, N failed, N skipped".
# cmocka programs (build/san/tests/*/test_*) count their cases; a shell test (tests/*/*.sh) counts
# as one case: exit 0 passes, 77 skips (it prints why), anything else fails.
# Usage: tests/run.sh [PATTERN]   only tests whose path contains PATTERN
set -u
cd "$(dirname "$0")/.."
pattern="${1:-}"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export OOMGUARD_BIN="$PWD/build/san/oomguard"
export OOMGUARD_TOOLS="$PWD/build/tools"
export OOMGUARD_SHIPPED_BIN="$PWD/oomguard" # the release build, for tests too slow under ASan
logdir=build/test-logs
mkdir -p "$logdir"
passed=0 failed=0 skipped=0

run_cmocka() {
	local bin=$1 log out p f s
	log="$logdir/$(basename "$bin").log"
	"$bin" >"$log" 2>&1
	local rc=$?
	out=$(cat "$log")
	p=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' <<<"$out" | tail -n1)
	f=$(sed -n 's/.*\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' <<<"$out" | tail -n1)
	s=$(sed -n 's/.*\[  SKIPPED \] \([0-9]*\) test(s).*/\1/p' <<<"$out" | tail -n1)
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # crashed, or a sanitizer stopped it
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $bin (exit $rc):"
		grep -vE '^\[ +(RUN|OK) +\]' "$log" | sed 's/^/    /' | tail -n 60
	fi
	grep -h '^SKIP' "$log" | sed "s|^|$(basename "$bin"): |"
}

# run_shell TEST [TAG]: TAG names a second run of the same test (its log and its lines).
run_shell() {
	local t=$1 tag=${2:-} log
	log="$logdir/$(echo "$t" | tr / _)${tag:+.$tag}.log"
	t="$t${tag:+ ($tag)}"
	bash "${1}" >"$log" 2>&1
	local rc=$?
	case $rc in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)); echo "SKIP $t: $(grep -h '^SKIP' "$log" | head -n1)" ;;
	*) failed=$((failed + 1)); echo "FAIL $t (exit $rc):"; sed 's/^/    /' "$log" | tail -n 60 ;;
	esac
}

# The programs of the sources there are (a program whose source was removed is not run).
for src in tests/unit/test_*.c tests/integration/test_*.c; do
	bin=build/san/${src%.c}
	[ -x "$bin" ] || continue
	[ -n "$pattern" ] && [[ $bin != *"$pattern"* ]] && continue
	run_cmocka "$bin"
done
for t in tests/cli/*.sh tests/sim/*.sh tests/integration/*.sh; do
	[ -f "$t" ] || continue
	[ -n "$pattern" ] && [[ $t != *"$pattern"* ]] && continue
	run_shell "$t"
done

# The binary `make` ships (static, musl; the runs above use the sanitizer build): its
# command-line, sim and daemon tests again.
if [ -x "$PWD/oomguard" ]; then
	for t in tests/cli/usage.sh tests/cli/daemon_run.sh tests/sim/golden.sh \
		tests/integration/daemon_flood.sh tests/integration/daemon_frozen.sh; do
		[ -n "$pattern" ] && [[ "$t shipped" != *"$pattern"* ]] && continue
		OOMGUARD_BIN="$PWD/oomguard" run_shell "$t" shipped
	done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
