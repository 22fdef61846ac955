#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The machine bench (bench/machine/README.md): for each scenario, with and without zram, each
# contender enabled alone in a fresh copy of the Debian guest (image.sh), booted under qemu TCG
# (2 GiB, 2 CPUs), one boot per cell; then the report (report.sh).
# Usage: bench/machine/run.sh [--quick] [--contenders=a,b] [--scenarios=a,b] [--zram=0,1]
#                             [--oom-policy=stop|continue] [--out=DIR] [--report=FILE]
#                             [--no-report] [--resume] [--repeats=N] [--seed=N] [--order]
#   --quick       smaller scenarios (40 eaters, 90 s thrash, 16 MiB/s leak, 256 MiB fit steps)
#   contenders    kernel, oomguard, earlyoom, nohang, systemd-oomd (default: all)
#   scenarios     flood, thrash, leak, forkstorm, fit (default: all); idle: the probe alone
#   --zram=0,1    without and with a zram swap device (default: both)
#   --oom-policy  stop (systemd's default): the workload's units are scopes, which systemd stops
#                 when the kernel OOM-kills one of their tasks; continue: they are services with
#                 OOMPolicy=continue (cells SCENARIO[-zram]-continue)
#   --out=DIR     where the cells go (default build/machine/runs/UTC-TIME)
#   --report=FILE the report (default docs/bench-machine.md; plots beside it in docs/bench-machine/)
#   --resume      with --out=DIR of a run that stopped, and the options it was started with: the
#                 cells that have results are kept, the others (a cell cut short included) boot
#                 again from nothing, in the order it kept (DIR/order)
#   --repeats=N   every cell N times, repeat R's cells in DIR/rR/; --seed=N: all the boots in
#                 one shuffled order (that seed's), so that contenders meet the host's drift
#                 alike. Without either: each cell once, scenario by scenario, in DIR/
#   --order       print the boots' order ("REPEAT SCENARIO ZRAM CONTENDER") and stop
#   MB_TIMEOUT    seconds a cell may run before its guest is stopped (default 1200)
#   MB_IO         the user's disk throttle: "RBPS WBPS RIOPS" (default "50M 50M 1000")
#   MB_OOMGUARD_LOG_LEVEL  the guest oomguard's log_level (image.sh; default: as shipped)
#   MB_OOMGUARD_CONF       lines added to the guest's oomguard.conf (image.sh)
#   MB_PSI_GROUPS=1  the sampler also writes each unit's stall (memory, io, cpu) and refaults
#                 (out/psi-groups.log); off by default: it reads some 120 files every 200 ms beside
#                 the workload
#   MB_BALLAST_KIB=N  a system service holding N KiB of anon memory beside the contender (a
#                 daemon's own memory, measured without the daemon; default 0: none)
#   MB_TRACE=1    the guest kernel's trace buffer records where the contender's threads wait
#                 (switches away with their kernel stacks, direct reclaim, throttling):
#                 out/trace.txt (bench/machine/README.md, "Where the daemon waits")
set -euo pipefail
cd "$(dirname "$0")/../.."
quick=0 contenders=kernel,oomguard,earlyoom,nohang,systemd-oomd
scenarios=flood,thrash,leak,forkstorm,fit zrams=0,1 outdir="" report=docs/bench-machine.md
do_report=1 policy=stop resume=0 repeats=1 seed="" order_only=0
for arg in "$@"; do
	case $arg in
	--quick) quick=1 ;;
	--contenders=*) contenders=${arg#*=} ;;
	--scenarios=*) scenarios=${arg#*=} ;;
	--zram=*) zrams=${arg#*=} ;;
	--out=*) outdir=${arg#*=} ;;
	--oom-policy=stop | --oom-policy=continue) policy=${arg#*=} ;;
	--report=*) report=${arg#*=} ;;
	--no-report) do_report=0 ;;
	--resume) resume=1 ;;
	--repeats=*) repeats=${arg#*=} ;;
	--seed=*) seed=${arg#*=} ;;
	--order) order_only=1 ;;
	-h | --help) awk 'NR < 3 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
	esac
done
for c in ${contenders//,/ }; do
	case $c in kernel | oomguard | earlyoom | nohang | systemd-oomd) ;;
	*)
		echo "run.sh: unknown contender '$c' (valid: kernel, oomguard, earlyoom, nohang," \
			"systemd-oomd)" >&2
		exit 2
		;;
	esac
done
for s in ${scenarios//,/ }; do
	case $s in flood | thrash | leak | forkstorm | fit | idle) ;;
	*)
		echo "run.sh: unknown scenario '$s' (valid: flood, thrash, leak, forkstorm, fit, idle)" >&2
		exit 2
		;;
	esac
done
for z in ${zrams//,/ }; do
	case $z in 0 | 1) ;; *) echo "run.sh: --zram takes 0, 1 or 0,1, not '$z'" >&2; exit 2 ;; esac
done
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --repeats wants a positive number" >&2; exit 2; }
[[ -z $seed || $seed =~ ^[0-9]+$ ]] || { echo "run.sh: --seed wants a number" >&2; exit 2; }

