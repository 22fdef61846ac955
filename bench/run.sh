#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The test bench: the cover letter's scenarios (flood, fit, thrash, stuck victim) on the real kernel,
# each run in a fresh v1 memory cgroup, N times per contender, all runs in a shuffled order; then
# bench/report.sh writes the report. Prints figures; not a test. Contenders: kernel, oomguard
# (as shipped, SCHED_FIFO), oomguard-nort (--no-realtime), oomguard-ockd (--oom-kill-disable),
# earlyoom (Debian's options), earlyoom-p (-p: nice -20), earlyoom-m1 (-m 1), nohang (Debian's
# config), nohang-rt (under chrt --rr 1), nohang-1pct (SIGTERM at 1 %, SIGKILL at 0.5 %).
# Usage: bench/run.sh [--full] [--runs N] [--seed N] [--scenarios a,b] [--contenders a,b]
#                     [--out DIR] [--report FILE] [--resume | --reanalyze]
#   --full        the cover letter's sizes (2 GiB, 100 eaters of 80 MiB); default a quick size
#   --runs N      runs per scenario and contender (default 10); --seed N: the order (default 1)
#   --report FILE where the markdown goes (default docs/bench.md, plots beside it in docs/bench/)
#   --resume      with --out DIR of a bench that stopped: the same order, only the runs that
#                 have no result yet (a run cut short is run again from nothing)
#   --reanalyze   with --out DIR of a finished bench: runs no workload; reads every run's logs
#                 again (bench/analyze.sh; fit keeps its results) and writes the report again
#   OOMGUARD_BENCH_CMD  how to start oomguard on one cgroup: {oomguard} and {memcg} (the v1 memory
#                 group's directory) are replaced; default
#                 '{oomguard} run --log-level info --cgroup {memcg}' (+ the contender's option)
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD

profile=quick runs=10 scenarios=flood,fit,thrash,stuck seed=1
contenders="" out="" report=docs/bench.md resume=0 reanalyze=0
while [ $# -gt 0 ]; do
	case $1 in
	--full) profile=full ;;
	--runs) runs=$2; shift ;;
	--seed) seed=$2; shift ;;
	--scenarios) scenarios=$2; shift ;;
	--contenders) contenders=$2; shift ;;
	--out) out=$2; shift ;;
	--report) report=$2; shift ;;
	--resume) resume=1 ;;
	--reanalyze) reanalyze=1 ;;
	-h | --help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs wants a positive number" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "run.sh: --seed wants a number" >&2; exit 2; }

CG_TAG=bench # read by tests/lib/cgroup.sh: groups are oomguard-test-bench-*
# shellcheck source=tests/lib/cgroup.sh
. tests/lib/cgroup.sh
cg_require || exit 1
scripts/deps.sh bench || exit 1

export BENCH_TOOLS=$top/build/tools
monitor=$top/build/rel/bench/bench_monitor
probe_bin=$top/build/rel/bench/bench_probe
oomguard=$top/oomguard
for b in "$BENCH_TOOLS/mem_eater" "$BENCH_TOOLS/writer" "$BENCH_TOOLS/thrasher" "$monitor" \
	"$probe_bin"; do
	[ -x "$b" ] || { echo "run.sh: $b is missing (make bench builds it)" >&2; exit 1; }
done

# Sizes (KiB). The quick profile keeps the shapes (flood: 4x the limit in eaters; thrash: anon +
# file 1.1x the limit) at a quarter of the memory so that the whole bench takes minutes.
MIB=1024
if [ "$profile" = full ]; then
	export FLOOD_LIMIT_KIB=$((2048 * MIB)) FLOOD_N=100 FLOOD_EATER_KIB=$((80 * MIB))
	export FLOOD_RESERVE_KIB=$((16 * MIB))
	export WRITER_SIZE_KIB=$((512 * MIB)) WARMUP_S=10 FLOOD_SETTLE_MS=10000 FLOOD_MAX_MS=900000
	export FIT_LIMIT_KIB=$((2048 * MIB)) FIT_HOLD_MS=5000 FIT_MAX_MS=120000 FIT_STEPS=6
	export THRASH_LIMIT_KIB=$((1024 * MIB)) THRASH_ANON_KIB=$((768 * MIB))
	export THRASH_FILE_KIB=$((384 * MIB)) THRASH_READ_BPS=$((16 << 20)) THRASH_MAX_MS=300000
	export STUCK_LIMIT_KIB=$((2048 * MIB)) STUCK_VICTIM_KIB=$((1200 * MIB))
	export STUCK_SECOND_KIB=$((1200 * MIB)) STUCK_MAX_MS=120000
