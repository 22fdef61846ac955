#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hooks, the D-Bus signal and the metrics file, around a real kill in a 128 MiB v1 group
# (oom_kill_disable) with one 256 MiB eater. The pre-kill hook, waited for, vetoes the first
# verdict (exit 3) and lets the next through; both hooks see the victim in their environment;
# the post-kill hook's output is logged and, as it hangs, it is killed after hook_timeout_msec;
# a private bus (dbus-daemon --session) carries org.oomguard.Killed with the victim's fields,
# seen by dbus-monitor; the metrics file parses with prometheus_client and counts the kill.
set -u
cd "$(dirname "$0")/../.."
CG_TAG=hooks . tests/lib/cgroup.sh
. tests/lib/daemon.sh
cg_require || exit 77
og_require_tools mem_eater || exit 77
# Debian's python3, which has the package (a python3 earlier on PATH may not).
PY=/usr/bin/python3
for t in dbus-daemon dbus-monitor dbus-send $PY; do
	command -v "$t" >/dev/null || { echo "SKIP: $t is missing (scripts/deps.sh build)"; exit 77; }
done
"$PY" -c 'import prometheus_client' 2>/dev/null ||
	{ echo "SKIP: python3-prometheus-client is missing (scripts/deps.sh build)"; exit 77; }

