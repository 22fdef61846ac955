/* SPDX-License-Identifier: GPL-2.0-only */
/* What a decision knows of a zone, and the watermark check of 4.4-4.12 (__zone_watermark_ok).
 * The model fills these from its page-frame array, the daemon from /proc/zoneinfo and buddyinfo. */
#ifndef OOMGUARD_POLICY_ZONE_H
#define OOMGUARD_POLICY_ZONE_H

#include <stdbool.h>

enum zone_type { ZONE_DMA, ZONE_DMA32, ZONE_NORMAL, MAX_NR_ZONES };

/* Buddy orders 0..MAX_ORDER-1; MAX_ORDER 11 as on x86_64 in that era. */
#define MAX_ORDER 11

enum migratetype {
	MIGRATE_UNMOVABLE,
	MIGRATE_MOVABLE,
	MIGRATE_RECLAIMABLE,
	MIGRATE_HIGHATOMIC,
	MIGRATE_CMA,
	MIGRATE_TYPES
};

enum zone_watermarks { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

/* How far low and high stand above min in 4.4-4.5 (__setup_per_zone_wmarks, before
 * watermark_scale_factor): low = min + min/4, high = min + min/2. */
#define WMARK_LOW_SHIFT  2
#define WMARK_HIGH_SHIFT 1

/*
 * struct zone_snapshot - one zone as the decisions see it at one instant.
 * @idx:                     zone type, indexes lowmem_reserve
 * @managed_pages:           pages the buddy allocator manages
 * @watermark:               min, low, high in pages
 * @lowmem_reserve:          pages kept back from allocations whose classzone is higher
 * @nr_reserved_highatomic:  pages in MIGRATE_HIGHATOMIC pageblocks
 * @free_pages:              NR_FREE_PAGES
 * @free_cma_pages:          NR_FREE_CMA_PAGES
 * @nr_free:                 free blocks per order (free_area[o].nr_free)
 * @free_list_mask:          per order, bit (1 << migratetype) set when that free list is non-empty
 * @reclaimable_pages:       zone_reclaimable_pages(): file LRU, plus anon when swap is free
 * @pages_scanned:           NR_PAGES_SCANNED since a page was last freed to the zone (4.3 only)
 * @write_pending:           dirty + writeback file pages
 */
struct zone_snapshot {
	enum zone_type idx;
	unsigned long managed_pages;
	unsigned long watermark[NR_WMARK];
	unsigned long lowmem_reserve[MAX_NR_ZONES];
	unsigned long nr_reserved_highatomic;
	unsigned long free_pages;
	unsigned long free_cma_pages;
	unsigned long nr_free[MAX_ORDER];
	unsigned int free_list_mask[MAX_ORDER];
	unsigned long reclaimable_pages;
	unsigned long pages_scanned;
	unsigned long write_pending;
};

static inline unsigned long min_wmark_pages(const struct zone_snapshot *z)
{
	return z->watermark[WMARK_MIN];
}

/*
 * __zone_watermark_ok() - would an allocation of @order succeed in @z if it had @free_pages free?
 * @mark:           the watermark to keep (min, low or high) before reserve adjustments
 * @classzone_idx:  highest zone the request may use; selects lowmem_reserve[]
 * @alloc_flags:    ALLOC_HIGH halves @mark, ALLOC_HARDER takes a quarter off and may use the
 *                  highatomic reserve, ALLOC_CMA may count CMA pages
 * @free_pages:     the free count to test (the caller may add reclaimable pages to it)
 *
 * The order-0 test is on the count; for order > 0 a free block of at least @order must also sit
 * on a list the request may use.
 */
bool __zone_watermark_ok(const struct zone_snapshot *z, unsigned int order, unsigned long mark,
			 int classzone_idx, unsigned int alloc_flags, long free_pages);

/* zone_watermark_ok() - the same test on the zone's own free page count. */
bool zone_watermark_ok(const struct zone_snapshot *z, unsigned int order, unsigned long mark,
		       int classzone_idx, unsigned int alloc_flags);

/*
 * zone_reclaimable() - 4.3's guess that reclaim can still make progress in @z: fewer pages
 * scanned since the last free than six times what is reclaimable. Any page freed to the zone
 * resets pages_scanned, which is how a single freed page keeps the base rule retrying.
 */
bool zone_reclaimable(const struct zone_snapshot *z);

#endif
