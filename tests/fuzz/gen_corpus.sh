#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Generates the large seeds of the fuzz corpus, the inputs of large or odd hosts nobody should
# write by hand, into OUTDIR/<parser>/ (make fuzz: build/fuzz/gen). Deterministic.
# Usage: tests/fuzz/gen_corpus.sh OUTDIR
set -eu
out=${1:?usage: gen_corpus.sh OUTDIR}
mkdir -p "$out/zoneinfo" "$out/buddyinfo" "$out/vmstat" "$out/mountinfo" "$out/pid_status" \
	"$out/pid_cgroup"

# A 6.x zoneinfo: NODES nodes of 5 zones (DMA, DMA32, Normal, Movable, Device), every one
# listed; node 0 has DMA, DMA32 and Normal, the others Normal and (MOVABLE=1) Movable; CPUS
# CPUs of pagesets in each populated zone. Its buddyinfo beside it.
zoneinfo_6x() { # NODES CPUS MOVABLE ZONEINFO BUDDYINFO
	awk -v nodes="$1" -v cpus="$2" -v movable="$3" -v bi="$5" 'BEGIN {
		split("DMA DMA32 Normal Movable Device", name, " ")
		for (n = 0; n < nodes; n++) {
			first = 1
			for (z = 1; z <= 5; z++) {
				pop = n == 0 ? z <= 3 : (z == 3 || (movable && z == 4))
				free = pop ? n * 100000 + z * 1000 + 7 : 0
				printf "Node %d, zone %8s\n", n, name[z]
				if (pop && first) {
					printf "  per-node stats\n"
					printf "      nr_inactive_anon %d\n      nr_active_anon %d\n", 5000 + n, 300
					printf "      nr_inactive_file %d\n      nr_active_file %d\n", 9000, 800
					printf "      workingset_refault_file %d\n      nr_dirty     %d\n", 12, 4
					printf "      nr_writeback 0\n"
					first = 0
				}
				printf "  pages free     %d\n        boost    0\n", free
				printf "        min      %d\n        low      %d\n", pop ? 9297 : 0, pop ? 11621 : 0
				printf "        high     %d\n        promo    %d\n", pop ? 13945 : 0, pop ? 16269 : 0
				printf "        spanned  %d\n        present  %d\n", pop ? 4194304 : 0, pop ? 4194304 : 0
				printf "        managed  %d\n        cma      0\n", pop ? 4100000 : 0
				printf "        protection: (0, %d, %d, %d, %d)\n", pop ? 3018 : 0, pop ? 6730 : 0, 0, 0
				if (!pop)
					continue
				printf "      nr_free_pages %d\n      nr_free_pages_blocks %d\n", free, free - 7
				printf "      nr_zone_inactive_anon %d\n      nr_zone_active_anon 285\n", 5000 + n
				printf "      nr_zone_inactive_file 238056\n      nr_zone_active_file 17768\n"
				printf "      nr_zone_unevictable 3320\n      nr_zone_write_pending 11303\n"
				printf "      nr_mlock     3055\n      nr_zspages   0\n      nr_free_cma  0\n"
				printf "      numa_hit     6103570\n      numa_miss    0\n      numa_foreign 0\n"
				printf "      numa_interleave 1135\n      numa_local   6103570\n      numa_other   0\n"
				printf "  pagesets\n"
				for (c = 0; c < cpus; c++) {
					printf "    cpu: %d\n              count:    %d\n", c, (c * 37) % 6200
					printf "              high:     6563\n              batch:    63\n"
					printf "              high_min: 5810\n              high_max: 59392\n"
					printf "  vm stats threshold: 24\n"
				}
				printf "  node_unreclaimable:  0\n  start_pfn:           %d\n", 1048576 * (n + 1)
				printf "Node %d, zone %8s", n, name[z] > bi
				for (o = 0; o < 11; o++)
					printf " %6d", (free + o * 13) % 997 > bi
				printf " \n" > bi
			}
		}
	}' >"$4"
}
zoneinfo_6x 4 256 0 "$out/zoneinfo/gen-6x-4nodes-5zones-256cpus" \
	"$out/buddyinfo/gen-6x-4nodes-5zones"
# 8 nodes with Movable: 17 populated zones, one more than PROC_MAX_ZONES (-ENOSPC).
zoneinfo_6x 8 4 1 "$out/zoneinfo/gen-6x-8nodes-movable-17-populated" \
	"$out/buddyinfo/gen-6x-8nodes-movable"

