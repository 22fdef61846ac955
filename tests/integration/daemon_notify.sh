#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# systemd's notification protocol, on a real datagram socket where NOTIFY_SOCKET points: the
# daemon on a 64 MiB v1 group (oom_kill_disable) says READY=1 with its STATUS= once running,
# pings WATCHDOG=1 at half of WATCHDOG_USEC, says the verdict's kill in STATUS= (once: only
# when it changes), RELOADING=1 then READY=1 on SIGHUP, STOPPING=1 on SIGTERM; every datagram
# comes from the daemon's own pid (NotifyAccess=main).
set -u
cd "$(dirname "$0")/../.."
CG_TAG=notify . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater notify_recv || exit 77

tmp=$(mktemp -d)
FAIL_LOG=$tmp/log
trap 'og_cleanup; [ -n "${recv:-}" ] && kill "$recv" 2>/dev/null; rm -rf "$tmp"' EXIT
cg_new CG 64M --oom-kill-disable || exit 1
dir=$(cg_path "$CG" memory)

"$OG_TOOLS/notify_recv" "$tmp/notify" 30 >"$tmp/got" &
recv=$!
wait_grep 5 '^bound' "$tmp/got" "$recv" || fail "notify_recv did not bind"
NOTIFY_SOCKET=$tmp/notify WATCHDOG_USEC=300000 og_start "$tmp/log" --cgroup "$dir" \
	--interval 50 || exit 1
wait_grep 5 "READY=1|STATUS=watching 1 scope; 0 kills; no OOM verdict yet" "$tmp/got" ||
	fail "no READY=1 with its status: $(cat "$tmp/got")"

cg_spawn "$CG" eater "$OG_TOOLS/mem_eater" -s 4M -i 20 128M >/dev/null 2>&1
want="STATUS=watching 1 scope; 1 kill; last OOM verdict in $dir: killed pid $eater (mem_eater)"
wait_grep 10 "$want" "$tmp/got" || fail "no STATUS= of the kill: $(cat "$tmp/got")"
sleep 1 # more rounds: the same status is not said again
kill -HUP "$OG_PID"
wait_grep 5 'config reloaded' "$tmp/log" || fail "no reload"
sleep 0.5
daemon_pid=$OG_PID
og_stop || exit 1
wait "$recv" || fail "notify_recv saw no STOPPING=1: $(cat "$tmp/got")"
recv=

pings=$(grep -c ' WATCHDOG=1$' "$tmp/got")
statuses=$(grep -c "$want" "$tmp/got")
echo "pings=$pings statuses_of_the_kill=$statuses datagrams=$(($(wc -l <"$tmp/got") - 1))"
# About 2.5 s at a ping per 150 ms; at least one per 300 ms even on a busy machine.
[ "$pings" -ge 8 ] || fail "$pings watchdog pings"
# Said once after the kill, and once more with READY=1 after the reload.
[ "$statuses" -eq 2 ] || fail "the kill's status said $statuses times: $(cat "$tmp/got")"
grep -q "RELOADING=1|MONOTONIC_USEC=[0-9]*$" "$tmp/got" || fail "no RELOADING=1"
grep -A1000 RELOADING=1 "$tmp/got" | grep -q "READY=1|$want" || fail "no READY=1 after reload"
tail -n1 "$tmp/got" | grep -q ' STOPPING=1$' || fail "STOPPING=1 is not the last"
grep -v '^bound$' "$tmp/got" | grep -v "^pid=$daemon_pid " &&
	fail "a datagram from another pid than the daemon's ($daemon_pid)"
exit 0
