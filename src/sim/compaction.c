// SPDX-License-Identifier: GPL-2.0-only
/* Direct compaction: a migrate scanner walks pageblocks up from the zone's start, a free scanner
 * isolates free pages down from its end; movable pages of a pageblock are moved to the isolated
 * pages until the pageblock is free and merges into a block of the wanted order. After a failure
 * the zone is skipped for 1, 2, 4 ... 64 attempts, as defer_compaction() does. */
#include <stdlib.h>

#include "sim/model.h"

#define COMPACT_MAX_DEFER_SHIFT 6u

/*
 * struct compact_control - one compaction run over one zone.
 * @free_pfn:   the free scanner's next pageblock (walks down)
 * @isolated:   free pages taken by the free scanner, a stack of pfns
 */
struct compact_control {
	struct sim *s;
	struct sim_zone *z;
	int32_t free_pfn;
	int32_t *isolated;
	size_t nr_isolated, cap;
};

static bool page_movable(const struct page *p)
{
	return p->state == PS_ANON || p->state == PS_FILE_CLEAN || p->state == PS_FILE_MAPPED ||
	       p->state == PS_FILE_DIRTY;
}

/* An order-aligned run worth emptying (isolate_migratepages_block() with skip_on_failure, 4.6:
 * a page it cannot isolate ends the run): some used pages, all of them movable. Returns the used
 * count, or -1 when an unmovable page pins the run. */
static long run_used(const struct sim *s, int32_t start, int32_t len)
{
	long used = 0;

	for (int32_t q = start; q < start + len; q++) {
		const struct page *p = &s->pages[q];

		if (p->state == PS_FREE) {
			q += (1 << p->order) - 1;
			continue;
		}
		if (!page_movable(p))
			return -1;
		used++;
	}
	return used;
}

/* Isolates every free block in the pageblock at @start (isolate_freepages_block), if it is a
 * suitable_migration_target(): a movable pageblock. */
static void isolate_pageblock(struct compact_control *cc, int32_t start)
{
	struct sim *s = cc->s;

	if (s->pageblock_mt[start / (int32_t)PAGEBLOCK_PAGES] != MT_MOVABLE)
		return;
	for (int32_t q = start; q < start + (int32_t)PAGEBLOCK_PAGES; q++) {
		struct page *p = &s->pages[q];
		int32_t n;

		if (p->state != PS_FREE)
			continue;
		n = 1 << p->order;
		buddy_take(s, cc->z, q);
		for (int32_t k = q; k < q + n; k++) {
			s->pages[k].state = PS_ISOLATED;
			cc->isolated[cc->nr_isolated++] = k;
		}
		cc->z->nr_isolated += (unsigned long)n;
		q += n - 1;
	}
}

/* Finds free pages above @migrate_pfn's pageblock; false when the scanners met. */
static bool isolate_freepages(struct compact_control *cc, int32_t migrate_pfn)
{
	while (!cc->nr_isolated) {
		cc->free_pfn -= (int32_t)PAGEBLOCK_PAGES;
		if (cc->free_pfn <= migrate_pfn)
			return false;
		isolate_pageblock(cc, cc->free_pfn);
	}
	return true;
}

/* migrate_pages() of one page: its state, owner and list places move to @dst; @src is freed. */
static void migrate_page(struct sim *s, int32_t src, int32_t dst)
{
	struct page *from = &s->pages[src], *to = &s->pages[dst];
	struct sim_zone *z = page_zone(s, src);
	struct plist *la, *lb;

	switch (from->state) {
	case PS_ANON:
		la = &z->lists[ZL_ANON];
		lb = &s->tasks[from->owner].pages;
		break;
	case PS_FILE_CLEAN:
	case PS_FILE_MAPPED:
		la = &z->lists[from->state == PS_FILE_CLEAN ? ZL_FILE_CLEAN : ZL_FILE_MAPPED];
		lb = &s->files[from->owner].pages;
		break;
	default: /* PS_FILE_DIRTY */
		la = &s->bdev.dirty;
		lb = &s->files[from->owner].pages;
		break;
	}
	to->state = from->state;
	to->owner = from->owner;
	to->flags = from->flags;
	la_replace(s, la, src, dst);
	lb_replace(s, lb, src, dst);
	z->nr_isolated--;
	from->owner = NO_TASK;
	from->flags = 0;
	buddy_free(s, src, 0);
}

static bool zone_has_block(const struct sim_zone *z, unsigned int order)
{
	for (unsigned int o = order; o < MAX_ORDER; o++)
		if (z->snap.nr_free[o])
			return true;
	return false;
}

