#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs oomguard's cgroup v2 and whole-machine tests in a guest: Debian's cloud kernel, an initramfs
# of busybox-static, a static oomguard and the workloads, a scratch ext4 disk, under
# qemu-system-x86_64 -accel tcg (2 GiB, 2 CPUs, no swap). Prints the guest's test lines and exits
# non-zero when a test fails, the guest says nothing conclusive, or it times out.
# Usage: tests/vm/run.sh [--quick] [--runs=N] [base,daemon,thrash,flood,thrash-grid]   (default:
#        all but thrash-grid, one full flood)
#   --quick     a smaller flood (40 eaters of 80 MiB)
#   --runs=N    run the flood N times (kernel alone, then oomguard, each time) and print medians
#   VM_TIMEOUT  seconds before the guest is stopped (default 1500)
#   VM_OOMGUARD a static oomguard binary (or script) to test instead of this tree's
#   VM_LOGLEVEL the guest kernel's console loglevel (default 1; 4 shows the OOM kills as they come)
#   VM_OOMGUARD_ARGS  extra options for every `oomguard run` in the guest, comma-separated
#               (e.g. --log-level,debug: the flood then sums up the daemon's round verdicts)
#   VM_CHURN_S  seconds daemon-churn-v2 lets its writer churn (default 30)
#   VM_GRID_ONLY  thrash-grid: only the cells ("SCOPE KIND RATE OVER ANON MODE") matching this
#               extended regular expression (no spaces: write them as "."; e.g. machine.thrash)
#   VM_READ_AHEAD thrash-grid: the scratch disk's read_ahead_kb (default: the kernel's, 128)
#   VM_GRID_ROUNDS thrash-grid: 1 prints every round of oomguard's debug log per cell (ROUND lines)
#   VM_GRID_BUSY  thrash-grid: N CPU hogs beside each cell's workload, in its group (default 0)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/vm
root=$out/root
flood=100x80
tests=all
runs=1
for arg in "$@"; do
	case $arg in
	--quick) flood=40x80 ;;
	--runs=*) runs=${arg#--runs=} ;;
	--*) echo "usage: tests/vm/run.sh [--quick] [--runs=N] [base,daemon,thrash,flood,thrash-grid]" >&2; exit 2 ;;
	*) tests=$arg ;;
	esac
done
timeout_s=${VM_TIMEOUT:-1500}

scripts/deps.sh vm
kernel=$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$kernel" ]; then
	echo "run.sh: no /boot/vmlinuz-*-cloud-amd64 (install linux-image-cloud-amd64)" >&2
	exit 1
fi
kver=${kernel#/boot/vmlinuz-}
cc=${CC:-cc}
static_flags=(-static -std=gnu11 -D_GNU_SOURCE -Isrc -O2 -g -Wall -Wextra -Werror -Wshadow -Wconversion)

# The guest's file system: busybox, static binaries, the scripts and the virtio modules.
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,mnt,lib/modules}
cp /bin/busybox "$root/bin/busybox"
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
"$cc" "${static_flags[@]}" -o "$root/bin/vm_eater" tests/vm/vm_eater.c
"$cc" "${static_flags[@]}" -o "$root/bin/vm_watch" tests/vm/vm_watch.c
"$cc" "${static_flags[@]}" -o "$root/bin/vm_fincore" tests/vm/vm_fincore.c
# oomguard as `make oomguard` built it: static (musl) by default; a LIBC=glibc build is relinked
# statically from its objects.
# VM_OOMGUARD=FILE puts another (static) oomguard into the guest instead.
if [ -n "${VM_OOMGUARD:-}" ]; then
	install -m 0755 "$VM_OOMGUARD" "$root/bin/oomguard"