tmp=$(mktemp -d)
FAIL_LOG=$tmp/log
bus_pid= mon=
trap 'og_cleanup; [ -n "$mon" ] && kill "$mon" 2>/dev/null;
	[ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cg_new CG 128M --oom-kill-disable || exit 1
dir=$(cg_path "$CG" memory)
mkdir "$tmp/metrics"

# The hooks: run without a shell, so they are scripts with a #! line.
cat >"$tmp/pre.sh" <<HOOK
#!/bin/sh
env | grep ^OOMGUARD_ >"$tmp/pre.env.\$OOMGUARD_PID.\$\$"
[ -e "$tmp/vetoed" ] && exit 0
touch "$tmp/vetoed"
echo "pre-kill: vetoing \$OOMGUARD_COMM"
exit 3
HOOK
cat >"$tmp/post.sh" <<HOOK
#!/bin/sh
env | grep ^OOMGUARD_ >"$tmp/post.env"
echo "post-kill: \$OOMGUARD_COMM freed \$OOMGUARD_FREED_KIB KiB"
exec sleep 30
HOOK
chmod +x "$tmp/pre.sh" "$tmp/post.sh"

read -r addr bus_pid < <(dbus-daemon --session --fork --print-address=1 --print-pid=1 |
	tr '\n' ' ')
[ -n "$addr" ] && [ -n "$bus_pid" ] || fail "no private bus"
dbus-monitor --address "$addr" "type='signal',interface='org.oomguard'" >"$tmp/mon" 2>&1 &
mon=$!

og_start "$tmp/log" --cgroup "$dir" --interval 50 --pre-kill-hook "$tmp/pre.sh" \
	--pre-kill-wait 3000 --pre-kill-veto --post-kill-hook "$tmp/post.sh" --hook-timeout 1000 \
	--dbus-signal --dbus-address "$addr" --metrics-textfile-dir "$tmp/metrics" || exit 1
grep -q "helper pid=[0-9]*: pre-kill hook (waited for) post-kill hook D-Bus signal metrics" \
	"$tmp/log" || fail "no helper line"
cg_spawn "$CG" eater "$OG_TOOLS/mem_eater" -s 4M -i 20 256M >/dev/null 2>&1

wait_grep 20 " kill scope=$dir pid=$eater " "$tmp/log" || fail "the eater was not killed"
grep -q "kill vetoed by the pre-kill hook scope=$dir pid=$eater comm=mem_eater exit=3" \
	"$tmp/log" || fail "no veto before the kill"
grep -q "pre-kill hook pid=[0-9]*: pre-kill: vetoing mem_eater" "$tmp/log" ||
	fail "the pre-kill hook's output is not in the log"
wait_grep 10 "post-kill hook pid=[0-9]*: still running after 1000 ms: killed" "$tmp/log" ||
	fail "the hanging post-kill hook was not killed"
grep -q "post-kill hook pid=[0-9]*: post-kill: mem_eater freed [1-9][0-9]* KiB" "$tmp/log" ||
	fail "the post-kill hook's output is not in the log"
wait_grep 10 'member=Killed' "$tmp/mon" || fail "no D-Bus signal: $(cat "$tmp/mon")"
sleep 0.5
og_stop || exit 1

# The environment: the victim and the decision.
n=$(ls "$tmp"/pre.env."$eater".* | wc -l)
[ "$n" = 2 ] || fail "the pre-kill hook ran $n times for the eater, want 2 (vetoed, then kill)"
pre=$(cat "$(ls "$tmp"/pre.env."$eater".* | head -1)")
cgroup=/${dir##*/memory/}
for want in "OOMGUARD_EVENT=pre_kill" "OOMGUARD_PID=$eater" "OOMGUARD_UID=0" \
	"OOMGUARD_COMM=mem_eater" "OOMGUARD_SCOPE=$dir" "OOMGUARD_CGROUP=$cgroup" \
	"OOMGUARD_REASON=no "; do
	grep -q "^$want" <<<"$pre" || fail "pre-kill environment lacks $want: $pre"
done
grep -q '^OOMGUARD_RSS_KIB=[1-9]' <<<"$pre" || fail "pre-kill: no RSS: $pre"
for want in "OOMGUARD_EVENT=post_kill" "OOMGUARD_PID=$eater" "OOMGUARD_UID=0" \
	"OOMGUARD_CGROUP=$cgroup" "OOMGUARD_RESULT=" "OOMGUARD_FREED_KIB=[1-9]" \
	"OOMGUARD_KILL_TO_FREED_USEC=[0-9]" "OOMGUARD_DETECT_TO_KILL_USEC=[0-9]"; do
	grep -q "^$want" "$tmp/post.env" ||
		fail "post-kill environment lacks $want: $(cat "$tmp/post.env")"
done

# The signal and its fields, in order: pid, comm, uid, scope, cgroup, reason, freed bytes.
sig=$(sed -n '/member=Killed/,$p' "$tmp/mon" | sed -n '2,8p' | sed 's/^ *//')
want=$(printf '%s\n' "int32 $eater" 'string "mem_eater"' 'uint32 0' "string \"$dir\"" \
	"string \"$cgroup\"")
[ "$(head -5 <<<"$sig")" = "$want" ] || fail "the signal's fields: $sig"
grep -q '^string "no ' <<<"$(sed -n 6p <<<"$sig")" || fail "the signal's reason: $sig"
grep -qE '^uint64 [1-9][0-9]{6,}$' <<<"$(sed -n 7p <<<"$sig")" || fail "the signal's freed: $sig"

# The metrics file, through a real parser.
"$PY" - "$tmp/metrics/oomguard.prom" "$dir" <<'PY' >"$tmp/py" 2>&1 ||
	fail "metrics: $(cat "$tmp/py" "$tmp/metrics/oomguard.prom")"
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
got = {}
for fam in text_string_to_metric_families(text):
    for s in fam.samples:
        if s.labels.get("scope") == sys.argv[2] and "le" not in s.labels:
            got[s.name] = s.value
def need(name, cond):
    if name not in got or not cond(got[name]):
        sys.exit("%s: %r" % (name, got.get(name)))
need("oomguard_kills_total", lambda v: v == 1)
need("oomguard_verdicts_total", lambda v: v >= 2)
need("oomguard_freed_bytes_total", lambda v: v > 64 << 20)
need("oomguard_rounds_total", lambda v: v > 16)
need("oomguard_no_progress_rounds_total", lambda v: v >= 16)
need("oomguard_detect_to_kill_seconds_count", lambda v: v == 1)
need("oomguard_kill_to_freed_seconds_count", lambda v: v == 1)
need("oomguard_limit_bytes", lambda v: v == 128 << 20)
PY
ls "$tmp/metrics" | grep -qv '^oomguard.prom$' && fail "left in the directory: $(ls "$tmp/metrics")"
[ -n "${OG_VERBOSE:-}" ] && cat "$tmp/log"
exit 0
