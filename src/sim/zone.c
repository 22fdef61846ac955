// SPDX-License-Identifier: GPL-2.0-only
/* Zones and the buddy allocator: DMA, DMA32, Normal over one page-frame array; watermarks and
 * lowmem_reserve derived from min_free_kbytes as the 4.3 kernel derives them; free lists by order
 * and migratetype with split, merge and pageblock stealing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"

/* x86_64: DMA is the first 16 MiB, DMA32 ends at 4 GiB. */
#define DMA_PAGES       4096ul
#define DMA32_END_PAGES (1ul << 20)
/* Zones are sized in MAX_ORDER blocks so that every buddy stays inside its zone. */
#define ZONE_ALIGN_PAGES (1ul << (MAX_ORDER - 1))

static const unsigned long lowmem_reserve_ratio[MAX_NR_ZONES] = {256, 256, 32};

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* __setup_per_zone_wmarks() and setup_per_zone_lowmem_reserve() of 4.3. */
static void setup_watermarks(struct sim *s)
{
	unsigned long lowmem_pages = total_managed_pages(s);
	unsigned long min_free_kbytes = int_sqrt(lowmem_pages * PAGE_KIB * 16);
	unsigned long pages_min;

	if (min_free_kbytes < 128)
		min_free_kbytes = 128;
	if (min_free_kbytes > 65536)
		min_free_kbytes = 65536;
	pages_min = min_free_kbytes / PAGE_KIB;

	for (int i = 0; i < MAX_NR_ZONES; i++) {
		struct zone_snapshot *zs = &s->zones[i].snap;
		unsigned long tmp = pages_min * zs->managed_pages / lowmem_pages;

		zs->watermark[WMARK_MIN] = tmp;
		zs->watermark[WMARK_LOW] = tmp + (tmp >> WMARK_LOW_SHIFT);
		zs->watermark[WMARK_HIGH] = tmp + (tmp >> WMARK_HIGH_SHIFT);
		for (int j = 0; j < MAX_NR_ZONES; j++) {
			unsigned long above = 0;

			for (int k = i + 1; k <= j; k++)
				above += s->zones[k].snap.managed_pages;
			zs->lowmem_reserve[j] = j > i ? above / lowmem_reserve_ratio[i] : 0;
		}
	}
}

static void area_add(struct sim *s, struct sim_zone *z, int32_t pfn, unsigned int order, int mt)
{
	struct page *p = &s->pages[pfn];

	p->state = PS_FREE;
	p->order = (uint8_t)order;
	p->owner = mt;
	la_add_tail(s, &z->free_area[order][mt], pfn);
	z->snap.nr_free[order]++;
	z->snap.free_list_mask[order] |= 1u << mt;
}

static void area_del(struct sim *s, struct sim_zone *z, int32_t pfn)
{
	struct page *p = &s->pages[pfn];
	unsigned int order = p->order;
	int mt = p->owner;

	la_del(s, &z->free_area[order][mt], pfn);
	z->snap.nr_free[order]--;
	if (!z->free_area[order][mt].count)
		z->snap.free_list_mask[order] &= ~(1u << mt);
	/* Off the lists: a tail until the caller gives the block its use. */
	p->owner = NO_TASK;
	p->state = PS_FREE_TAIL;
}

