// SPDX-License-Identifier: GPL-2.0-only
/* The watermark check of 4.4-4.12 and the allocation flags a request gets (mm/page_alloc.c). */
#include "policy/gfp.h"
#include "policy/retry.h"
#include "policy/zone.h"

/* Decides which reserves a request may use: min watermark always; __GFP_HIGH halves it;
 * __GFP_ATOMIC takes a further quarter off and may use highatomic pageblocks; movable requests
 * may use CMA. TIF_MEMDIE and PF_MEMALLOC (ALLOC_NO_WATERMARKS) are the caller's to add. */
unsigned int gfp_to_alloc_flags(gfp_t gfp_mask)
{
	unsigned int alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;

	if (gfp_mask & __GFP_HIGH)
		alloc_flags |= ALLOC_HIGH;
	if (gfp_mask & __GFP_ATOMIC) {
		alloc_flags |= ALLOC_HARDER;
		alloc_flags &= ~ALLOC_CPUSET;
	}
	if (gfp_mask & __GFP_MOVABLE)
		alloc_flags |= ALLOC_CMA;
	return alloc_flags;
}

/* Decides whether @z could serve an @order allocation if @free_pages were free: the order-0
 * count must stay above the adjusted mark plus lowmem_reserve, and for order > 0 a block of at
 * least @order must be free on a list the request may take from. */
bool __zone_watermark_ok(const struct zone_snapshot *z, unsigned int order, unsigned long mark,
			 int classzone_idx, unsigned int alloc_flags, long free_pages)
{
	long min = (long)mark;
	long reserve = 0;

	/* free_pages may go negative: that is fine, the test below then fails. */
	free_pages -= (1L << order) - 1;
	if (alloc_flags & ALLOC_HIGH)
		min -= min / 2;
	if (!(alloc_flags & ALLOC_HARDER))
		free_pages -= (long)z->nr_reserved_highatomic;
	else
		min -= min / 4;
	if (!(alloc_flags & ALLOC_CMA))
		free_pages -= (long)z->free_cma_pages;

	if (classzone_idx >= 0 && classzone_idx < MAX_NR_ZONES)
		reserve = (long)z->lowmem_reserve[classzone_idx];
	if (free_pages <= min + reserve)
		return false;

	/* Only order-0 pages are counted against the mark; a higher order needs one free block. */
	if (!order)
		return true;

	for (unsigned int o = order; o < MAX_ORDER; o++) {
		unsigned int lists = z->free_list_mask[o];

		if (!z->nr_free[o])
			continue;
		if (alloc_flags & ALLOC_HARDER)
			return true;
		if (lists & ((1u << MIGRATE_UNMOVABLE) | (1u << MIGRATE_MOVABLE) |
			     (1u << MIGRATE_RECLAIMABLE)))
			return true;
		if ((alloc_flags & ALLOC_CMA) && (lists & (1u << MIGRATE_CMA)))
			return true;
	}
	return false;
}

bool zone_watermark_ok(const struct zone_snapshot *z, unsigned int order, unsigned long mark,
		       int classzone_idx, unsigned int alloc_flags)
{
	return __zone_watermark_ok(z, order, mark, classzone_idx, alloc_flags, (long)z->free_pages);
}

/* Decides 4.3's "can reclaim still get somewhere here": fewer pages scanned since a page was
 * last freed to the zone than ZONE_RECLAIMABLE_SCAN_RATIO times what is reclaimable. */
bool zone_reclaimable(const struct zone_snapshot *z)
{
	return z->pages_scanned < z->reclaimable_pages * ZONE_RECLAIMABLE_SCAN_RATIO;
}
