#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The guest's side of the machine bench (bench/machine/README.md). Reads the kernel command
# line (mb.contender=, mb.scenario=, mb.quick=, mb.zram=, mb.rbps=, mb.riops=, mb.wbps=), checks
# the contender runs, throttles user.slice's disks through io.max, starts a protected system
# service and the probe (a user's app), runs the scenario as the user's apps, then writes
# everything to /dev/vdc as a tar and powers off. Console lines start with "MB ".
set -u
out=/run/mb/out
mkdir -p "$out" /run/mb/ready
chown bench:bench /run/mb /run/mb/out /run/mb/ready
contender=kernel scenario=none quick=0 zram=0 rbps=50M wbps=50M riops=1000 oompolicy=stop
psigroups=0 ballast=0 trace=0
for w in $(cat /proc/cmdline); do
	case $w in
	mb.contender=*) contender=${w#*=} ;;
	mb.scenario=*) scenario=${w#*=} ;;
	mb.quick=*) quick=${w#*=} ;;
	mb.zram=*) zram=${w#*=} ;;
	mb.rbps=*) rbps=${w#*=} ;;
	mb.wbps=*) wbps=${w#*=} ;;
	mb.riops=*) riops=${w#*=} ;;
	mb.oompolicy=*) oompolicy=${w#*=} ;;
	mb.psigroups=*) psigroups=${w#*=} ;;
	mb.ballast=*) ballast=${w#*=} ;;
	mb.trace=*) trace=${w#*=} ;;
	esac
done

now_ms() {
	local t=${EPOCHREALTIME/./}
	NOW=$((t / 1000))
}
ev() {
	now_ms
	echo "$NOW $*" >>"$out/events.log"
}
say() { echo "MB $*"; }
error=""
fail() {
	error="$error$*; "
	say "error: $*"
}
ubus=(runuser -u bench -- env XDG_RUNTIME_DIR=/run/user/1000)

ev boot uptime=$(cut -d' ' -f1 /proc/uptime)
say "up after $(cut -d' ' -f1 /proc/uptime) s: contender=$contender scenario=$scenario" \
	"quick=$quick zram=$zram"

# wait_for SECONDS CMD...: run CMD every 0.5 s until it succeeds. Return: 1 on time-out.
wait_for() {
	local n=$(($1 * 2))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.5
	done
}

case $contender in
kernel) unit="" ;;
oomguard | earlyoom | nohang | systemd-oomd) unit=$contender.service ;;
*) unit="" && fail "unknown contender $contender" ;;
esac
wait_for 60 systemctl is-active user@1000.service || fail "user@1000.service not active"
if [ -n "$unit" ]; then
	wait_for 30 systemctl is-active "$unit" || fail "$unit not active"
fi
# Only the contender asked for: no other is running.
for u in oomguard earlyoom nohang nohang-desktop systemd-oomd; do
	[ "$u.service" = "$unit" ] && continue
	systemctl -q is-active "$u.service" && fail "$u.service runs beside $contender"
done
# The disk for the page cache, the user's to write on.
if mountpoint -q /mnt/scratch; then
	chown bench:bench /mnt/scratch
else
	fail "/mnt/scratch not mounted"
fi
swaps=$(swapon --show=NAME,SIZE --noheadings --bytes | tr '\n' ' ')
if [ "$zram" = 1 ] && [ -z "$swaps" ]; then fail "no zram swap"; fi
if [ "$zram" = 0 ] && [ -n "$swaps" ]; then fail "swap present: $swaps"; fi

# A slow disk for the user's apps: both disks throttled through io.max on user.slice.
props=()
for d in /dev/vda /dev/vdb; do
	props+=("IOReadBandwidthMax=$d $rbps" "IOWriteBandwidthMax=$d $wbps" "IOReadIOPSMax=$d $riops")
done
systemctl set-property --runtime user.slice "${props[@]}" || fail "io.max on user.slice"

{
	echo "contender=$contender"
	echo "scenario=$scenario"
	echo "quick=$quick"
	echo "zram=$zram"
	echo "oom_policy=$oompolicy"
	echo "swaps=$swaps"
	echo "kernel=$(uname -r)"
	echo "mem_total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
	echo "io=rbps $rbps wbps $wbps riops $riops"
	echo "psi_groups=$psigroups"
	echo "ballast_kib=$ballast"
	echo "trace=$trace"
	echo "io_max=$(tr '\n' ';' </sys/fs/cgroup/user.slice/io.max 2>/dev/null)"
	case $contender in
	kernel) echo "contender_version=" ;;
	oomguard)
		echo "contender_version=$(oomguard --version 2>&1 | head -n 1)"
		# what its configuration sets (keys not commented out)
		echo "oomguard_conf=$(grep -Ev '^[[:space:]]*(#|$|\[)' /etc/oomguard.conf | tr '\n' ';')"
		;;
	*) echo "contender_version=$(dpkg-query -W -f='${Version}' "$contender" 2>/dev/null)" ;;
	esac
} >"$out/meta"

# The memory sampler (memory-locked, exempt from kills like the harness), then the service.
# With mb.psigroups=1, psi-groups.log: each unit's memory stall beside them (the root's, the
# system's, the user's apps).
groups=()
[ "$psigroups" = 1 ] && groups=(-g "$out/psi-groups.log" /sys/fs/cgroup /sys/fs/cgroup/system.slice
	/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice)
/usr/local/bin/mb_sample "${groups[@]}" >"$out/samples.log" &
sampler=$!
# A system service a user expects to survive (a database, sshd): 64 MiB it keeps.
systemd-run -q --unit=mb-service /usr/local/bin/mem_eater 64 || fail "mb-service"
# With mb.ballast=KIB, a system service holding that much anon memory beside any contender: what
# a daemon's own memory (its RSS and the kernel's memory for it) costs the others, measured alone.
[ "$ballast" = 0 ] || systemd-run -q --unit=mb-ballast /usr/local/bin/mem_eater "${ballast}K" ||
	fail "mb-ballast"
