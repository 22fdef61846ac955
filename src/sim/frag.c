// SPDX-License-Identifier: GPL-2.0-only
/* The frag scenario: a machine after a long uptime, whose page cache is pinned in place by slab
 * pages scattered through it (one unmovable page in every four), so that reclaiming that cache
 * leaves only order-0 and order-1 holes. Eaters, one every 0.6 s, fill the rest of memory, which
 * fits with 90 % of the cache reclaimed, while a forker allocates kernel stacks (order 2, every
 * fourth order 3) for children that live to the end. Any OOM kill here is premature: the memory
 * is there, only not contiguous. */
#include "sim/model.h"

#define FRAG_PERIOD_USEC (5 * USEC_PER_MSEC)
/* Children live to the end: one stack (5 pages on average) per 256 pages of memory. */
#define FRAG_FORKS_PER_PAGES 256ul
#define FRAG_STACK_PAGES     5ul
#define FRAG_EATERS      8
#define FRAG_EATER_GAP_USEC (600ull * USEC_PER_MSEC)

/* Allocates one page frame at boot, movable, from @classzone down; NO_PFN when it is full. */
static int32_t boot_page(struct sim *s, int classzone)
{
	return get_page_from_freelist(s, GFP_HIGHUSER_MOVABLE, 0, ALLOC_WMARK_LOW | ALLOC_CPUSET,
				      classzone);
}

static void make_clean(struct sim *s, int32_t pfn, int file)
{
	page_make_file_dirty(s, pfn, file);
	page_file_start_writeback(s, pfn);
	page_file_end_writeback(s, pfn);
}

/* Page cache with a slab page in every four: @nr pages from @classzone down. */
static unsigned long fill_pinned(struct sim *s, int classzone, unsigned long nr, int file,
				 int kworker)
{
	unsigned long clean = 0;

	for (unsigned long i = 0; i < nr; i++) {
		int32_t pfn = boot_page(s, classzone);

		if (pfn == NO_PFN)
			break;
		if (i % 4 == 3 && kworker != NO_TASK) {
			page_make_kernel(s, pfn, kworker);
		} else {
			make_clean(s, pfn, file);
			clean++;
		}
	}
	return clean;
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

/*
 * setup_frag() - 55 % of memory is taken first (and given back at the end), so that the next 30 %,
 * clean page cache with a slab page in every four, lies at the top of the zone, where
 * compaction's free scanner looks for its targets; the freed bottom holds the eaters' pageblocks,
 * all movable, which compaction can empty.
 */
void setup_frag(struct sim *s)
{
	unsigned long total = total_managed_pages(s), clean, eater_pages, forks;
	int hold = s->nr_files++, cache = s->nr_files++;
	int kworker = task_create(s, TK_CHURNER, "kworker", 0, 0);

	for (unsigned long i = 0; i < total * 55 / 100; i++) {
		int32_t pfn = boot_page(s, ZONE_NORMAL);

		if (pfn == NO_PFN)
			break;
		make_clean(s, pfn, hold);
	}
	clean = fill_pinned(s, ZONE_NORMAL, total * 30 / 100, cache, kworker);
	/* The DMA zone aged the same way (the lowmem reserve keeps the fill above out of it). */
	clean += fill_pinned(s, ZONE_DMA, s->zones[ZONE_DMA].nr_pages, cache, kworker);
	file_remove(s, hold);
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
		task_sleep(s, t, delay, t->runnable);
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