# A 4.4 zoneinfo: populated zones only, per-zone LRU counters, 64 CPUs, 4 nodes.
awk 'BEGIN {
	for (n = 0; n < 4; n++)
		for (z = (n ? 3 : 1); z <= 3; z++) {
			split("DMA DMA32 Normal", name, " ")
			printf "Node %d, zone %8s\n  pages free     %d\n", n, name[z], 5000 + z
			printf "        min      33\n        low      41\n        high     49\n"
			printf "        scanned  0\n        spanned  4095\n        present  3998\n"
			printf "        managed  3977\n    nr_free_pages %d\n", 5000 + z
			printf "    nr_inactive_anon 12\n    nr_active_anon 3000\n"
			printf "    nr_inactive_file 100000\n    nr_active_file 200000\n"
			printf "    nr_dirty     7\n    nr_writeback 3\n    nr_free_cma  0\n"
			printf "        protection: (0, 2919, 7879, 7879)\n  pagesets\n"
			for (c = 0; c < 64; c++)
				printf "    cpu: %d\n              count: 0\n              high:  186\n              batch: 31\n  vm stats threshold: 36\n", c
			printf "  all_unreclaimable: 0\n  start_pfn:         4096\n  inactive_ratio:    4\n"
		}
}' >"$out/zoneinfo/gen-4.4-4nodes-64cpus"

# A 4.4 vmstat with every per-zone event of every zone name vmstat knows.
awk 'BEGIN {
	split("dma dma32 normal high movable device", zone, " ")
	split("pgsteal_kswapd pgsteal_direct pgscan_kswapd pgscan_direct allocstall", ev, " ")
	printf "nr_free_pages 1000\nworkingset_refault 5000\nworkingset_activate 1200\n"
	for (e = 1; e <= 5; e++)
		for (z = 1; z <= 6; z++)
			printf "%s_%s %d\n", ev[e], zone[z], e * 100 + z
	printf "pgscan_direct_throttle 9\npgmajfault 321\noom_kill 0\n"
}' >"$out/vmstat/gen-4.4-every-zone"

# A Docker host: 30 containers, each an overlay of 40 layers (super options of ~2 KiB) and a
# bind mount of its cgroup2 subtree; the host's own cgroup2 mount comes last.
awk 'BEGIN {
	id = 100
	for (c = 0; c < 30; c++) {
		printf "%d 29 0:%d / /var/lib/docker/overlay2/c%03d/merged rw,relatime - overlay overlay rw,lowerdir=", id++, 100 + c, c
		for (l = 0; l < 40; l++)
			printf "%s/var/lib/docker/overlay2/l/L%03dX%02dABCDEFGHIJKLMNOPQR", l ? ":" : "", c, l
		printf ",upperdir=/var/lib/docker/overlay2/c%03d/diff,workdir=/var/lib/docker/overlay2/c%03d/work\n", c, c
		printf "%d %d 0:26 /system.slice/docker-c%03d.scope /var/lib/docker/overlay2/c%03d/merged/sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup ro,nsdelegate\n", id, id - 1, c, c
		id++
	}
	printf "%d 1 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n", id
}' >"$out/mountinfo/gen-docker-host-30-containers"

# /proc/PID/status of a kernel built with NR_CPUS=8192 and 1024 nodes: masks of 2048 and 256
# hex digits, in groups of 8.
awk 'BEGIN {
	printf "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nPid:\t4242\nPPid:\t1\n"
	printf "Kthread:\t0\nVmPeak:\t 98765432 kB\nVmSize:\t 98765432 kB\nVmHWM:\t 67108864 kB\n"
	printf "VmRSS:\t 67108864 kB\nRssAnon:\t 67000000 kB\nVmPTE:\t   131072 kB\nVmSwap:\t        0 kB\n"
	printf "Threads:\t4096\nCpus_allowed:\t"
	for (i = 0; i < 256; i++)
		printf "%sffffffff", i ? "," : ""
	printf "\nCpus_allowed_list:\t0-8191\nMems_allowed:\t"
	for (i = 0; i < 32; i++)
		printf "%s%08x", i ? "," : "", i == 31 ? 15 : 0
	printf "\nMems_allowed_list:\t0-3\n"
}' >"$out/pid_status/gen-nr-cpus-8192"

# /proc/PID/cgroup: 13 v1 hierarchies and a memory group 60 levels deep.
awk 'BEGIN {
	split("cpuset cpu,cpuacct blkio memory devices freezer net_cls,net_prio perf_event hugetlb pids rdma misc", c, " ")
	path = ""
	for (d = 0; d < 60; d++)
		path = path sprintf("/level-%02d.slice", d)
	for (i = 13; i >= 2; i--)
		printf "%d:%s:%s\n", i, c[14 - i], c[14 - i] == "memory" ? path : "/"
	printf "1:name=systemd:/user.slice\n0::/user.slice\n"
}' >"$out/pid_cgroup/gen-v1-13-hierarchies-deep"
