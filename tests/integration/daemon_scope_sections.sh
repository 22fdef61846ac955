#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Per-scope settings ([scope NAME] sections) on two 128 MiB v1 groups (oom_kill_disable), each
# with an eater and a sleeper. The global keys say kill_unit = cgroup and no grace;
# section "graceful" gives its group a SIGTERM grace (4 s, 5 s after a reload) and kill_unit = process, section
# "sudden" only names its group. The eaters (tail /dev/zero) handle no signal: the graceful one
# dies of the SIGTERM (parked under_oom, a handler could not run: only a fatal signal wakes it),
# its sleeper lives; the sudden one dies of SIGKILL at once, and its sleeper with it. Then a
# reload during a grace (an eater that ignores SIGTERM) waits for its SIGKILL.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=sections . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
[ -x "$OG_BIN" ] || { echo "SKIP: $OG_BIN is not built"; exit 77; }

# dead PID: PID has exited (a zombie not yet waited for counts).
dead() {
	[ ! -e "/proc/$1" ] || grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat"
}

tmp=$(mktemp -d)
FAIL_LOG=$tmp/log
trap 'og_cleanup; rm -rf "$tmp"' EXIT
cg_new A 128M --oom-kill-disable || exit 1
cg_new B 128M --oom-kill-disable || exit 1
a=$(cg_path "$A" memory)
b=$(cg_path "$B" memory)
cat >"$tmp/conf" <<CONF
kill_unit = cgroup
[scope graceful]
cgroup = $a
term_grace_msec = 4000
kill_unit = process
[scope sudden]
cgroup = $b
CONF

# status shows each scope's settings: the section's, else the global keys'
st=$("$OG_BIN" status --config "$tmp/conf" 2>&1)
grep -A3 "^$a " <<<"$st" | grep -q 'kills: process, SIGTERM first (SIGKILL 4000 ms later); reserve 10' ||
	fail "status: graceful's settings: $st"
grep -A3 "^$b " <<<"$st" | grep -q 'kills: cgroup, SIGKILL at once; reserve 10' ||
	fail "status: sudden's settings: $st"
"$OG_BIN" status --config "$tmp/conf" --json | python3 -c '
import json, sys
s = {x["scope"]: x for x in json.load(sys.stdin)["scopes"]}
g, u = s[sys.argv[1]], s[sys.argv[2]]
assert (g["kill_unit"], g["term_grace_msec"]) == ("process", 4000), g
assert (u["kill_unit"], u["term_grace_msec"]) == ("cgroup", 0), u
' "$a" "$b" || fail "status --json: the settings"
og_start "$tmp/log" --config "$tmp/conf" --interval 50 || exit 1
grep -q "scope $a: \[scope graceful\]: reserve_permille=10 term_grace_msec=4000 kill_unit=process" \
	"$tmp/log" || fail "no settings line for $a"
# A reload resolves the sections again: the kill below says the new grace.
sed -i 's/^term_grace_msec = 4000$/term_grace_msec = 5000/' "$tmp/conf"
kill -HUP "$OG_PID"
wait_grep 5 "scope $a: \[scope graceful\]: reserve_permille=10 term_grace_msec=5000 " "$tmp/log" \
	"$OG_PID" || fail "the reload did not take the new grace"
grep -q "scope $b: \[scope sudden\]: reserve_permille=10 term_grace_msec=0 kill_unit=cgroup" \
	"$tmp/log" || fail "no settings line for $b"

cg_spawn "$A" sleeper_a sleep 600
cg_spawn "$B" sleeper_b sleep 600
# tail of /dev/zero keeps one endless line: its memory grows until the group's limit parks it.
cg_spawn "$A" eater_a tail /dev/zero
cg_spawn "$B" eater_b tail /dev/zero

wait_grep 20 "exited after term scope=$a pid=$eater_a " "$tmp/log" "$OG_PID" ||
	fail "the graceful eater did not exit on SIGTERM"
wait_grep 20 "kill unit scope=$b cgroup=/${b##*/memory/} reason=cgroup tasks=1" "$tmp/log" \
	"$OG_PID" || fail "the sudden eater's group was not killed"
grep -q "term scope=$a pid=$eater_a comm=tail rss_kib=[0-9]* grace_msec=5000" "$tmp/log" ||
	fail "no SIGTERM line for the graceful eater"
grep -q "kill scope=$b pid=$eater_b comm=tail " "$tmp/log" ||
	fail "no kill line for the sudden eater"
grep -q "term scope=$b" "$tmp/log" && fail "the sudden scope sent SIGTERM"
grep -q " kill scope=$a " "$tmp/log" && fail "the graceful eater got SIGKILL"
grep -q "kill unit scope=$a" "$tmp/log" && fail "the graceful scope killed a unit"

wait "$eater_a"
rc=$?
[ "$rc" = $((128 + 15)) ] || fail "the graceful eater exited $rc, want 143 (SIGTERM)"
wait "$eater_b"
rc=$?
[ "$rc" = $((128 + 9)) ] || fail "the sudden eater exited $rc, want 137 (SIGKILL)"
for _ in $(seq 50); do
	dead "$sleeper_b" && break
	sleep 0.1
done
dead "$sleeper_b" || fail "the sudden group's sleeper survived its unit's kill"
wait "$sleeper_b"
rc=$?
[ "$rc" = $((128 + 9)) ] || fail "the sudden group's sleeper exited $rc, want 137 (SIGKILL)"
dead "$sleeper_a" && fail "the graceful group's sleeper was killed"

# A reload that changes the scopes while a victim has its grace is refused (it would close the
# pidfd its SIGKILL goes through): an eater that ignores SIGTERM gets its SIGKILL when the grace
# ends, and the reload takes after that.
cg_spawn "$A" eater_c bash -c 'trap "" TERM; exec tail /dev/zero'
wait_grep 20 "term scope=$a pid=$eater_c " "$tmp/log" "$OG_PID" ||
	fail "no SIGTERM for the eater that ignores it"
sed -i '/^\[scope sudden\]$/,$d' "$tmp/conf"
kill -HUP "$OG_PID"
wait_grep 5 "scopes changed while a victim is being given its SIGTERM grace; keeping the old" \
	"$tmp/log" "$OG_PID" || fail "a reload during the grace was not refused"
wait_grep 10 " kill scope=$a pid=$eater_c " "$tmp/log" "$OG_PID" ||
	fail "no SIGKILL after the grace of the eater that ignores SIGTERM"
wait "$eater_c"
rc=$?
[ "$rc" = $((128 + 9)) ] || fail "the eater that ignores SIGTERM exited $rc, want 137 (SIGKILL)"
kill -HUP "$OG_PID"
wait_grep 5 "config reloaded: 1 scopes" "$tmp/log" "$OG_PID" ||
	fail "the reload after the grace did not take"
og_stop || exit 1
exit 0
