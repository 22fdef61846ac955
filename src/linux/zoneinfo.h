/* SPDX-License-Identifier: GPL-2.0-only */
/* /proc/zoneinfo and /proc/buddyinfo: the machine's populated zones with their watermarks,
 * lowmem reserves, LRU sizes and free lists, parsed from buffers; a reader that takes a root
 * directory so that tests can point it at a fixture tree. */
#ifndef OOMGUARD_LINUX_ZONEINFO_H
#define OOMGUARD_LINUX_ZONEINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/zone.h"

#define PROC_MAX_ZONES      16
#define PROC_MAX_PROTECTION 8

/*
 * PROC_ZONE_MAX_PAGES - no zoneinfo or buddyinfo count is larger: 2^40 pages of 4 KiB are
 * 2^52 bytes, the widest physical address space of any architecture Linux runs on. Larger
 * is not the kernel's file (-ERANGE); below it, pages times the page size fit in 64 bits.
 */
#define PROC_ZONE_MAX_PAGES (1ull << 40)

/*
 * struct proc_zone - one populated zone of /proc/zoneinfo (+ buddyinfo), in pages.
 * @node, @name:      "Node 0, zone Normal"
 * @type:             the zone type the policy knows, or -1 (Movable, Device)
 * @protection:       lowmem_reserve per zone type ("protection: (0, 2920, ...)")
 * @reclaim_*:        LRU sizes (nr_zone_* in 4.8+; nr_* at zone level before)
 * @write_pending:    nr_zone_write_pending (4.8+), else nr_dirty + nr_writeback
 * @nr_free:          free blocks per order from buddyinfo (@has_buddy set when found)
 */
struct proc_zone {
	int node;
	char name[16];
	int type;
	uint64_t free_pages, min_pages, low_pages, high_pages, managed_pages, present_pages;
	uint64_t protection[PROC_MAX_PROTECTION];
	unsigned int nr_protection;
	uint64_t free_cma_pages;
	uint64_t inactive_file, active_file, inactive_anon, active_anon;
	uint64_t write_pending;
	uint64_t nr_free[MAX_ORDER];
	bool has_buddy;
};

int parse_zoneinfo_buf(const char *buf, struct proc_zone *zones, size_t max_zones,
		       size_t *ret_nr_zones);
/* Fills nr_free[] of the matching zones; zones missing from @buf keep has_buddy false. */
int parse_buddyinfo_buf(const char *buf, struct proc_zone *zones, size_t nr_zones);

/* read_zoneinfo() - read @root/proc/zoneinfo into @buf (scratch of @size bytes) and parse it. */
int read_zoneinfo(const char *root, char *buf, size_t size, struct proc_zone *zones,
		  size_t max_zones, size_t *ret_nr_zones);

/*
 * zoneinfo_measure() - how large @root/proc/zoneinfo is here (*@ret_bytes) and how many zones
 * it lists (*@ret_zones, populated or not), read line by line through @buf: what a reader of
 * the whole file needs, on a host of any size (the per-CPU pagesets of 256 CPUs on 4 nodes make
 * it 280 KiB). Return: 0 or -errno.
 */
int zoneinfo_measure(const char *root, char *buf, size_t size, size_t *ret_bytes,
		     size_t *ret_zones);

#endif
