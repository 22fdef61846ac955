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

/* A pageblock worth emptying: some used pages, all of them movable. Returns the used count or
 * -1 when an unmovable page pins it. */
static long pageblock_used(const struct sim *s, int32_t start)
{
	long used = 0;

	for (int32_t q = start; q < start + (int32_t)PAGEBLOCK_PAGES; q++) {
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

/* Isolates every free block in the pageblock at @start (isolate_freepages_block). */
static void isolate_pageblock(struct compact_control *cc, int32_t start)
{
	struct sim *s = cc->s;

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
 * compact_zone() - compact @z until a free block of @order exists or the scanners meet. A zone
 * deferred after failures is skipped unless @ignore_defer (mainline at its highest priority).
 * Returns COMPACT_SUCCESS when such a block exists at the end, COMPACT_DEFERRED when skipped,
 * COMPACT_COMPLETE when the scanners met without one; *ret_migrated counts the pages moved.
 */
enum compact_result compact_zone(struct sim *s, struct sim_zone *z, unsigned int order,
				 bool ignore_defer, unsigned long *ret_migrated)
{
	struct compact_control cc = {.s = s, .z = z};
	int32_t end = z->start_pfn + (int32_t)z->nr_pages;
	unsigned long migrated = 0;
	bool ok;

	*ret_migrated = 0;
	if (!z->nr_pages)
		return COMPACT_COMPLETE;
	if (zone_has_block(z, order))
		return COMPACT_SUCCESS;
	/* compaction_deferred(): after failures, skip 1 << defer_shift attempts. */
	if (!ignore_defer && z->compact_defer_shift &&
	    ++z->compact_considered < (1u << z->compact_defer_shift))
		return COMPACT_DEFERRED;
	cc.cap = z->nr_pages;
	cc.isolated = malloc(cc.cap * sizeof(*cc.isolated));
	if (!cc.isolated)
		return COMPACT_COMPLETE;
	cc.free_pfn = end;
	for (int32_t pb = z->start_pfn;
	     pb + (int32_t)PAGEBLOCK_PAGES <= cc.free_pfn && !zone_has_block(z, order);
	     pb += (int32_t)PAGEBLOCK_PAGES) {
		long used = pageblock_used(s, pb);

		if (used <= 0)
			continue;
		for (int32_t q = pb; q < pb + (int32_t)PAGEBLOCK_PAGES; q++) {
			if (!page_movable(&s->pages[q]))
				continue;
			if (!isolate_freepages(&cc, pb + (int32_t)PAGEBLOCK_PAGES - 1))
				break;
			migrate_page(s, q, cc.isolated[--cc.nr_isolated]);
			migrated++;
		}
		if (cc.free_pfn <= pb + (int32_t)PAGEBLOCK_PAGES - 1)
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
	return compact_zone(s, z, order, false, ret_migrated) == COMPACT_SUCCESS;
}