else
	export FLOOD_LIMIT_KIB=$((512 * MIB)) FLOOD_N=25 FLOOD_EATER_KIB=$((80 * MIB))
	export FLOOD_RESERVE_KIB=$((16 * MIB))
	export WRITER_SIZE_KIB=$((128 * MIB)) WARMUP_S=3 FLOOD_SETTLE_MS=3000 FLOOD_MAX_MS=120000
	export FIT_LIMIT_KIB=$((512 * MIB)) FIT_HOLD_MS=2000 FIT_MAX_MS=30000 FIT_STEPS=5
	export THRASH_LIMIT_KIB=$((256 * MIB)) THRASH_ANON_KIB=$((192 * MIB))
	export THRASH_FILE_KIB=$((96 * MIB)) THRASH_READ_BPS=$((8 << 20)) THRASH_MAX_MS=45000
	export STUCK_LIMIT_KIB=$((512 * MIB)) STUCK_VICTIM_KIB=$((300 * MIB))
	export STUCK_SECOND_KIB=$((300 * MIB)) STUCK_MAX_MS=30000
fi

# reanalyze_all OUT: every run's result from its logs again, in the bench's order, except fit's
# (its search writes it) and a run that failed before its analysis (the daemon did not come up,
# saw another machine or died: nothing to analyse).
reanalyze_all() {
	local scen who run dir
	: >"$results.new"
	while read -r scen who run; do
		dir=$1/$scen/$who/run$run
		[ -f "$dir/result" ] || continue
		if [ "$scen" != fit ] && { ! grep -q '^failed ' "$dir/result" ||
			grep -q '^failed analysis' "$dir/result"; }; then
			bench/analyze.sh "$scen" "$dir" >"$dir/result" 2>"$dir/analyze.err" ||
				echo "failed analysis" >"$dir/result"
		fi
		cat "$dir/result" "$dir/other_cpu" 2>/dev/null |
			awk -v s="$scen" -v w="$who" -v r="$run" '{ print s "\t" w "\t" r "\t" $1 "\t" $2 }' \
				>>"$results.new"
	done <"$1/order"
	mv "$results.new" "$results"
}

[ -z "$out" ] && out=$top/build/bench/$(date -u +%Y%m%dT%H%M%SZ)-$profile
mkdir -p "$out"
# Absolute: paths are passed into the daemons' PID and mount namespace, whose cwd is not ours.
out=$(realpath "$out")
results=$out/results.tsv
if [ "$reanalyze" = 1 ]; then
	[ -s "$out/order" ] || { echo "run.sh: --reanalyze: $out has no order of a bench" >&2; exit 2; }
	reanalyze_all "$out"
	sed -i "/^reanalyzed /d" "$out/meta" # the newest analysis only
	echo "reanalyzed $(date -u +%Y-%m-%dT%H:%MZ) by bench/analyze.sh at $(git rev-parse --short HEAD 2>/dev/null || echo "an unknown commit")" >>"$out/meta"
	bench/report.sh "$out" "$report"
	exit
fi
if [ "$resume" = 1 ]; then
	[ -s "$out/order" ] || { echo "run.sh: --resume: $out has no order of a stopped bench" >&2; exit 2; }
else
	: >"$results"
