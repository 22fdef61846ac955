#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/teardown.sh, the bench's bounded teardown: a process that stops when told is waited for
# and left alone (no event); one that ignores SIGTERM is SIGKILLed once the bound is over, with
# a teardown_kill event naming it; no pid, nothing to wait for.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
. bench/teardown.sh
d=$(mktemp -d /tmp/oomguard-test-teardown.XXXXXX)
guard=""
trap '[ -n "$guard" ] && pkill -P $guard; rm -rf "$d"' EXIT
REAP_BOUND_DS=10 # 1 s

# start NAME SCRIPT: a bash running SCRIPT, which says `up` (to $UP) when it is ready for the
# signal (until the fork has exec'd bash, this test's EXIT trap would answer a signal).
start() {
	UP="$d/$1.up" bash -c "$2" &
	pid=$!
	wait_grep 5 up "$d/$1.up" $pid || fail "$1 did not start"
}

# Stops on SIGTERM: waited for, well within the bound, no event.
start sleeper 'echo up >"$UP"; exec sleep 30'
kill -TERM $pid
t0=$(date +%s%3N)
reap_bounded "$d" sleeper $pid 2>"$d/err" || fail "reap_bounded returned non-zero"
t=$(($(date +%s%3N) - t0))
[ $t -lt 800 ] || fail "a process that stopped was waited for $t ms"
kill -0 $pid 2>/dev/null && fail "sleeper $pid still there"
[ ! -s "$d/events.log" ] || fail "an event for a process that stopped: $(cat "$d/events.log")"

# Ignores SIGTERM: killed after the bound, said in the events and on stderr. A teardown that
# does not kill fails the test (the guard kills at 8 s), not hangs it.
start stubborn 'trap "" TERM; echo up >"$UP"; while :; do sleep 0.05; done'
kill -TERM $pid
(sleep 8 && kill -KILL $pid) 2>/dev/null &
guard=$!
t0=$(date +%s%3N)
reap_bounded "$d" stubborn $pid 2>"$d/err" || fail "reap_bounded returned non-zero"
t=$(($(date +%s%3N) - t0))
[ $t -ge 900 ] && [ $t -lt 5000 ] || fail "the stubborn process was killed after $t ms, want ~1 s"
kill -0 $pid 2>/dev/null && fail "stubborn $pid still there"
grep -Eq "^[0-9]{13} teardown_kill stubborn $pid\$" "$d/events.log" ||
	fail "no teardown_kill event: $(cat "$d/events.log" 2>/dev/null)"
grep -q "stubborn ($pid) still there after 1000 ms" "$d/err" || fail "stderr: $(cat "$d/err")"

# No pid (a part that never started): returns at once.
t0=$(date +%s%3N)
reap_bounded "$d" none "" || fail "reap_bounded without a pid returned non-zero"
[ $(($(date +%s%3N) - t0)) -lt 200 ] || fail "waited without a pid"
[ "$(wc -l <"$d/events.log")" = 1 ] || fail "events: $(cat "$d/events.log")"
exit 0
