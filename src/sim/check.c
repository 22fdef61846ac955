// SPDX-License-Identifier: GPL-2.0-only
/* The model's invariants, checked after every event in debug builds (-DOOMGUARD_DEBUG): every
 * page in exactly one place, free + used = managed per zone, buddy lists consistent, counters equal
 * to what the lists hold. A violation aborts with the first broken fact. */
#include <stdio.h>
#include <stdlib.h>

#include "sim/model.h"

#ifdef OOMGUARD_DEBUG
static void fail(const char *what, long a, long b)
{
	fprintf(stderr, "sim invariant broken: %s (%ld != %ld)\n", what, a, b);
	abort();
}

#define CHECK_EQ(what, a, b)                                                                       \
	do {                                                                                       \
		if ((long)(a) != (long)(b))                                                        \
			fail(what, (long)(a), (long)(b));                                          \
	} while (0)

/* Walks a link A list: its length, and every member in @state. */
static unsigned long walk_la(const struct sim *s, const struct plist *l, int state)
{
	unsigned long n = 0;
	int32_t prev = NO_PFN;

	for (int32_t p = l->head; p != NO_PFN; p = s->pages[p].next) {
		CHECK_EQ("list back link", s->pages[p].prev, prev);
		if (state >= 0)
			CHECK_EQ("page state on its list", s->pages[p].state, state);
		prev = p;
		n++;
		if (n > s->nr_pages)
			fail("list loops", (long)n, (long)s->nr_pages);
	}
	CHECK_EQ("list tail", l->tail, prev);
	CHECK_EQ("list count", l->count, n);
	return n;
}

static void check_zone(const struct sim *s, const struct sim_zone *z, unsigned long *by_state)
{
	unsigned long counts[NR_PAGE_STATES] = {0};
	unsigned long free_pages = 0;
	int32_t end = z->start_pfn + (int32_t)z->nr_pages;

	for (int32_t p = z->start_pfn; p < end; p++) {
		const struct page *pg = &s->pages[p];

		CHECK_EQ("page zone", pg->zone, z->snap.idx);
		counts[pg->state]++;
		if (pg->state == PS_FREE || pg->state == PS_HUGE) {
			int tail = pg->state == PS_FREE ? PS_FREE_TAIL : PS_HUGE_TAIL;
			int32_t n = 1 << pg->order;

			CHECK_EQ("block alignment", (p - z->start_pfn) % n, 0);
			if (pg->state == PS_FREE)
				free_pages += (unsigned long)n;
			for (int32_t q = p + 1; q < p + n; q++) {
				CHECK_EQ("block tail state", s->pages[q].state, tail);
				counts[tail]++;
			}
			p += n - 1;
		} else if (pg->state == PS_FREE_TAIL || pg->state == PS_HUGE_TAIL) {
			fail("tail page outside a block", p, -1);
		}
	}
	CHECK_EQ("free pages", free_pages, z->snap.free_pages);
	/* free + used = managed */
	CHECK_EQ("free + used = managed",
		 free_pages + counts[PS_ANON] + counts[PS_FILE_CLEAN] + counts[PS_FILE_MAPPED] +
		     counts[PS_FILE_DIRTY] + counts[PS_FILE_WB] + counts[PS_KERNEL] +
		     counts[PS_HUGE] + counts[PS_HUGE_TAIL] + counts[PS_ISOLATED],
		 z->snap.managed_pages);
	for (unsigned int o = 0; o < MAX_ORDER; o++) {
		unsigned long nr = 0;
		unsigned int mask = 0;

		for (int mt = 0; mt < 2; mt++) {
			unsigned long c = walk_la(s, &z->free_area[o][mt], PS_FREE);

			for (int32_t p = z->free_area[o][mt].head; p != NO_PFN;
			     p = s->pages[p].next) {
				CHECK_EQ("free block order on its list", s->pages[p].order, o);
				CHECK_EQ("free block migratetype", s->pages[p].owner, mt);
			}
			nr += c;
			if (c)
				mask |= 1u << mt;
		}
		CHECK_EQ("nr_free", nr, z->snap.nr_free[o]);
		CHECK_EQ("free_list_mask", mask, z->snap.free_list_mask[o]);
	}
	CHECK_EQ("free heads on lists", counts[PS_FREE],
		 z->snap.nr_free[0] + z->snap.nr_free[1] + z->snap.nr_free[2] + z->snap.nr_free[3] +
		     z->snap.nr_free[4] + z->snap.nr_free[5] + z->snap.nr_free[6] +
		     z->snap.nr_free[7] + z->snap.nr_free[8] + z->snap.nr_free[9] +
		     z->snap.nr_free[10]);
	CHECK_EQ("anon list", walk_la(s, &z->lists[ZL_ANON], PS_ANON), counts[PS_ANON]);
	CHECK_EQ("clean file list", walk_la(s, &z->lists[ZL_FILE_CLEAN], PS_FILE_CLEAN),
		 counts[PS_FILE_CLEAN]);
	CHECK_EQ("mapped file list", walk_la(s, &z->lists[ZL_FILE_MAPPED], PS_FILE_MAPPED),
		 counts[PS_FILE_MAPPED]);
	CHECK_EQ("nr_dirty", z->nr_dirty, counts[PS_FILE_DIRTY]);
	CHECK_EQ("nr_writeback", z->nr_writeback, counts[PS_FILE_WB]);
	CHECK_EQ("nr_kernel", z->nr_kernel, counts[PS_KERNEL]);
	CHECK_EQ("reclaimable = file pages", z->snap.reclaimable_pages,
		 counts[PS_FILE_CLEAN] + counts[PS_FILE_MAPPED] + counts[PS_FILE_DIRTY] +
		     counts[PS_FILE_WB]);
	CHECK_EQ("folded LRU + per-CPU diffs = file pages", vmstat_snapshot(z, VM_LRU_FILE),
		 z->snap.reclaimable_pages);
	CHECK_EQ("write_pending", z->snap.write_pending,
		 counts[PS_FILE_DIRTY] + counts[PS_FILE_WB]);
	for (int st = 0; st < NR_PAGE_STATES; st++)
		by_state[st] += counts[st];
}