# The probe, first of the user's apps (a terminal): its own user unit, lines to probe.log.
"${ubus[@]}" systemd-run -q --user --unit=mb-probe -p StandardOutput="file:$out/probe.log" \
	/usr/local/bin/mb_probe || fail "mb-probe"
sleep 5
# What the user's apps get (the user's manager gives its services +100 over its own): the
# scenario's tasks get it too (mb-run.sh's own -1000 is not theirs).
ppid=$("${ubus[@]}" systemctl --user show -p MainPID --value mb-probe)
USER_ADJ=$(cat "/proc/$ppid/oom_score_adj" 2>/dev/null) || fail "the probe is not running"
echo "user_oom_score_adj=${USER_ADJ:-}" >>"$out/meta"

# systemd-oomd's own view before and after: whether it watches the user's manager (the
# pressure rule) and the swap rule's context, its pgscan and pressure readings.
if [ "$contender" = systemd-oomd ]; then
	oomctl dump >"$out/oomctl-start.txt" 2>&1
	grep -q 'user@1000\.service' "$out/oomctl-start.txt" ||
		fail "systemd-oomd does not watch user@1000.service (oomctl-start.txt)"
fi

# What the contender's service holds as the scenario starts (its anon, the kernel's memory
# charged to it, what it locks), and the ballast's (mb.ballast): contender-memory.stat.
units=$unit
[ "$ballast" = 0 ] || units="$units mb-ballast.service"
for u in $units; do
	f=/sys/fs/cgroup/system.slice/$u/memory.stat
	[ -r "$f" ] && { echo "unit $u memory.current $(cat "${f%.stat}.current")"; cat "$f"; }
done >"$out/contender-memory.stat" 2>&1

# With mb.trace=1, trace.txt: where the contender's threads wait. Every switch away from one of
# them and every direct reclaim it enters, each with its kernel stack, and reclaim's throttling
# (the kernel's trace buffer: recording allocates nothing when memory is short). Its clock is
# boot time; the marker line "mb realtime" gives the wall clock beside it.
trace_dir=/sys/kernel/tracing
trace_start() {
	local t=$trace_dir pid pids e
	[ "$trace" = 1 ] && [ -n "$unit" ] || return 0
	[ -e $t/trace_marker ] || mount -t tracefs nodev $t || { fail "no tracefs"; return; }
	pid=$(systemctl show -p MainPID --value "$unit")
	[ "${pid:-0}" -gt 0 ] || { fail "trace: no main pid for $unit"; return; }
	pids=$(ls "/proc/$pid/task" | tr '\n' ' ')
	echo boot >$t/trace_clock
	echo 16384 >$t/buffer_size_kb
	echo 1 >$t/options/event-fork
	echo "$pids" >$t/set_event_pid
	for e in vmscan/mm_vmscan_direct_reclaim_begin vmscan/mm_vmscan_direct_reclaim_end \
		vmscan/mm_vmscan_throttled sched/sched_switch sched/sched_wakeup; do
		echo 1 >"$t/events/$e/enable" || fail "trace: $e"
	done
	echo 'stacktrace if prev_comm ~ "oomguard*"' >$t/events/sched/sched_switch/trigger ||
		fail "trace: sched_switch trigger"
	echo 'stacktrace if comm ~ "oomguard*"' >$t/events/vmscan/mm_vmscan_direct_reclaim_begin/trigger ||
		fail "trace: direct reclaim trigger"
	echo "mb realtime $EPOCHREALTIME pids $pids" >$t/trace_marker
	echo 1 >$t/tracing_on
}
trace_stop() {
	[ "$trace" = 1 ] && [ -n "$unit" ] && [ -e $trace_dir/trace_marker ] || return 0
	echo "mb realtime $EPOCHREALTIME end" >$trace_dir/trace_marker
	echo 0 >$trace_dir/tracing_on
	cp $trace_dir/trace "$out/trace.txt"
}

. /usr/local/lib/mb/scenarios.sh
trace_start
if [ -z "$error" ]; then
	say "scenario $scenario starts"
	ev start
	# Its stderr (bash's notes of each killed job among them) to a file of its own.
	"scenario_$scenario" 2>>"$out/harness.err"
	ev end
	say "scenario $scenario ended"
fi
trace_stop
kill "$sampler"
[ "$contender" = systemd-oomd ] && oomctl dump >"$out/oomctl-end.txt" 2>&1
stop_tasks

# What became of the probe and the service, then everything to /dev/vdc.
props=ActiveState,Result,ExecMainPID,ExecMainCode,ExecMainStatus
"${ubus[@]}" systemctl --user show mb-probe -p "$props" >"$out/probe.result" 2>&1
systemctl show mb-service -p "$props" >"$out/service.result"
"${ubus[@]}" systemctl --user stop mb-probe
systemctl stop mb-service
echo "error=$error" >>"$out/meta"
journalctl -b -o short-unix --no-pager >"$out/journal.txt" 2>&1
cp /proc/vmstat "$out/vmstat"
tar -C /run/mb -cf - out | dd of=/dev/vdc bs=1M conv=fsync status=none ||
	say "error: results not written"
frozen=$(awk '{ split($3, a, "="); if (a[2] > 1000) n++ } END { print n + 0 }' "$out/probe.log")
say "results written ($(du -sk "$out" | cut -f1) KiB): frozen seconds $frozen"
say "done"
systemctl --force --force poweroff