int zones_init(struct sim *s, unsigned long nr_pages)
{
	unsigned long sizes[MAX_NR_ZONES];
	unsigned long dma = nr_pages >= 16 * DMA_PAGES ? DMA_PAGES : nr_pages / 16;
	int32_t pfn = 0;

	dma = (dma + ZONE_ALIGN_PAGES - 1) / ZONE_ALIGN_PAGES * ZONE_ALIGN_PAGES;
	sizes[ZONE_DMA] = dma;
	sizes[ZONE_DMA32] = (nr_pages < DMA32_END_PAGES ? nr_pages : DMA32_END_PAGES) - dma;
	sizes[ZONE_NORMAL] = nr_pages - sizes[ZONE_DMA] - sizes[ZONE_DMA32];

	s->nr_pages = nr_pages;
	s->pages = malloc(nr_pages * sizeof(*s->pages));
	s->pageblock_mt = malloc(nr_pages / PAGEBLOCK_PAGES + 1);
	if (!s->pages || !s->pageblock_mt) {
		zones_free(s);
		return -ENOMEM;
	}
	memset(s->pageblock_mt, MT_MOVABLE, nr_pages / PAGEBLOCK_PAGES + 1);

	s->nr_populated = 0;
	for (int i = 0; i < MAX_NR_ZONES; i++) {
		struct sim_zone *z = &s->zones[i];

		memset(z, 0, sizeof(*z));
		z->snap.idx = (enum zone_type)i;
		z->snap.managed_pages = sizes[i];
		z->start_pfn = pfn;
		z->nr_pages = sizes[i];
		for (int o = 0; o < MAX_ORDER; o++) {
			plist_init(&z->free_area[o][0]);
			plist_init(&z->free_area[o][1]);
		}
		for (int l = 0; l < NR_ZONE_LISTS; l++)
			plist_init(&z->lists[l]);
		for (unsigned long k = 0; k < sizes[i]; k++) {
			struct page *p = &s->pages[pfn + (int32_t)k];

			p->next = p->prev = p->onext = p->oprev = NO_PFN;
			p->owner = NO_TASK;
			p->state = PS_FREE_TAIL;
			p->order = 0;
			p->flags = 0;
			p->zone = (uint8_t)i;
		}
		for (unsigned long k = 0; k < sizes[i]; k += ZONE_ALIGN_PAGES)
			area_add(s, z, pfn + (int32_t)k, MAX_ORDER - 1, MT_MOVABLE);
		z->snap.free_pages = sizes[i];
		pfn += (int32_t)sizes[i];
		if (sizes[i])
			s->nr_populated = i + 1;
	}
	setup_watermarks(s);
	return 0;
}

void zones_free(struct sim *s)
{
	free(s->pages);
	free(s->pageblock_mt);
	s->pages = NULL;
	s->pageblock_mt = NULL;
}

struct sim_zone *page_zone(struct sim *s, int32_t pfn)
{
	return &s->zones[s->pages[pfn].zone];
}

int gfp_migratetype(gfp_t gfp)
{
	return (gfp & __GFP_MOVABLE) ? MT_MOVABLE : MT_UNMOVABLE;
}

/* Every request of the model may use Normal (no GFP_DMA/GFP_DMA32 users). */
int high_zoneidx(gfp_t gfp)
{
	(void)gfp;
	return ZONE_NORMAL;
}

/* Splits the block at @pfn of @high order down to @low, freeing the upper halves on @mt. */
static void expand(struct sim *s, struct sim_zone *z, int32_t pfn, unsigned int low,
		   unsigned int high, int mt)
{
	while (high > low) {
		high--;
		area_add(s, z, pfn + (1 << high), high, mt);
	}
}

/* move_freepages_block(): every free block of the pageblock of @pfn (the block about to be
 * taken among them) goes onto @mt's lists. Returns the pages moved. */
static unsigned long move_freepages_block(struct sim *s, struct sim_zone *z, int32_t pfn, int mt)
{
	int32_t start = pfn & ~(int32_t)(PAGEBLOCK_PAGES - 1);
	unsigned long moved = 0;

	for (int32_t q = start; q < start + (int32_t)PAGEBLOCK_PAGES; q++) {
		struct page *p = &s->pages[q];
		unsigned int o = p->order;

		if (p->state != PS_FREE)
			continue;
		if (p->owner != mt) {
			area_del(s, z, q);
			area_add(s, z, q, o, mt);
		}
		moved += 1ul << o;
		q += (1 << o) - 1;
	}
	return moved;
}

/*
 * steal_suitable_fallback() of 4.4, when can_steal_fallback() allows it (an unmovable request,
 * or a block of at least half a pageblock): a block of a pageblock or more changes its
 * pageblocks' type; otherwise the pageblock's free pages move to @mt's lists, and the pageblock
 * changes type only if at least half of it was free. An unmovable request that falls back on a
 * nearly full movable pageblock so takes its few free pages and leaves it mixed: movable by type,
 * with unmovable pages in it that compaction cannot move.
 */
static void steal_fallback(struct sim *s, struct sim_zone *z, int32_t pfn, unsigned int o, int mt)
{
	if (o >= PAGEBLOCK_ORDER) {
		for (int32_t q = pfn; q < pfn + (1 << o); q += (int32_t)PAGEBLOCK_PAGES)
			s->pageblock_mt[q / (int32_t)PAGEBLOCK_PAGES] = (uint8_t)mt;
		return;
	}
	if (move_freepages_block(s, z, pfn, mt) >= PAGEBLOCK_PAGES / 2)
		s->pageblock_mt[pfn / (int32_t)PAGEBLOCK_PAGES] = (uint8_t)mt;
}

