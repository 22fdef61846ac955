#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The test bench: the cover letter's scenarios (flood, fit, thrash, stuck victim) on the real kernel,
# each run in a fresh v1 memory cgroup, once per contender (the kernel alone, oomguard in two modes,
# earlyoom, nohang), N times; then bench/report.sh writes the report. Prints figures; not a test.
# Usage: bench/run.sh [--full] [--runs N] [--scenarios a,b] [--contenders a,b] [--out DIR]
#                     [--report FILE]
#   --full        the cover letter's sizes (2 GiB, 100 eaters of 80 MiB); default a quick size
#   --report FILE where the markdown goes (default docs/bench.md, plots beside it in docs/bench/)
#   OOMGUARD_BENCH_CMD  how to start oomguard on one cgroup: {oomguard} and {memcg} (the v1 memory
#                 group's directory) are replaced; default
#                 '{oomguard} run --log-level info --cgroup {memcg}' (+ --oom-kill-disable)
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD

profile=quick runs=3 scenarios=flood,fit,thrash,stuck
contenders=kernel,oomguard,oomguard-ockd,earlyoom,nohang
out="" report=docs/bench.md
while [ $# -gt 0 ]; do
	case $1 in
	--full) profile=full ;;
	--runs) runs=$2; shift ;;
	--scenarios) scenarios=$2; shift ;;
	--contenders) contenders=$2; shift ;;
	--out) out=$2; shift ;;
	--report) report=$2; shift ;;
	-h | --help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs wants a positive number" >&2; exit 2; }

CG_TAG=bench # read by tests/lib/cgroup.sh: groups are oomguard-test-bench-*
# shellcheck source=tests/lib/cgroup.sh
. tests/lib/cgroup.sh
cg_require || exit 1
scripts/deps.sh bench || exit 1

export BENCH_TOOLS=$top/build/tools
monitor=$top/build/rel/bench/bench_monitor
oomguard=$top/oomguard
for b in "$BENCH_TOOLS/mem_eater" "$BENCH_TOOLS/writer" "$BENCH_TOOLS/thrasher" "$monitor"; do
	[ -x "$b" ] || { echo "run.sh: $b is missing (make bench builds it)" >&2; exit 1; }
done

# Sizes (KiB). The quick profile keeps the shapes (flood: 4x the limit in eaters; thrash: anon +
# file 1.1x the limit) at a quarter of the memory so that the whole bench takes minutes.
MIB=1024
if [ "$profile" = full ]; then
	export FLOOD_LIMIT_KIB=$((2048 * MIB)) FLOOD_N=100 FLOOD_EATER_KIB=$((80 * MIB))
	export WRITER_SIZE_KIB=$((512 * MIB)) WARMUP_S=10 FLOOD_SETTLE_MS=10000 FLOOD_MAX_MS=900000
	export FIT_LIMIT_KIB=$((2048 * MIB)) FIT_HOLD_MS=5000 FIT_MAX_MS=120000 FIT_STEPS=6
	export THRASH_LIMIT_KIB=$((1024 * MIB)) THRASH_ANON_KIB=$((768 * MIB))
	export THRASH_FILE_KIB=$((384 * MIB)) THRASH_READ_BPS=$((16 << 20)) THRASH_MAX_MS=300000
	export STUCK_LIMIT_KIB=$((2048 * MIB)) STUCK_VICTIM_KIB=$((1200 * MIB))
	export STUCK_SECOND_KIB=$((1200 * MIB)) STUCK_MAX_MS=120000
else
	export FLOOD_LIMIT_KIB=$((512 * MIB)) FLOOD_N=25 FLOOD_EATER_KIB=$((80 * MIB))
	export WRITER_SIZE_KIB=$((128 * MIB)) WARMUP_S=3 FLOOD_SETTLE_MS=3000 FLOOD_MAX_MS=120000
	export FIT_LIMIT_KIB=$((512 * MIB)) FIT_HOLD_MS=2000 FIT_MAX_MS=30000 FIT_STEPS=5
	export THRASH_LIMIT_KIB=$((256 * MIB)) THRASH_ANON_KIB=$((192 * MIB))
	export THRASH_FILE_KIB=$((96 * MIB)) THRASH_READ_BPS=$((8 << 20)) THRASH_MAX_MS=45000
	export STUCK_LIMIT_KIB=$((512 * MIB)) STUCK_VICTIM_KIB=$((300 * MIB))
	export STUCK_SECOND_KIB=$((300 * MIB)) STUCK_MAX_MS=30000
fi

