#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A configured cgroup that does not exist yet (its unit not started at boot) is no usage error:
# the daemon starts, says it waits, and watches the group once it appears (its OOM eventfd, and
# oom_kill_disable with --oom-kill-disable: an eater over the limit is killed by oomguard). A
# group removed while watched is waited for again.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=wait . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater || exit 77

tmp=$(mktemp -d -p "$PWD/build")
trap 'og_cleanup; rm -rf "$tmp"' EXIT
FAIL_LOG=$tmp/log
dir=$CG_ROOT/memory/oomguard-test-wait-$$-$((CG_SEQ + 1)) # the name cg_new gives next
og_start "$tmp/log" --cgroup "$dir" --oom-kill-disable || fail "did not start"
grep -q "does not exist (yet): waiting for it" "$tmp/log" || fail "no word of the wait"
cg_new CG 32M || exit 1
[ "$(cg_path "$CG" memory)" = "$dir" ] || fail "cg_new named $(cg_path "$CG" memory), not $dir"
wait_grep 10 "scope=$dir is there: watching it" "$tmp/log" "$OG_PID" ||
	fail "the group appeared and was not watched"
grep -q 'oom_kill_disable 1' "$dir/memory.oom_control" || fail "oom_kill_disable not set"
cg_spawn "$CG" eater "$OG_TOOLS/mem_eater" 64M >/dev/null 2>&1
wait_grep 15 " kill scope=$dir " "$tmp/log" "$OG_PID" || fail "the eater over the limit was not killed"
wait "$eater" 2>/dev/null
cg_destroy "$CG" || fail "cannot remove the group"
wait_grep 10 "scope=$dir is gone: waiting for it" "$tmp/log" "$OG_PID" ||
	fail "a removed group was not waited for"
og_stop || fail "did not stop cleanly"
exit 0