/*
 * buddy_alloc() - take a free block of @order from @z: the smallest fitting block on @mt's lists
 * (__rmqueue_smallest), else the largest on the other migratetype, stealing from its pageblock
 * when can_steal_fallback() allows (__rmqueue_fallback of 4.4); what is left of the block goes
 * onto @mt's lists, as expand() does there. The caller must have checked the watermark.
 * Returns the head pfn, or NO_PFN.
 */
int32_t buddy_alloc(struct sim *s, struct sim_zone *z, unsigned int order, int mt)
{
	int other = mt == MT_MOVABLE ? MT_UNMOVABLE : MT_MOVABLE;

	for (unsigned int o = order; o < MAX_ORDER; o++) {
		int32_t pfn = z->free_area[o][mt].head;

		if (pfn == NO_PFN)
			continue;
		area_del(s, z, pfn);
		expand(s, z, pfn, order, o, mt);
		z->snap.free_pages -= 1ul << order;
		return pfn;
	}
	for (int o = MAX_ORDER - 1; o >= (int)order; o--) {
		int32_t pfn = z->free_area[o][other].head;

		if (pfn == NO_PFN)
			continue;
		if (mt == MT_UNMOVABLE || o >= (int)PAGEBLOCK_ORDER / 2)
			steal_fallback(s, z, pfn, (unsigned int)o, mt);
		area_del(s, z, pfn);
		expand(s, z, pfn, order, (unsigned int)o, mt);
		z->snap.free_pages -= 1ul << order;
		return pfn;
	}
	return NO_PFN;
}

/*
 * buddy_free() - give the block at @pfn of @order back, merging with free buddies of the same
 * order. Freeing a page resets the zone's pages_scanned, as 4.3's free path did: this is what
 * keeps zone_reclaimable() true while anything at all is being freed.
 */
void buddy_free(struct sim *s, int32_t pfn, unsigned int order)
{
	struct sim_zone *z = page_zone(s, pfn);
	int mt;

	z->snap.free_pages += 1ul << order;
	vmstat_pages_scanned_reset(s, z);
	z->nr_frees++;
	s->res->page_events++;
	s->pages[pfn].state = PS_FREE_TAIL;
	while (order < MAX_ORDER - 1) {
		int32_t buddy = pfn ^ (1 << order);
		struct page *b = &s->pages[buddy];

		if (b->state != PS_FREE || b->order != order)
			break;
		area_del(s, z, buddy);
		if (buddy < pfn)
			pfn = buddy;
		order++;
	}
	mt = s->pageblock_mt[pfn / (int32_t)PAGEBLOCK_PAGES];
	area_add(s, z, pfn, order, mt);
}

/* Takes the free block headed at @pfn off its list whole (compaction's free scanner). */
void buddy_take(struct sim *s, struct sim_zone *z, int32_t pfn)
{
	unsigned int order = s->pages[pfn].order;

	area_del(s, z, pfn);
	z->snap.free_pages -= 1ul << order;
}

unsigned long total_free_pages(const struct sim *s)
{
	unsigned long n = 0;

	for (int i = 0; i < MAX_NR_ZONES; i++)
		n += s->zones[i].snap.free_pages;
	return n;
}

unsigned long total_managed_pages(const struct sim *s)
{
	unsigned long n = 0;

	for (int i = 0; i < MAX_NR_ZONES; i++)
		n += s->zones[i].snap.managed_pages;
	return n;
}

/* calculate_normal_threshold() of 4.3: how far a CPU's counter may drift before it is folded
 * into the zone's: 2 * fls(cpus) * (1 + fls(MiB / 128)), at most 125. */
unsigned long vmstat_threshold(const struct sim_zone *z)
{
	unsigned long mem = z->snap.managed_pages >> (27 - 12);
	unsigned long fls_mem = 0, fls_cpus = 0, t;

	while (mem >> fls_mem)
		fls_mem++;
	while (NR_CPUS >> fls_cpus)
		fls_cpus++;
	t = 2 * fls_cpus * (1 + fls_mem);
	return t < 125 ? t : 125;
}