[ -z "$out" ] && out=$top/build/bench/$(date -u +%Y%m%dT%H%M%SZ)-$profile
mkdir -p "$out"
results=$out/results.tsv
: >"$results"
{
	echo "profile $profile"
	echo "runs $runs"
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "earlyoom $(dpkg-query -W -f='${Version}' earlyoom)"
	echo "nohang $(dpkg-query -W -f='${Version}' nohang)"
	echo "lxcfs $(dpkg-query -W -f='${Version}' lxcfs)"
	env | grep -E '^(FLOOD|WRITER|WARMUP|FIT|THRASH|STUCK)_' | sort | tr '=' ' '
} >"$out/meta"

# lxcfs gives earlyoom and nohang the cgroup's view of /proc/meminfo; start it when nobody has.
lxcfs_pid=""
start_lxcfs() {
	[ -r /var/lib/lxcfs/proc/meminfo ] && return 0
	# A mount left by an lxcfs that died answers "Transport endpoint is not connected": drop it.
	if grep -q ' /var/lib/lxcfs fuse.lxcfs ' /proc/mounts; then
		umount -l /var/lib/lxcfs 2>/dev/null
	fi
	mkdir -p /var/lib/lxcfs
	lxcfs /var/lib/lxcfs >"$out/lxcfs.log" 2>&1 &
	lxcfs_pid=$!
	for _ in $(seq 50); do
		[ -r /var/lib/lxcfs/proc/meminfo ] && return 0
		sleep 0.1
	done
	echo "run.sh: lxcfs did not come up (see $out/lxcfs.log)" >&2
	return 1
}
stop_lxcfs() {
	[ -n "$lxcfs_pid" ] || return 0
	kill -TERM "$lxcfs_pid" 2>/dev/null
	wait "$lxcfs_pid" 2>/dev/null
	umount /var/lib/lxcfs 2>/dev/null
	lxcfs_pid=""
}

# oomguard_cmd MEMCG CONTENDER: the command line that starts oomguard on one group; the
# oom_kill_disable mode adds --oom-kill-disable (the group has it set already, before any task).
oomguard_cmd() {
	local t=${OOMGUARD_BENCH_CMD:-'{oomguard} run --log-level info --cgroup {memcg}'}
	t=${t//\{oomguard\}/$oomguard}
	t=${t//\{memcg\}/$1}
	[ "$2" = oomguard-ockd ] && t+=" --oom-kill-disable"
	echo "$t"
}

# available CONTENDER: succeed when the contender can run here; else print why.
available() {
	case $1 in
	kernel) return 0 ;;
	earlyoom | nohang)
		command -v "$1" >/dev/null || { echo "$1 is not installed"; return 1; }
		start_lxcfs || { echo "lxcfs is not running"; return 1; }
		;;
	oomguard | oomguard-ockd)
		[ -x "$oomguard" ] || { echo "no ./oomguard binary"; return 1; }
		if [ -z "${OOMGUARD_BENCH_CMD:-}" ] && ! "$oomguard" run --help >/dev/null 2>&1; then
			echo "'oomguard run' is not available in this build ($("$oomguard" run --help 2>&1 | head -n1))"
			return 1
		fi
		;;
	*) echo "unknown contender"; return 1 ;;
	esac
}

limit_of() {
	case $1 in
	flood) echo "$FLOOD_LIMIT_KIB" ;;
	fit) echo "$FIT_LIMIT_KIB" ;;
	thrash) echo "$THRASH_LIMIT_KIB" ;;
	stuck) echo "$STUCK_LIMIT_KIB" ;;
	esac
}
max_ms_of() {
	case $1 in
	flood) echo $((FLOOD_MAX_MS + WARMUP_S * 1000)) ;;
	fit) echo $((FIT_MAX_MS + WARMUP_S * 1000)) ;;
	thrash) echo $((THRASH_MAX_MS + 60000)) ;;
	stuck) echo $((STUCK_MAX_MS + 30000)) ;;
	esac
}

