#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the machine bench's guest image when it is missing or older than what it is made of:
#   build/machine/debian/     Debian bookworm from Debian's mirror (mmdebstrap, as root): systemd
#                             as init, systemd-oomd, earlyoom, nohang, systemd-zram-generator
#   build/machine/root.img    that tree plus the host kernel's modules, oomguard installed with
#                             `make install`, the workloads, the probe and the guest's harness
#                             (bench/machine/guest/), as a 4 GiB sparse ext4 image (mke2fs -d)
# Every contender is installed and disabled; a boot enables one with systemd.wants= on the kernel
# command line (bench/machine/run.sh). Usage: bench/machine/image.sh [--force]
# MB_OOMGUARD_LOG_LEVEL=debug: the guest's oomguard logs at that level; MB_OOMGUARD_CONF: lines
# added to its oomguard.conf (the image is rebuilt when either changes; unset: as shipped).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/machine
deb=$out/debian
img=$out/root.img
force=0
[ "${1:-}" = --force ] && force=1

scripts/deps.sh machine
kernel=$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n1 || true)
[ -n "$kernel" ] || { echo "image.sh: no /boot/vmlinuz-*-cloud-amd64" >&2; exit 1; }
kver=${kernel#/boot/vmlinuz-}
mkdir -p "$out"

# The Debian part: the slow one (a download), rebuilt only when this script's package list
# changes (its line is kept beside the tree, in debian.pkgs).
pkgs="systemd-sysv,udev,dbus,dbus-user-session,libpam-systemd,systemd-oomd,earlyoom,nohang"
pkgs="$pkgs,systemd-zram-generator,procps,util-linux,kmod,e2fsprogs,less"
if [ $force = 1 ] || [ ! -f "$deb/etc/debian_version" ] ||
	[ "$(cat "$deb.pkgs" 2>/dev/null)" != "$pkgs" ]; then
	echo "image.sh: mmdebstrap bookworm ($pkgs)"
	rm -rf "$deb" "$deb.tmp" "$deb.pkgs"
	mmdebstrap --variant=minbase --include="$pkgs" bookworm "$deb.tmp"
	mv "$deb.tmp" "$deb"
	echo "$pkgs" >"$deb.pkgs"
fi

# The rest is quick: redone when anything it is made of is newer than the image.
inputs=("$deb.pkgs" "$0" bench/machine/guest/* bench/machine/mb_*.c tools/*.c tools/*.h
	tests/vm/vm_eater.c
	dist/oomguard.service.in dist/oomguard.conf src/*/*.c src/*/*.h)
log_level=${MB_OOMGUARD_LOG_LEVEL:-}
case $log_level in "" | error | warning | notice | info | debug) ;;
*) echo "image.sh: MB_OOMGUARD_LOG_LEVEL is error, warning, notice, info or debug," \
	"not '$log_level'" >&2
	exit 2 ;;
esac
# Lines added to the guest's oomguard.conf (MB_OOMGUARD_CONF, "key = value" lines), for a cell
# that measures oomguard configured otherwise than shipped (the report must say so).
conf_extra=${MB_OOMGUARD_CONF:-}
while IFS= read -r line; do
	[ -z "$line" ] || [[ $line =~ ^[a-z_]+\ =\ [^[:cntrl:]]+$ ]] || {
		echo "image.sh: MB_OOMGUARD_CONF wants 'key = value' lines, not '$line'" >&2
		exit 2
	}
done <<<"$conf_extra"
stamp="$log_level|$conf_extra"
if [ $force = 0 ] && [ -s "$img" ] && [ "$(cat "$img.oomguard-conf" 2>/dev/null)" = "$stamp" ] &&
	[ -z "$(find "${inputs[@]}" -newer "$img" 2>/dev/null)" ]; then
	exit 0
fi
echo "image.sh: assembling $img"
root=$out/root
rm -rf "$root"
mkdir -p "$root"
cp -a "$deb/." "$root/"

# The kernel's modules (zram, virtio); the kernel itself boots from the host's /boot.
mkdir -p "$root/lib/modules"
cp -a "/lib/modules/$kver" "$root/lib/modules/"

# oomguard the way a user installs it from source: its unit (Type=notify) and configuration.
make -s oomguard >/dev/null
make -s install DESTDIR="$PWD/$root" PREFIX=/usr >/dev/null
# A log level other than the shipped one, for a run that must show every round (run.sh), and
# MB_OOMGUARD_CONF's lines. oomguard refuses a key given twice, so a key the shipped file sets
# (interval_msec) is taken out of it first.
conf_set() { # "key = value"
	sed -i "/^${1%% *}[[:space:]]*=/d" "$root/etc/oomguard.conf"
	echo "$1" >>"$root/etc/oomguard.conf"
}
[ -z "$log_level" ] || conf_set "log_level = $log_level"
while IFS= read -r line; do
	[ -z "$line" ] || conf_set "$line"
done <<<"$conf_extra"

# The workloads and the probe, static.
static=(-static -std=gnu11 -D_GNU_SOURCE -Isrc -O2 -g -Wall -Wextra -Werror -Wshadow -Wconversion)
bin=$root/usr/local/bin
mkdir -p "$bin"
for t in tools/mem_eater.c tools/writer.c tools/thrasher.c tests/vm/vm_eater.c \
	bench/machine/mb_probe.c bench/machine/mb_sample.c; do
	${CC:-cc} "${static[@]}" -o "$bin/$(basename "$t" .c)" "$t" -lpthread -lm
done
install -D -m 0755 bench/machine/guest/mb-run.sh "$root/usr/local/lib/mb/mb-run.sh"
install -D -m 0644 bench/machine/guest/scenarios.sh "$root/usr/local/lib/mb/scenarios.sh"
install -D -m 0644 bench/machine/guest/mb-run.service "$root/etc/systemd/system/mb-run.service"

# systemd-oomd as Fedora's systemd-oomd-defaults sets it up: the swap rule on the root slice,
# the pressure rule (50 % for 20 s) on every user's service manager.
install -d "$root/etc/systemd/system/-.slice.d" "$root/etc/systemd/system/user@.service.d" \
	"$root/etc/systemd/oomd.conf.d"
printf '[Slice]\nManagedOOMSwap=kill\n' >"$root/etc/systemd/system/-.slice.d/10-oomd-root.conf"
printf '[Service]\nManagedOOMMemoryPressure=kill\nManagedOOMMemoryPressureLimit=50%%\n' \
	>"$root/etc/systemd/system/user@.service.d/10-oomd-user.conf"
printf '[OOM]\nDefaultMemoryPressureDurationSec=20s\n' \
	>"$root/etc/systemd/oomd.conf.d/10-oomd-defaults.conf"
# zram as Fedora's zram-generator-defaults: a zram device the size of RAM (at most 8 GiB),
# zstd. Off unless the kernel command line says systemd.zram=1 (run.sh passes 0 or 1).
printf '[zram0]\nzram-size = min(ram, 8192)\ncompression-algorithm = zstd\n' \
	>"$root/etc/systemd/zram-generator.conf"

cat >"$root/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,errors=remount-ro 0 1
/dev/vdb /mnt/scratch ext4 rw,nofail,x-systemd.device-timeout=20s 0 2
FSTAB
mkdir -p "$root/mnt/scratch"
echo machine-bench >"$root/etc/hostname"
chroot "$root" /bin/sh -ec '
	useradd -m -u 1000 -s /bin/bash bench
	passwd -d root >/dev/null
	mkdir -p /var/lib/systemd/linger
	touch /var/lib/systemd/linger/bench
	systemctl -q disable earlyoom.service nohang.service nohang-desktop.service 2>/dev/null || true
	systemctl -q disable systemd-oomd.service systemd-oomd.socket 2>/dev/null || true
	systemctl -q disable oomguard.service 2>/dev/null || true
	systemctl -q enable mb-run.service
	# Nothing else wakes up during a run.
	systemctl -q mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
		systemd-tmpfiles-clean.timer man-db.timer dpkg-db-backup.timer \
		serial-getty@ttyS0.service getty@tty1.service 2>/dev/null || true
	systemctl -q set-default multi-user.target
'
rm -f "$img.tmp"
truncate -s 4G "$img.tmp"
mke2fs -q -F -t ext4 -L mbroot -d "$root" "$img.tmp"
mv "$img.tmp" "$img"
echo "$stamp" >"$img.oomguard-conf"
rm -rf "$root"
echo "image.sh: $img ready ($(du -h "$img" | cut -f1) used of 4 GiB)"