else
	make -s oomguard >/dev/null
	if ! readelf -l oomguard | grep -q INTERP; then
		install -m 0755 oomguard "$root/bin/oomguard"
	else
		objs=()
		for src in src/policy/*.c src/sim/*.c src/linux/*.c src/daemon/*.c src/cli/*.c; do
			[ -f "$src" ] && objs+=("build/rel/${src%.c}.o")
		done
		"$cc" -static -o "$root/bin/oomguard" "${objs[@]}" -lpthread -lm
	fi
fi
for t in tools/*.c; do
	[ -f "$t" ] || continue
	"$cc" "${static_flags[@]}" -o "$root/bin/$(basename "$t" .c)" "$t" -lpthread -lm
done
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	f=$(modinfo -k "$kver" -n "$m")
	case $f in
	*.ko) cp "$f" "$root/lib/modules/$m.ko" ;;
	*.ko.xz) xz -dc "$f" >"$root/lib/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$root/lib/modules/$m.ko" ;;
	*) echo "run.sh: module $m not found for $kver" >&2; exit 1 ;;
	esac
done
install -m 0755 tests/vm/init.sh "$root/init"
install -m 0644 tests/vm/tests.sh tests/vm/tests-daemon.sh tests/vm/tests-thrash.sh \
	tests/vm/tests-thrash-grid.sh tests/vm/tests-flood.sh "$root/"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out/initramfs.cpio.gz"

# A scratch disk the writers fill: a real block device and file system, so their dirty pages are
# reclaimable page cache as in the cover letter's setup (a tmpfs would not be).
rm -f "$out/disk.img"
truncate -s 1G "$out/disk.img"
mke2fs -q -F -t ext4 -L scratch "$out/disk.img"

log=$out/serial.log
qemu=(qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -nodefaults -display none -no-reboot
	-serial stdio -kernel "$kernel" -initrd "$out/initramfs.cpio.gz"
	-drive "file=$out/disk.img,format=raw,if=virtio,cache=unsafe"
	-append "console=ttyS0 loglevel=${VM_LOGLEVEL:-1} panic=-1 log_buf_len=8M vmtests=$tests vmflood=$flood vmruns=$runs${VM_OOMGUARD_ARGS:+ vmogargs=$VM_OOMGUARD_ARGS}${VM_CHURN_S:+ VM_CHURN_S=$VM_CHURN_S}${VM_GRID_ONLY:+ vmgridonly=$VM_GRID_ONLY}${VM_READ_AHEAD:+ vmreadahead=$VM_READ_AHEAD}${VM_GRID_BUSY:+ vmgridbusy=$VM_GRID_BUSY}${VM_GRID_ROUNDS:+ vmgridrounds=$VM_GRID_ROUNDS}")

# The guest's memory lives in the qemu process: keep it in a host memory cgroup with a limit.
. tests/lib/hostcg.sh
trap hostcg_cleanup EXIT
hostcg_new vm "$((3 << 30))"

echo "run.sh: booting $kernel under TCG (tests: $tests, flood: $flood x $runs, timeout ${timeout_s} s)"
start=$(date +%s)
set +e
# build/vm/qemu.pid holds the pid to kill to stop the guest.
(
	[ -n "$hostcg" ] && echo $BASHPID >"$hostcg/cgroup.procs"
	echo $BASHPID >"$out/qemu.pid"
	exec timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null
) | tee "$log" | sed -u "s/\r$//" | grep --line-buffered -E "^(PASS|FAIL|SKIP|INFO|GRID|init:|tests:)"
rc=${PIPESTATUS[0]}
set -e
elapsed=$(($(date +%s) - start))
echo "run.sh: guest ran ${elapsed} s (qemu exit $rc), serial log in $log"
summary=$(tr -d '\r' <"$log" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n1 || true)
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "FAIL vm: timed out after ${timeout_s} s"
	echo "${summary:-0 passed, 1 failed, 0 skipped}"
	exit 1
fi
if [ -z "$summary" ]; then
	echo "FAIL vm: the guest printed no summary (qemu exit $rc); see $log"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
echo "$summary"
failed=$(echo "$summary" | sed 's/.* \([0-9]*\) failed.*/\1/')
[ "$failed" = 0 ] || exit 1
exit 0