# The boots' order: "REPEAT SCENARIO ZRAM CONTENDER" lines, scenario by scenario, or shuffled by
# the seed (bench/shuffle.sh).
boot_order() {
	local r s z c
	for ((r = 1; r <= repeats; r++)); do
		for s in ${scenarios//,/ }; do
			for z in ${zrams//,/ }; do
				for c in ${contenders//,/ }; do echo "$r $s $z $c"; done
			done
		done
	done | if [ -n "$seed" ]; then bench/shuffle.sh "$seed"; else cat; fi
}
if [ $order_only = 1 ]; then
	boot_order
	exit 0
fi
if [ $resume = 1 ] && { [ -z "$outdir" ] || [ ! -d "$outdir" ]; }; then
	echo "run.sh: --resume wants --out=DIR of an earlier run" >&2
	exit 2
fi
read -r rbps wbps riops <<<"${MB_IO:-50M 50M 1000}"
timeout_s=${MB_TIMEOUT:-1200}

bench/machine/image.sh
kernel=$(ls /boot/vmlinuz-*-cloud-amd64 | sort -V | tail -n1)
initrd=/boot/initrd.img-${kernel#/boot/vmlinuz-}
[ -r "$initrd" ] || { echo "run.sh: no $initrd" >&2; exit 1; }
img=$PWD/build/machine/root.img
outdir=${outdir:-build/machine/runs/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$outdir"
echo "run.sh: cells in $outdir"

# The guest's memory lives in the qemu process: keep it in a host memory cgroup with a limit.
. tests/lib/hostcg.sh
trap hostcg_cleanup EXIT
hostcg_new machine "$((4 << 30))"

# cell BASE SCENARIO ZRAM CONTENDER: one boot; its files in BASE/SCENARIO[-zram]/CONTENDER/.
cell() {
	local base=$1 scen=$2 z=$3 cont=$4 dir wants="" rc start
	dir=$base/$scen/$cont
	[ "$z" = 1 ] && dir=$base/$scen-zram/$cont
	[ "$policy" = stop ] || dir=${dir%/*}-$policy/$cont
	if [ $resume = 1 ] && [ -s "$dir/out/meta" ] && [ ! -e "$dir/results.img" ]; then
		echo "run.sh: $scen zram=$z $cont: kept (results in $dir)"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	qemu-img create -q -f qcow2 -b "$img" -F raw "$dir/root.qcow2"
	truncate -s 4G "$dir/scratch.img"
	mke2fs -q -F -t ext4 -L scratch "$dir/scratch.img"
	rm -f "$dir/results.img"
	truncate -s 256M "$dir/results.img"
	# The contender asked for is started as an enabled unit would be; systemd-oomd's socket
	# (enabled by its package) is masked for the others, or PID 1 would start it on its own.
	[ "$cont" = kernel ] || wants="systemd.wants=$cont.service"
	[ "$cont" = systemd-oomd ] ||
		wants="$wants systemd.mask=systemd-oomd.socket systemd.mask=systemd-oomd.service"
	# tb-size: TCG's translation cache (1 GiB by default) would not fit in the host cgroup.
	local args="root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 systemd.show_status=0 $wants"
	args="$args systemd.zram=$z mb.contender=$cont mb.scenario=$scen mb.quick=$quick mb.zram=$z"
	args="$args mb.rbps=$rbps mb.wbps=$wbps mb.riops=$riops mb.oompolicy=$policy"
	args="$args mb.psigroups=${MB_PSI_GROUPS:-0} mb.ballast=${MB_BALLAST_KIB:-0}"
	args="$args mb.trace=${MB_TRACE:-0}"
	local qemu=(qemu-system-x86_64 -accel tcg,tb-size=256 -m 2048 -smp 2 -nodefaults
		-display none -no-reboot -serial stdio -kernel "$kernel" -initrd "$initrd"
		-drive "file=$dir/root.qcow2,format=qcow2,if=virtio,cache=unsafe"
		-drive "file=$dir/scratch.img,format=raw,if=virtio,cache=unsafe"
		-drive "file=$dir/results.img,format=raw,if=virtio,cache=unsafe"
		-append "$args")
	echo "run.sh: $scen zram=$z $cont: booting"
	start=$(date +%s)
	set +e
	(
		[ -n "$hostcg" ] && echo $BASHPID >"$hostcg/cgroup.procs"
		echo $BASHPID >"$dir/qemu.pid"
		exec timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null
	) | tee "$dir/serial.log" | sed -u 's/\r$//' | sed -u -n 's/^.*mb-run.sh\[[0-9]*\]: MB /  /p'
	rc=${PIPESTATUS[0]}
	set -e
	echo "run.sh: $scen zram=$z $cont: guest ran $(($(date +%s) - start)) s (qemu exit $rc)"
	rm -f "$dir/root.qcow2" "$dir/scratch.img"
	if tar -C "$dir" -xf "$dir/results.img" 2>/dev/null && [ -s "$dir/out/meta" ]; then
		rm -f "$dir/results.img"
	else
		echo "run.sh: $scen zram=$z $cont: no results (see $dir/serial.log)" >&2
	fi
}

# Repeats (or a shuffle) put each repeat's cells in rR/; the order is kept for --resume.
split=0
{ [ "$repeats" -gt 1 ] || [ -n "$seed" ]; } && split=1
[ $resume = 1 ] && [ -s "$outdir/order" ] || boot_order >"$outdir/order"
while read -r r s z c <&3; do
	if [ $split = 1 ]; then cell "$outdir/r$r" "$s" "$z" "$c"; else cell "$outdir" "$s" "$z" "$c"; fi
done 3<"$outdir/order"
if [ $do_report = 1 ]; then
	if [ $split = 1 ]; then
		bench/machine/report.sh --out="$report" "$outdir"/r*
	else
		bench/machine/report.sh --out="$report" "$outdir"
	fi
fi