# run_one SCENARIO CONTENDER RUNDIR: one scenario in a fresh cgroup; figures into RUNDIR/result.
run_one() {
	local scen=$1 who=$2 dir=$3 cg opts=() mon dpid="" spid deadline memcg into c
	mkdir -p "$dir"
	env | grep -E '^(FLOOD|WRITER|WARMUP|FIT|THRASH|STUCK)_' | sort | tr '=' ' ' >"$dir/env"
	opts=(--psi)
	[ "$scen" = stuck ] && opts+=(--freezer)
	[ "$scen" = thrash ] && opts+=(--read-bps "$dir" "$THRASH_READ_BPS")
	[ "$who" = oomguard-ockd ] && opts+=(--oom-kill-disable)
	if ! cg_new cg "$(limit_of "$scen")K" "${opts[@]}"; then
		echo "error cgroup" >"$dir/result"
		return 1
	fi
	memcg=$(cg_path "$cg" memory)
	"$monitor" -m "$memcg" -p "$(cg_path "$cg" unified)" -i 50 -o "$dir/monitor.log" &
	mon=$!
	if [[ $who == oomguard* ]]; then
		# shellcheck disable=SC2046
		$(oomguard_cmd "$memcg" "$who") >"$dir/daemon.log" 2>&1 &
		dpid=$!
		sleep 1
	fi
	export FREEZER_DIR
	FREEZER_DIR=$(cg_path "$cg" freezer)
	if [ "$who" = earlyoom ] || [ "$who" = nohang ]; then
		# A container: the driver, the daemon and the workload in one PID namespace in the group.
		CG_ENTER_CTRLS="memory unified blkio" cg_spawn "$cg" spid \
			unshare --pid --fork --mount --mount-proc "$top/bench/scenario.sh" "$scen" "$dir" \
			"$who" >"$dir/driver.log" 2>&1
	else
		# The driver stays outside (with oom_kill_disable a task in a full group can fail to
		# fork or fault); each workload task enters the group before exec.
		into=""
		for c in unified blkio memory; do # memory last: see cg_enter
			[ -d "$(cg_path "$cg" "$c")" ] && into+="$(cg_path "$cg" "$c")/cgroup.procs "
		done
		SPAWN_INTO=$into "$top/bench/scenario.sh" "$scen" "$dir" "$who" >"$dir/driver.log" 2>&1 &
		spid=$!
	fi
	deadline=$(($(date +%s%3N) + $(max_ms_of "$scen")))
	while kill -0 "$spid" 2>/dev/null; do
		if [ "$(date +%s%3N)" -ge "$deadline" ]; then
			echo "$(date +%s%3N) watchdog" >>"$dir/events.log"
			break
		fi
		sleep 0.2
	done
	[ -n "$dpid" ] && { kill -TERM "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; }
	kill -0 "$spid" 2>/dev/null && kill -TERM "$spid" 2>/dev/null # the driver, when it overran
	cg_destroy "$cg"
	wait "$spid" 2>/dev/null
	kill -TERM "$mon" 2>/dev/null
	wait "$mon" 2>/dev/null
	rm -rf "$dir/files" "$dir/tick.fifo"
	bench/analyze.sh "$scen" "$dir" >"$dir/result"
}

# fit_search CONTENDER RUNDIR: the largest size of 10 eaters (next to 2 writers) that all survive,
# by bisection between half and all of a tenth of the limit.
fit_search() {
	local who=$1 dir=$2 lo hi mid step ok_kib=0
	lo=$((FIT_LIMIT_KIB / 20)) hi=$((FIT_LIMIT_KIB / 10))
	for step in $(seq "$FIT_STEPS"); do
		mid=$(((lo + hi) / 2 / 256 * 256))
		FIT_EATER_KIB=$mid run_one fit "$who" "$dir/probe$step"
		if grep -qx 'fit ok' "$dir/probe$step/result"; then
			lo=$mid ok_kib=$mid
		else
			hi=$mid
		fi
		echo "    fit probe $step: $((mid / 1024)) MiB x 10: $(sed -n 's/^fit //p' "$dir/probe$step/result")"
	done
	{
		echo "max_eater_mib $((ok_kib / 1024))"
		echo "margin_mib $(((FIT_LIMIT_KIB - 10 * ok_kib) / 1024))"
	} >"$dir/result"
}

trap 'cg_cleanup_all; stop_lxcfs' EXIT
IFS=, read -r -a scen_list <<<"$scenarios"
IFS=, read -r -a who_list <<<"$contenders"
for who in "${who_list[@]}"; do
	if why=$(available "$who"); then
		echo "contender $who ok" >>"$out/meta"
	else
		echo "contender $who unavailable $why" >>"$out/meta"
		echo "bench: $who not available: $why"
	fi
done
for scen in "${scen_list[@]}"; do
	for run in $(seq "$runs"); do
		for who in "${who_list[@]}"; do
			grep -q "^contender $who ok" "$out/meta" || continue
			dir=$out/$scen/$who/run$run
			echo "bench: $scen $who run $run"
			if [ "$scen" = fit ]; then
				fit_search "$who" "$dir"
			else
				run_one "$scen" "$who" "$dir"
			fi
			sed "s/^/    /" "$dir/result"
			awk -v s="$scen" -v w="$who" -v r="$run" '{ print s "\t" w "\t" r "\t" $1 "\t" $2 }' \
				"$dir/result" >>"$results"
		done
	done
done
echo "bench: results in $out"
bench/report.sh "$out" "$report"
