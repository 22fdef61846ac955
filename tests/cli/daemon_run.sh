#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# oomguard run and status from the outside: exit codes (0 clean stop on SIGTERM and SIGINT,
# 2 bad option, bad config, a path that is not a memory cgroup), SIGHUP reloads a good config
# and keeps the old one on a bad config (saying why), journal prefixes under JOURNAL_STREAM,
# status readable and --json; an open-files limit below what listings want is said.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/daemon.sh
OG_BIN=${OOMGUARD_BIN:-./oomguard} # as the other cli tests: the shipped binary by default
bin=$OG_BIN
tmp=$(mktemp -d)
trap 'og_cleanup; rm -rf "$tmp"' EXIT
FAIL_LOG=$tmp/log # fail shows the daemon's log

"$bin" run --bogus 2>/dev/null
[ $? -eq 2 ] || fail "bad option: want exit 2"
"$bin" run --interval 1 2>/dev/null
[ $? -eq 2 ] || fail "bad value: want exit 2"
printf 'interval_msec = 100\nnot_a_key = 1\n' >"$tmp/bad.conf"
err=$("$bin" run --config "$tmp/bad.conf" 2>&1)
[ $? -eq 2 ] || fail "bad config: want exit 2"
grep -q "bad.conf:2: unknown key 'not_a_key'" <<<"$err" || fail "bad config not explained: $err"
err=$("$bin" status --cgroup /proc 2>&1)
[ $? -eq 2 ] || fail "not a memory cgroup: want exit 2"
grep -q "not a memory cgroup" <<<"$err" || fail "not explained: $err"
"$bin" run --help | grep -q -- '--cgroup PATH' || fail "run --help"

out=$("$bin" status) || fail "status exited $?"
grep -q '^machine (machine)' <<<"$out" || fail "status: $out"
grep -q 'next decision: \(retry\|oom\|unknown\)' <<<"$out" || fail "status: no decision: $out"
"$bin" status --json | grep -q '"scopes": \[' || fail "status --json"
"$bin" status --json | grep -q '"verdict": "' || fail "status --json: no verdict"
# --tasks: the ranked candidates, the first marked; as JSON, valid JSON with a tasks array.
"$bin" status --tasks | grep -qE '^ +1\* pid=[0-9]+ comm=' || fail "status --tasks: $("$bin" status --tasks)"
"$bin" status --tasks --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["scopes"][0]["tasks"]
assert t and t[0]["rank"] == 1 and t[0]["badness"] > 0, t[:1]
' || fail "status --tasks --json"

# SIGHUP with a good config, then a bad one; SIGTERM stops with 0.
printf '[oomguard]\ndry_run = yes\ninterval_msec = 100\n' >"$tmp/ok.conf"
# JOURNAL_STREAM counts only when it names stderr (device:inode), as journald sets it; one
# inherited by a process whose stderr is another file is ignored: timestamps and levels then.
: >"$tmp/log0"
JOURNAL_STREAM=1:1 og_start "$tmp/log0" --config "$tmp/ok.conf" || fail "no start line"
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{15}Z oomguard: notice: started: 1 scopes' \
	"$tmp/log0" || fail "a JOURNAL_STREAM naming another file was honoured: $(head -n 1 "$tmp/log0")"
og_stop || fail "stop"
: >"$tmp/log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/log") og_start "$tmp/log" --config "$tmp/ok.conf" ||
	fail "no start line"
grep -q '^<5>started: 1 scopes, interval 100 ms' "$tmp/log" || fail "journal prefix"
printf '[oomguard]\ndry_run = yes\ninterval_msec = 200\n' >"$tmp/ok.conf"
kill -HUP "$OG_PID"
wait_grep 5 'config reloaded: 1 scopes, interval 200 ms, dry run' "$tmp/log" ||
	fail "reload not applied"
printf '[oomguard]\ninterval_msec = fast\n' >"$tmp/ok.conf"
kill -HUP "$OG_PID"
wait_grep 5 "reload failed, keeping the old config: .*ok.conf:2: bad value 'fast'" "$tmp/log" ||
	fail "bad reload not explained"
kill -0 "$OG_PID" || fail "died on a bad reload"
og_stop || fail "SIGTERM: want exit 0"
grep -q 'stopping: [0-9]* rounds, 0 kills' "$tmp/log" || fail "no stop line"

og_start "$tmp/log" --dry-run || fail "no start line"
og_stop INT || fail "SIGINT: want exit 0"

# Listings keep two files open per process: under a hard limit of 700 open files it keeps
# (700 - 559) / 2 = 70 processes' files (559: 33 scopes of 11 files and 4 more, and 64) and
# says so; it still runs. The limit is this shell's too from here on: keep this case last.
ulimit -n 700
og_start "$tmp/log" --dry-run || fail "no start line under 700 open files"
grep -q 'open files limited to 700: keeping the files of 70 processes open' "$tmp/log" ||
	fail "open-files budget not said: $(grep 'open files' "$tmp/log")"
og_stop || fail "SIGTERM under 700 open files: want exit 0"
exit 0
