// SPDX-License-Identifier: GPL-2.0-only
/* The frag scenario: a machine after a long uptime. Its memory was full of page cache while a
 * workload kept reclaiming cold cache pages (scattered: the LRU's order is not the page frames')
 * and allocating new cache and slab pages in their place. Slab requests are unmovable; once the
 * unmovable pageblocks are full they fall back on the movable ones, whose largest free blocks
 * are then single holes, so they steal the few free pages of a pageblock without claiming it
 * (steal_suitable_fallback(), zone.c): slab pages end up scattered through movable pageblocks.
 * Reclaiming the cache around them frees order-0 pages that cannot merge; compaction can empty
 * only the order-aligned runs no slab page pins. Eaters, one every 0.6 s, then fill what the
 * cache can give back (they fit with 90 % of it reclaimed), while a forker allocates kernel
 * stacks (order 2, every fourth order 3) for children that live to the end. An OOM kill here is
 * premature by construction: the memory is there at order 0, only not contiguous. */
#include "sim/model.h"

#define FRAG_PERIOD_USEC (5 * USEC_PER_MSEC)
/* Children live to the end: one stack (5 pages on average) per 256 pages of memory. */
#define FRAG_FORKS_PER_PAGES 256ul
#define FRAG_STACK_PAGES     5ul
#define FRAG_EATERS          8
#define FRAG_EATER_GAP_USEC  (600ull * USEC_PER_MSEC)
/* The uptime: cold cache pages replaced, as many as the machine has pages; one replacement in
 * eight is a slab page (dentries, inodes, buffer heads of the files read). */
#define FRAG_CHURN_PER_PAGE 1ul
#define FRAG_SLAB_EVERY     8u

static void make_clean(struct sim *s, int32_t pfn, int file)
{
	page_make_file_dirty(s, pfn, file);
	page_file_start_writeback(s, pfn);
	page_file_end_writeback(s, pfn);
}

static int add_counting(struct sim *s, enum task_kind kind, const char *comm, unsigned long pages,
			uint64_t start_usec)
{
	int i = task_create(s, kind, comm, pages, start_usec);

	if (i != NO_TASK) {
		s->tasks[i].counts = true;
		s->pending++;
	}
	return i;
}

/* A cold page of @file anywhere in memory, by the seed: NO_PFN after a few misses. */
static int32_t cold_cache_page(struct sim *s, int file)
{
	for (int tries = 0; tries < 16; tries++) {
		int32_t pfn = (int32_t)sim_rand_below(s, s->nr_pages);
		const struct page *p = &s->pages[pfn];

		if (p->state == PS_FILE_CLEAN && p->owner == file)
			return pfn;
	}
	return NO_PFN;
}

/* A page for @file's cache (or, if @slab, a slab page for @kworker) from @zone down to the
 * min watermark; false when none. */
static bool fill_page(struct sim *s, int zone, bool slab, int file, int kworker)
{
	int32_t pfn = get_page_from_freelist(s, slab ? GFP_KERNEL : GFP_HIGHUSER_MOVABLE, 0,
					     ALLOC_WMARK_MIN | ALLOC_CPUSET, zone);

	if (pfn == NO_PFN)
		return false;
	if (slab)
		page_make_kernel(s, pfn, kworker);
	else
		make_clean(s, pfn, file);
	return true;
}

/*
 * age_machine() - boot fills every zone with the cache of @file down to its low watermark (the
 * DMA zone too: on a long uptime its pages above the lowmem reserve have been used like any);
 * then the uptime: a cold cache page is reclaimed and its replacement allocated in its zone, a
 * slab page (GFP_KERNEL, for @kworker) one time in FRAG_SLAB_EVERY, else a cache page.
 */
static void age_machine(struct sim *s, int file, int kworker)
{
	unsigned long churn = s->nr_pages * FRAG_CHURN_PER_PAGE;

	for (int zone = s->nr_populated - 1; zone >= 0; zone--) {
		int32_t pfn;

		while ((pfn = get_page_from_freelist(s, GFP_HIGHUSER_MOVABLE, 0,
						     ALLOC_WMARK_LOW | ALLOC_CPUSET, zone)) != NO_PFN)
			make_clean(s, pfn, file);
	}
	for (unsigned long i = 0; i < churn; i++) {
		bool slab = sim_rand_below(s, FRAG_SLAB_EVERY) == 0;
		int32_t cold = cold_cache_page(s, file);

		if (cold == NO_PFN)
			continue;
		page_release(s, cold);
		fill_page(s, s->pages[cold].zone, slab, file, kworker);
	}
}

/* setup_frag() - the aged machine, the eaters and the forker. */
void setup_frag(struct sim *s)
{
	unsigned long clean, eater_pages, forks;
	int cache = s->nr_files++;
	int kworker = task_create(s, TK_CHURNER, "kworker", 0, 0);

	age_machine(s, cache, kworker);
	clean = s->files[cache].pages.count;
	forks = s->nr_pages / FRAG_FORKS_PER_PAGES;
	if (forks > SIM_FRAG_STACKS)
		forks = SIM_FRAG_STACKS;
	eater_pages = (total_free_pages(s) + clean * 9 / 10 - forks * FRAG_STACK_PAGES) / FRAG_EATERS;
	for (unsigned int e = 0; e < FRAG_EATERS; e++) {
		uint64_t start = e * FRAG_EATER_GAP_USEC + sim_rand_below(s, 50 * USEC_PER_MSEC);

		add_counting(s, TK_EATER, "mem_eater", eater_pages, start);
	}
	add_counting(s, TK_FORKER, "forker", forks, 0);
	s->budget_usec = 60 * USEC_PER_SEC;
}

/* The oldest child exits: its stack goes back. */
static void free_oldest_stack(struct sim *s)
{
	unsigned int slot = s->stacks_head;
	int32_t pfn = s->stacks[slot];

	for (int32_t q = pfn; q < pfn + (1 << s->stack_order[slot]); q++)
		page_release(s, q);
	s->stacks_head = (slot + 1) % SIM_FRAG_STACKS;
	s->stacks_len--;
}

/* fork(): one kernel stack (GFP_KERNEL, order 2; every fourth order 3) per period. */
void forker_step(struct sim *s, struct sim_task *t)
{
	unsigned int order = t->done_pages % 4 == 3 ? 3 : 2;
	int32_t pfn;
	uint64_t delay;
	enum alloc_status st;

	if (t->done_pages >= t->target_pages) {
		while (s->stacks_len)
			free_oldest_stack(s);
		task_finish(s, t);
		task_idle(s, t);
		return;
	}
	st = alloc_pages_step(s, t, GFP_KERNEL, order, &pfn, &delay);
	if (st == ALLOC_WAIT) {
		task_alloc_wait(s, t, 0, delay);
		return;
	}
	if (st == ALLOC_OK) {
		unsigned int slot;

		if (s->stacks_len == SIM_FRAG_STACKS)
			free_oldest_stack(s);
		slot = (s->stacks_head + s->stacks_len++) % SIM_FRAG_STACKS;
		s->stacks[slot] = pfn;
		s->stack_order[slot] = (uint8_t)order;
		for (int32_t q = pfn; q < pfn + (1 << order); q++)
			page_make_kernel(s, q, (int)(t - s->tasks));
		s->res->frag_allocs++;
	}
	t->done_pages++;
	task_sleep(s, t, delay + FRAG_PERIOD_USEC + jitter_usec(s), false);
}