fi
{
	echo "profile $profile"
	echo "runs $runs"
	echo "seed $seed"
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "earlyoom $(dpkg-query -W -f='${Version}' earlyoom)"
	echo "nohang $(dpkg-query -W -f='${Version}' nohang)"
	echo "lxcfs $(dpkg-query -W -f='${Version}' lxcfs)"
	env | grep -E '^(FLOOD|WRITER|WARMUP|FIT|THRASH|STUCK)_' | sort | tr '=' ' '
	[ "$resume" = 1 ] && echo "resumed $(date -u +%Y-%m-%dT%H:%MZ)"
} >"$out/meta.new"
# a resumed bench keeps its first meta (bench/report.sh reads the first line of each key)
if [ "$resume" = 1 ]; then cat "$out/meta.new" >>"$out/meta"; rm -f "$out/meta.new"
else mv "$out/meta.new" "$out/meta"; fi

# shellcheck source=bench/lxcfs.sh
. bench/lxcfs.sh

# Contenders. Each daemon runs in a memory group of its own (DAEMON_LIMIT), outside the
# workload's memory, blkio and PSI groups, as the driver and the probe do. earlyoom and nohang
# see the workload group as their machine: the first process of their PID namespace (a sleeper,
# pid 1 there, which earlyoom and nohang never kill) is in the workload group, and lxcfs answers
# /proc/meminfo from the group of a namespace's first process; their /proc lists only the
# namespace (the workload). The sleeper keeps the default oom_score_adj: lowering it needs
# CAP_SYS_RESOURCE.
ALL_CONTENDERS=kernel,oomguard,oomguard-nort,oomguard-ockd,earlyoom,earlyoom-p,earlyoom-m1
ALL_CONTENDERS+=,nohang,nohang-rt,nohang-1pct
[ -z "$contenders" ] && contenders=$ALL_CONTENDERS
DAEMON_LIMIT=256M # what the packages' units allow: earlyoom MemoryMax=50M, nohang 100M

# shellcheck source=bench/contenders.sh
. bench/contenders.sh
. bench/teardown.sh

