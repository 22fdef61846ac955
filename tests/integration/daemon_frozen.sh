#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Frozen victim: a 1 GiB eater frozen in a freezer cgroup is chosen when a second eater fills
# the memory cgroup (oom_kill_disable=1). With reaping on, the reaper frees its memory while it
# is still frozen (RSS near 0 within 1 s) and the freed amount is logged; with reaping off
# (--no-reap) the memory stays until the victim is thawed, and the victim is marked skipped.
# Killed by another (the test's own SIGKILL, as the kernel's OOM killer or a user would) while
# frozen, the eater is dying already when chosen: reaped, never signalled again, no kill counted.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=frozen . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require freezer || exit 77
og_require_tools mem_eater || exit 77

rss_kib() { awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# run_case MODE: MODE is "reap", "noreap" or "dying". Prints the victim's RSS 1 s after the kill.
run_case() {
	local mode=$1 tmp cg dir victim filler rss=-1 state args=()
	tmp=$(mktemp -d)
	cg_new cg 1280M --oom-kill-disable --freezer || return 1
	dir=$(cg_path "$cg" memory)
	cg_spawn "$cg" victim "$OG_TOOLS/mem_eater" 1G >"$tmp/victim" 2>&1
	wait_grep 20 '^ready' "$tmp/victim" "$victim" || { echo "victim not ready"; return 1; }
	cg_freeze "$cg"
	[ "$mode" = noreap ] && args=(--no-reap)
	# A post-kill hook that leaves a mark: it runs after the reap case's kill, and not after the
	# dying case's reap (no kill of oomguard's to tell of).
	printf '#!/bin/sh\ntouch %s/hooked\n' "$tmp" >"$tmp/post.sh"
	chmod +x "$tmp/post.sh"
	[ "$mode" = noreap ] || args+=(--post-kill-hook "$tmp/post.sh")
	if [ "$mode" = dying ]; then
		kill -KILL "$victim" # stays frozen, SIGKILL pending, memory held
		sleep 0.2
		"$OG_BIN" status --cgroup "$dir" --tasks | grep -qE " pid=$victim .* dying( |$)" ||
			{ echo "FAIL: status --tasks does not show $victim dying"; return 1; }
		"$OG_BIN" status --cgroup "$dir" --tasks --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["scopes"][0]["tasks"]
assert [x["dying"] for x in t if x["pid"] == int(sys.argv[1])] == [True], t
' "$victim" || { echo "FAIL: status --tasks --json does not show $victim dying"; return 1; }
	fi
	og_start "$tmp/log" --cgroup "$dir" "${args[@]}" || return 1
	# The filler joins the memory group only (not the freezer group) and fills it.
	(echo "$BASHPID" >"$dir/cgroup.procs" && exec "$OG_TOOLS/mem_eater" -s 8M -i 20 400M) \
		>"$tmp/filler" 2>&1 &
	filler=$!
	local chose=kill
	[ "$mode" = dying ] && chose=adopt
	wait_grep 5 " $chose scope=.* pid=$victim " "$tmp/log" ||
		{ echo "$mode: victim never chosen ($chose)"; cat "$tmp/log"; return 1; }
	sleep 1
	rss=$(rss_kib "$victim")
	state=$(cat "$(cg_path "$cg" freezer)/freezer.state")
	sleep 1.2 # the reaper's 10 tries are over by now
	og_stop || return 1
	echo "$mode: victim rss_kib=${rss:-0} 1 s after the kill, freezer $state"
	grep " reap scope=.* pid=$victim " "$tmp/log" | sed "s/^/$mode: /"
	case $mode in
	reap)
		[ "${rss:-0}" -lt 10240 ] || { echo "FAIL: reaped victim still has $rss KiB"; return 1; }
		[ -e "$tmp/hooked" ] || { echo "FAIL: the post-kill hook did not run after the kill"; return 1; }
		[ "$state" = FROZEN ] || { echo "FAIL: victim not frozen when measured ($state)"; return 1; }
		grep -q " reap scope=.* pid=$victim .*result=released.* freed_kib=[0-9]\{6,\}" "$tmp/log" ||
			{ echo "FAIL: no released reap with >= 100000 KiB freed"; cat "$tmp/log"; return 1; }
		;;
	dying)
		[ "${rss:-0}" -lt 10240 ] || { echo "FAIL: dying victim still has $rss KiB"; return 1; }
		[ "$state" = FROZEN ] || { echo "FAIL: victim not frozen when measured ($state)"; return 1; }
		grep -q " reap scope=.* pid=$victim .*result=released.* freed_kib=[0-9]\{6,\}" "$tmp/log" ||
			{ echo "FAIL: no released reap with >= 100000 KiB freed"; cat "$tmp/log"; return 1; }
		! grep -q " kill scope=" "$tmp/log" ||
			{ echo "FAIL: a dying victim was killed again, or another besides"; cat "$tmp/log"; return 1; }
		[ ! -e "$tmp/hooked" ] || { echo "FAIL: the post-kill hook ran for a reap of a dying victim"; return 1; }
		;;
	noreap)
		[ "${rss:-0}" -gt 900000 ] || { echo "FAIL: unreaped victim lost its memory ($rss)"; return 1; }
		grep -q " reap scope=.* pid=$victim .*result=skipped" "$tmp/log" ||
			{ echo "FAIL: unreaped frozen victim not marked skipped"; cat "$tmp/log"; return 1; }
		;;
	esac
	kill -KILL "$filler" 2>/dev/null
	cg_destroy "$cg"
	rm -rf "$tmp"
}

run_case reap || exit 1
run_case noreap || exit 1
run_case dying || exit 1