void sim_check(const struct sim *s)
{
	unsigned long by_state[NR_PAGE_STATES] = {0};
	unsigned long owned = 0, file_pages = 0, orphans = 0, anon = 0, inflight = 0;

	for (int i = 0; i < MAX_NR_ZONES; i++)
		check_zone(s, &s->zones[i], by_state);
	CHECK_EQ("dirty list", walk_la(s, &s->bdev.dirty, PS_FILE_DIRTY), by_state[PS_FILE_DIRTY]);
	CHECK_EQ("writeback list", walk_la(s, &s->bdev.writeback, PS_FILE_WB),
		 by_state[PS_FILE_WB]);
	CHECK_EQ("hugetlb pool", walk_la(s, &s->huge_pool, PS_HUGE), by_state[PS_HUGE]);
	for (int i = 0; i < s->nr_tasks; i++) {
		owned += s->tasks[i].pages.count;
		anon += s->tasks[i].nr_anon;
	}
	CHECK_EQ("task pages = anon + kernel", owned, by_state[PS_ANON] + by_state[PS_KERNEL]);
	CHECK_EQ("task anon counters", anon, by_state[PS_ANON]);
	for (int f = 0; f < s->nr_files; f++)
		file_pages += s->files[f].pages.count;
	for (int32_t p = s->bdev.writeback.head; p != NO_PFN; p = s->pages[p].next)
		orphans += (s->pages[p].flags & PGF_ORPHAN) != 0;
	CHECK_EQ("file pages = clean + dirty + writeback - orphans", file_pages + orphans,
		 by_state[PS_FILE_CLEAN] + by_state[PS_FILE_MAPPED] + by_state[PS_FILE_DIRTY] +
		     by_state[PS_FILE_WB]);
	for (unsigned int k = 0; k < s->bdev.nr_req; k++)
		inflight += s->bdev.req_pages[(s->bdev.req_head + k) % BDEV_NR_REQUESTS];
	CHECK_EQ("in-flight requests hold the writeback list", inflight, s->bdev.writeback.count);
}
#else
void sim_check(const struct sim *s)
{
	(void)s;
}
#endif