# available CONTENDER: succeed when the contender can run here; else print why.
available() {
	case $1 in
	kernel) return 0 ;;
	earlyoom | earlyoom-* | nohang | nohang-*)
		command -v "${1%%-*}" >/dev/null || { echo "${1%%-*} is not installed"; return 1; }
		command -v nsenter >/dev/null || { echo "nsenter (util-linux) is missing"; return 1; }
		start_lxcfs || { echo "lxcfs is not running"; return 1; }
		if [ "$1" = nohang-1pct ] && ! nohang_1pct_conf; then
			echo "no $NOHANG_CONF"
			return 1
		fi
		;;
	oomguard | oomguard-nort | oomguard-ockd)
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
# The driver (scenario.sh), the monitor, the probe and every daemon run outside the workload's
# groups; each workload task enters them before exec. A run whose daemon did not come up, saw
# another machine or died is marked "failed REASON" and kept out of the medians.
run_one() {
	local scen=$1 who=$2 dir=$3 cg dcg opts=() mon probe spid deadline memcg into c fail=""
	mkdir -p "$dir"
	env | grep -E '^(FLOOD|WRITER|WARMUP|FIT|THRASH|STUCK)_' | sort | tr '=' ' ' >"$dir/env"
	opts=(--psi)
	[ "$scen" = stuck ] && opts+=(--freezer)
	[ "$scen" = thrash ] && opts+=(--read-bps "$dir" "$THRASH_READ_BPS")
	[ "$who" = oomguard-ockd ] && opts+=(--oom-kill-disable)
	if ! cg_new cg "$(limit_of "$scen")K" "${opts[@]}" || ! cg_new dcg "$DAEMON_LIMIT"; then
		echo "failed cgroup" >"$dir/result"
		return 1
	fi
	memcg=$(cg_path "$cg" memory)
	"$monitor" -m "$memcg" -p "$(cg_path "$cg" unified)" -i 50 -o "$dir/monitor.log" &
	mon=$!
	"$probe_bin" -i 100 -o "$dir/probe.log" &
	probe=$!
	NS_PID="" NS_WRAP="" DPID="" spid=""
	if in_ns "$who"; then
		if ! ns_start "$memcg" "$dir"; then
			fail=namespace
		elif ! view_ok "$dir" "$(limit_of "$scen")"; then
			fail=view
		fi
		echo "view $(tr '\n' ' ' <"$dir/view" 2>/dev/null) (limit $(limit_of "$scen") kB)"
	fi
	if [ -z "$fail" ] && ! daemon_start "$who" "$memcg" "$(cg_path "$dcg" memory)" "$dir"; then
		fail=daemon_not_ready
	fi
	[ -n "$DPID" ] && [ -z "$fail" ] &&
		echo "ready: $(grep -m1 -E "$(ready_re "$who")" "$dir/daemon.log" | cut -c1-80)"
	export FREEZER_DIR
	FREEZER_DIR=$(cg_path "$cg" freezer)
	into=""
	for c in unified blkio memory; do # memory last: see cg_enter
		[ -d "$(cg_path "$cg" "$c")" ] && into+="$(cg_path "$cg" "$c")/cgroup.procs "
	done
	if [ -z "$fail" ]; then
		SPAWN_INTO=$into SPAWN_NS=$NS_PID "$top/bench/scenario.sh" "$scen" "$dir" "$who" \
			>"$dir/driver.log" 2>&1 &
		spid=$!
		deadline=$(($(date +%s%3N) + $(max_ms_of "$scen")))
		while kill -0 "$spid" 2>/dev/null; do
			if [ "$(date +%s%3N)" -ge "$deadline" ]; then
				echo "$(date +%s%3N) watchdog" >>"$dir/events.log"
				break
			fi
			sleep 0.2
		done
		# liveness: the daemon must have lived through the run
		[ -n "$DPID" ] && ! kill -0 "$DPID" 2>/dev/null && fail=daemon_died
		kill -0 "$spid" 2>/dev/null && kill -TERM "$spid" 2>/dev/null # the driver overran
	fi
	[ -n "$DPID" ] && { kill -TERM "$DPID" 2>/dev/null; }
	cg_destroy "$cg"
	cg_destroy "$dcg"
	reap_bounded "$dir" daemon "$DPID"
	reap_bounded "$dir" namespace "$NS_WRAP"
	reap_bounded "$dir" driver "$spid"
	kill -TERM "$mon" "$probe" 2>/dev/null
	reap_bounded "$dir" monitor "$mon"
	reap_bounded "$dir" probe "$probe"
	rm -rf "$dir/files" "$dir/tick.fifo"
	if [ -n "$fail" ]; then
		echo "failed $fail" >"$dir/result"
	elif ! bench/analyze.sh "$scen" "$dir" >"$dir/result" 2>"$dir/analyze.err"; then
		fail=analysis
		echo "failed analysis" >"$dir/result" # its error in analyze.err; the logs stay
	fi
	if [ -n "$fail" ]; then
		echo "daemon ${who}: failed: $fail"
	elif [ -n "$DPID" ]; then
		echo "daemon ${who}: ok (ready, alive at the end)"
	fi
}

