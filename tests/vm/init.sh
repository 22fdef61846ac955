#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# The guest's /init: mounts the kernel file systems and cgroup v2 with the memory controller,
# loads the virtio disk driver, mounts the scratch ext4 disk on /mnt, runs /tests.sh with the
# kernel command line's `vmtests=` selection, and powers the guest off whatever happened.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tmpfs -o size=64m tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control

# The cloud kernel builds ext4 in but virtio as modules: load them in dependency order.
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	insmod "/lib/modules/$m.ko" 2>/dev/null
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -b /dev/vda ] && mount -t ext4 /dev/vda /mnt; then
	export VM_DISK=/mnt
else
	echo "init: no scratch disk, writers fall back to /tmp"
fi

echo "init: guest up after $(cut -d' ' -f1 /proc/uptime) s, kernel $(uname -r)"
sh /tests.sh "${vmtests:-all}"
sync
poweroff -f
