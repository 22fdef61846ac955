#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages oomguard needs when they are missing (as root), or says which.
# Usage: scripts/deps.sh build|bench|vm|machine|fuzz|deb
set -eu
case "${1:-build}" in
# groff-base: tests/cli/man.sh formats the manual pages.
# dbus-daemon, dbus-bin, python3-prometheus-client: tests/integration/daemon_hooks.sh (a private
# bus and dbus-monitor for the kill signal; the metrics file read by a real parser).
# libnotify-bin, python3-dbus, python3-gi: tests/integration/daemon_desktop_notify.sh
# (notify-send, and a fake notification service on a private session bus).
build) pkgs="gcc make pkg-config libc6-dev musl-tools libcmocka-dev groff-base"
	pkgs="$pkgs dbus-daemon dbus-bin python3-prometheus-client libnotify-bin python3-dbus"
	pkgs="$pkgs python3-gi" ;;
bench) pkgs="gnuplot-nox earlyoom nohang lxcfs util-linux procps python3-minimal" ;;
vm) pkgs="qemu-system-x86 linux-image-cloud-amd64 busybox-static cpio gzip e2fsprogs kmod coreutils gcc libc6-dev" ;;
# make bench-machine (bench/machine/): a Debian guest built with mmdebstrap, booted with the
# host's cloud kernel under qemu (its results come back as a tar on a raw disk); gnuplot-nox plots.
machine) pkgs="mmdebstrap qemu-system-x86 qemu-utils linux-image-cloud-amd64 e2fsprogs tar gcc
	libc6-dev gnuplot-nox" ;;
# libFuzzer's runtime is in libclang-rt-dev, which clang only recommends (not installed here).
fuzz) pkgs="clang libclang-rt-dev make libc6-dev" ;;
# make deb: dpkg-buildpackage with debian/control's Build-Depends, then lintian.
deb) pkgs="dpkg-dev build-essential debhelper musl-tools lintian" ;;
*) echo "deps.sh: unknown set '$1' (valid: build, bench, vm, machine, fuzz, deb)" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing Debian packages:$missing (run as root, or: apt-get install$missing)" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