# fit_search CONTENDER RUNDIR: the largest size of 10 eaters (next to 2 writers) that all survive,
# by bisection between half and all of a tenth of the limit.
fit_search() {
	local who=$1 dir=$2 lo hi mid step ok_kib=0
	lo=$((FIT_LIMIT_KIB / 20)) hi=$((FIT_LIMIT_KIB / 10))
	for step in $(seq "$FIT_STEPS"); do
		mid=$(((lo + hi) / 2 / 256 * 256))
		mkdir -p "$dir/probe$step"
		FIT_EATER_KIB=$mid run_one fit "$who" "$dir/probe$step" >"$dir/probe$step/run.out"
		sed 's/^/    /' "$dir/probe$step/run.out"
		if grep -q '^failed' "$dir/probe$step/result"; then
			echo "failed probe${step}_$(sed -n 's/^failed //p' "$dir/probe$step/result")" >"$dir/result"
			return
		fi
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

# The bench and all it starts run in a cpuacct group of their own: what the machine spends
# beside it in a run is other load (bench/other-cpu.py), printed per run and in the report.
CPU_GROUP=/oomguard-test-bench-cpu-$$
cpu_dir=$CG_ROOT/cpuacct$CPU_GROUP
if ! mkdir "$cpu_dir"; then
	echo "run.sh: cannot make the bench's cpuacct group $cpu_dir" >&2
	exit 1
fi
if ! echo $$ >"$cpu_dir/cgroup.procs"; then
	rmdir "$cpu_dir" # made, but not joined: nothing of the bench's is in it
	echo "run.sh: cannot join the bench's cpuacct group $cpu_dir" >&2
	exit 1
fi
cpu_group_leave() {
	echo $$ >"$CG_ROOT/cpuacct/cgroup.procs" 2>/dev/null
	# on a signal, the bench's children may still be exiting in it: a few tries
	for _ in $(seq 50); do
		rmdir "$cpu_dir" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "run.sh: could not remove $cpu_dir" >&2
}
trap 'cg_cleanup_all; stop_lxcfs; cpu_group_leave' EXIT
IFS=, read -r -a scen_list <<<"$scenarios"
IFS=, read -r -a who_list <<<"$contenders"
# lxcfs is started here, not in available()'s subshell, so that the EXIT trap can stop it.
for who in "${who_list[@]}"; do
	if in_ns "$who"; then
		start_lxcfs
		break
	fi
done
for who in "${who_list[@]}"; do
	if why=$(available "$who"); then
		echo "contender $who ok $(daemon_cmd "$who" '{memcg}' | tr '\n' ' ')" >>"$out/meta"
	else
		echo "contender $who unavailable $why" >>"$out/meta"
		echo "bench: $who not available: $why"
	fi
done
# Every run of every cell, in an order shuffled by the seed: drift over the bench (other load,
# a warming disk) spreads over all contenders instead of favouring those that come first.
for scen in "${scen_list[@]}"; do
	for run in $(seq "$runs"); do
		for who in "${who_list[@]}"; do
			grep -q "^contender $who ok" "$out/meta" && echo "$scen $who $run"
		done
	done
done | bench/shuffle.sh "$seed" >"$out/order.new"
# a resumed bench keeps its first order (the meta lines above are appended again: the last wins)
if [ "$resume" = 1 ]; then rm -f "$out/order.new"; else mv "$out/order.new" "$out/order"; fi
total=$(wc -l <"$out/order") i=0
while read -r scen who run; do
	i=$((i + 1))
	dir=$out/$scen/$who/run$run
	if [ "$resume" = 1 ] && awk -F'\t' -v s="$scen" -v w="$who" -v r="$run" \
		'$1 == s && $2 == w && $3 == r { f = 1 } END { exit !f }' "$results"; then
		continue
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "bench: [$i/$total] $scen $who run $run"
	bench/other-cpu.py snap "$dir/other_cpu.snap" "$CPU_GROUP" || exit 1
	if [ "$scen" = fit ]; then
		fit_search "$who" "$dir"
	else
		run_one "$scen" "$who" "$dir" >"$dir/run.out"
		sed 's/^/    /' "$dir/run.out"
	fi
	bench/other-cpu.py diff "$dir/other_cpu.snap" "$CPU_GROUP" >"$dir/other_cpu" || exit 1
	sed "s/^/    /" "$dir/result" "$dir/other_cpu"
	cat "$dir/result" "$dir/other_cpu" |
		awk -v s="$scen" -v w="$who" -v r="$run" '{ print s "\t" w "\t" r "\t" $1 "\t" $2 }' \
			>>"$results"
done <"$out/order"
echo "bench: results in $out"
bench/report.sh "$out" "$report"
