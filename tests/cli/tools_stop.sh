#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The workload tools catch SIGTERM (a daemon's first signal) and exit 0; they say so at exit with
# "stopped signal=15", which is how bench/thrash-grid.sh tells such a kill from an end of their
# own. A tool that ends on its own (a thrasher's last pass, mem_eater's hold, a writer's last
# loop) says nothing of the kind. Sizes of a few MiB: no memory experiment.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
t=build/tools
for b in thrasher mem_eater writer; do
	[ -x "$t/$b" ] || fail "$t/$b is missing (make tools)"
done
d=$(mktemp -d /var/tmp/oomguard-test-tools.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$d"' EXIT

# stopped NAME READY CMD...: start CMD, wait for READY in its output, SIGTERM it; it must exit 0
# and end its output with "stopped signal=15".
stopped() {
	local name=$1 ready=$2 pid rc
	shift 2
	"$@" >"$d/$name.out" 2>&1 &
	pid=$!
	pids+=("$pid")
	wait_grep 10 "$ready" "$d/$name.out" "$pid" || fail "$name: no '$ready': $(cat "$d/$name.out")"
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ $rc = 0 ] || fail "$name: SIGTERM made exit $rc, want 0: $(cat "$d/$name.out")"
	[ "$(tail -n 1 "$d/$name.out")" = "stopped signal=15" ] ||
		fail "$name: stopped by SIGTERM, its last line: $(tail -n 1 "$d/$name.out")"
}
stopped thrasher '^ready' "$t/thrasher" -a 1M -f 4M -i 100 "$d/f1"
stopped mem_eater '^ready' "$t/mem_eater" 2M
stopped writer '^loop 1 ' "$t/writer" -v "$d/w1" 1M

# ended NAME CMD...: CMD ends on its own with status 0 and no "stopped" line.
ended() {
	local name=$1
	shift
	timeout 20 "$@" >"$d/$name.out" 2>&1 || fail "$name: exit $?: $(cat "$d/$name.out")"
	! grep -q '^stopped' "$d/$name.out" || fail "$name ended on its own, yet says it was stopped"
}
ended thrasher-pass "$t/thrasher" -a 1M -f 4M -p 1 -i 100 "$d/f2"
ended mem_eater-hold "$t/mem_eater" -t 1 2M
ended writer-loops "$t/writer" -n 2 "$d/w2" 1M
exit 0
