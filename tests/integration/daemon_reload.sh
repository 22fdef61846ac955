#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Reload is all or nothing. The daemon watches v1 group A, which is then removed; a new config
# naming group B and a path outside the memory hierarchies is refused before anything is
# stopped, so the running scopes stay as they were (stopping them first, then failing to set
# A up again, left the daemon watching less than either config). A good config then takes; a
# --config file that has disappeared keeps the running config; the daemon stops cleanly.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=reload . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
[ -x "$OG_BIN" ] || { echo "SKIP: $OG_BIN is not built"; exit 77; }

tmp=$(mktemp -d -p "$PWD/build")
trap 'og_cleanup; rm -rf "$tmp"' EXIT
FAIL_LOG=$tmp/log
cg_new A 64M || exit 1
cg_new B 64M || exit 1
a=$(cg_path "$A" memory)
b=$(cg_path "$B" memory)
conf() { printf '[oomguard]\n' >"$tmp/conf"; for c in "$@"; do echo "cgroup = $c" >>"$tmp/conf"; done; }
reloads() { grep -c "$1" "$tmp/log"; }
hup_and_wait() { # PATTERN: SIGHUP, then wait for one more line matching PATTERN
	local n
	n=$(reloads "$1")
	kill -HUP "$OG_PID"
	for _ in $(seq 100); do
		[ "$(reloads "$1")" -gt "$n" ] && return 0
		sleep 0.05
	done
	return 1
}

conf "$a"
og_start "$tmp/log" --config "$tmp/conf" || exit 1
rmdir "$a" || fail "cannot remove $a"
conf "$b" /proc # not in a memory cgroup hierarchy (a missing group in one is waited for)
hup_and_wait 'reload failed' || fail "a config naming no memory cgroup was not refused"
grep -q 'cannot restore' "$tmp/log" && fail "the running scopes were stopped before the check"
grep -q 'config reloaded' "$tmp/log" && fail "a bad config was taken"

conf "$b"
hup_and_wait 'config reloaded: 1 scopes' || fail "a good config was not taken"
rm "$tmp/conf"
hup_and_wait 'reload failed' || fail "a --config file that disappeared was taken"
[ "$(reloads 'config reloaded')" -eq 1 ] || fail "reloaded without its file"
kill -0 "$OG_PID" 2>/dev/null || fail "the daemon died"
og_stop || fail "did not stop cleanly"
exit 0