/*
 * compaction_suitable() - enough free order-0 pages to migrate into: free above a watermark plus
 * 2 << order (the copies need room for a while). 4.4 asks for the low watermark; mainline (4.8,
 * "require only min watermarks for non-costly orders") for the min one below a costly order.
 */
bool compaction_suitable(const struct sim *s, const struct zone_snapshot *z, unsigned int order,
			 int classzone, long free_pages)
{
	bool mainline = s->cfg && s->cfg->rule == RETRY_RULE_MAINLINE;
	unsigned long mark = mainline && order <= PAGE_ALLOC_COSTLY_ORDER ? min_wmark_pages(z)
									 : z->watermark[WMARK_LOW];

	return __zone_watermark_ok(z, 0, mark + (2ul << order), classzone, ALLOC_CPUSET, free_pages);
}

/* Moves the movable pages of the run at @start, @len pages, into isolated free pages. Returns
 * false when the free scanner met the migrate scanner. */
static bool migrate_run(struct compact_control *cc, int32_t start, int32_t len,
			unsigned long *migrated)
{
	struct sim *s = cc->s;

	for (int32_t q = start; q < start + len; q++) {
		if (!page_movable(&s->pages[q]))
			continue;
		if (!isolate_freepages(cc, start | (int32_t)(PAGEBLOCK_PAGES - 1)))
			return false;
		migrate_page(s, q, cc->isolated[--cc->nr_isolated]);
		(*migrated)++;
	}
	return true;
}

/*
 * compact_zone() - compact @z for a request of @order and @classzone: the migrate scanner walks
 * up from the zone's start by order-aligned runs, the free scanner down from its end, until a
 * free block of @order exists or the scanners meet. A zone deferred after failures is skipped
 * unless @ignore_defer (mainline at its highest priority); a zone with too few free pages too.
 * Returns COMPACT_SUCCESS when such a block exists at the end, COMPACT_DEFERRED or
 * COMPACT_SKIPPED when it did not run, COMPACT_COMPLETE when the scanners met without one;
 * *ret_migrated counts the pages moved.
 */
enum compact_result compact_zone(struct sim *s, struct sim_zone *z, unsigned int order,
				 int classzone, bool ignore_defer, unsigned long *ret_migrated)
{
	struct compact_control cc = {.s = s, .z = z};
	int32_t end = z->start_pfn + (int32_t)z->nr_pages;
	int32_t run = 1 << (order < PAGEBLOCK_ORDER ? order : PAGEBLOCK_ORDER);
	unsigned long migrated = 0;
	bool ok;

	*ret_migrated = 0;
	if (!z->nr_pages)
		return COMPACT_SKIPPED;
	/* compaction_deferred(): after failures, skip 1 << defer_shift attempts. */
	if (!ignore_defer && z->compact_defer_shift &&
	    ++z->compact_considered < (1u << z->compact_defer_shift))
		return COMPACT_DEFERRED;
	/* compaction_suitable(): the allocation would succeed already, or there is no room. */
	if (zone_watermark_ok(&z->snap, order, z->snap.watermark[WMARK_LOW], classzone,
			      ALLOC_CPUSET))
		return COMPACT_SUCCESS;
	if (!compaction_suitable(s, &z->snap, order, classzone, (long)z->snap.free_pages))
		return COMPACT_SKIPPED;
	cc.cap = z->nr_pages;
	cc.isolated = malloc(cc.cap * sizeof(*cc.isolated));
	if (!cc.isolated)
		return COMPACT_COMPLETE;
	cc.free_pfn = end;
	for (int32_t q = z->start_pfn; q + run <= cc.free_pfn && !zone_has_block(z, order);
	     q += run) {
		if (run_used(s, q, run) <= 0)
			continue;
		if (!migrate_run(&cc, q, run, &migrated))
			break;
		if (cc.free_pfn <= (q | (int32_t)(PAGEBLOCK_PAGES - 1)))
			break;
	}
	/* Unused isolated pages go back to the buddy allocator. */
	while (cc.nr_isolated) {
		int32_t q = cc.isolated[--cc.nr_isolated];

		z->nr_isolated--;
		buddy_free(s, q, 0);
	}
	free(cc.isolated);
	ok = zone_has_block(z, order);
	z->compact_considered = 0;
	if (ok)
		z->compact_defer_shift = 0;
	else if (z->compact_defer_shift < COMPACT_MAX_DEFER_SHIFT)
		z->compact_defer_shift++;
	s->res->page_events += migrated;
	*ret_migrated = migrated;
	return ok ? COMPACT_SUCCESS : COMPACT_COMPLETE;
}

bool compact_zone_order(struct sim *s, struct sim_zone *z, unsigned int order,
			unsigned long *ret_migrated)
{
	return compact_zone(s, z, order, z->snap.idx, false, ret_migrated) == COMPACT_SUCCESS;
}
