// SPDX-License-Identifier: GPL-2.0-only
/* The model's zones and buddy allocator: zone layout and watermarks, split and merge, free lists
 * and counters against a full invariant walk, pageblock stealing, pages_scanned reset on free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/model.h"
#include "../lib/sim_fixture.h"

static struct fixture *machine(unsigned int mem_mib)
{
	return sim_fixture_new(mem_mib, RETRY_RULE_REWORK, true, false);
}

/* Zone sizes and watermarks as 4.3 derives them for the cover letter's 2 GiB machine. */
static void test_zone_layout(void **state)
{
	struct fixture *f = machine(2048);
	struct sim *s = &f->s;

	(void)state;
	assert_int_equal(s->nr_populated, 2); /* no Normal zone below 4 GiB */
	assert_int_equal(s->zones[ZONE_DMA].snap.managed_pages, 4096);
	assert_int_equal(s->zones[ZONE_DMA32].snap.managed_pages, 524288 - 4096);
	assert_int_equal(s->zones[ZONE_NORMAL].snap.managed_pages, 0);
	/* min_free_kbytes = sqrt(2097152 * 16) = 5792 -> 1448 pages, shared by size. */
	assert_int_equal(s->zones[ZONE_DMA].snap.watermark[WMARK_MIN], 1448 * 4096 / 524288);
	assert_int_equal(s->zones[ZONE_DMA32].snap.watermark[WMARK_MIN], 1448 * 520192 / 524288);
	assert_int_equal(s->zones[ZONE_DMA32].snap.watermark[WMARK_LOW],
			 s->zones[ZONE_DMA32].snap.watermark[WMARK_MIN] * 5 / 4);
	/* lowmem_reserve: what the zones above would take, / 256 for DMA. */
	assert_int_equal(s->zones[ZONE_DMA].snap.lowmem_reserve[ZONE_DMA32], 520192 / 256);
	assert_int_equal(s->zones[ZONE_DMA].snap.lowmem_reserve[ZONE_DMA], 0);
	assert_int_equal(s->zones[ZONE_DMA32].snap.lowmem_reserve[ZONE_NORMAL], 0);
	assert_int_equal(total_free_pages(s), 524288);
	sim_check(s);
	sim_fixture_put(f);
}

/* Split to order 0 and merge back to MAX_ORDER-1 blocks; the counters follow. */
static void test_split_merge(void **state)
{
	struct fixture *f = machine(32);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	unsigned long free0 = z->snap.free_pages, top0 = z->snap.nr_free[MAX_ORDER - 1];
	int32_t pfn[3];

	(void)state;
	for (int i = 0; i < 3; i++) {
		pfn[i] = buddy_alloc(s, z, 0, MT_MOVABLE);
		assert_int_not_equal(pfn[i], NO_PFN);
		page_make_kernel(s, pfn[i], s->kswapd);
	}
	sim_check(s);
	assert_int_equal(z->snap.free_pages, free0 - 3);
	assert_int_equal(z->snap.nr_free[MAX_ORDER - 1], top0 - 1);
	/* One split of a top block leaves one free block of every order but the 0s used. */
	for (int o = 2; o < MAX_ORDER - 1; o++)
		assert_int_equal(z->snap.nr_free[o], 1);
	for (int i = 0; i < 3; i++) {
		page_release(s, pfn[i]);
		sim_check(s);
	}
	assert_int_equal(z->snap.free_pages, free0);
	assert_int_equal(z->snap.nr_free[MAX_ORDER - 1], top0);
	for (int o = 0; o < MAX_ORDER - 1; o++)
		assert_int_equal(z->snap.nr_free[o], 0);
	sim_fixture_put(f);
}

/* An order-9 request splits one top block; freeing it merges back. */
static void test_high_order(void **state)
{
	struct fixture *f = machine(32);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	int32_t pfn = buddy_alloc(s, z, PAGEBLOCK_ORDER, MT_MOVABLE);

	(void)state;
	assert_int_not_equal(pfn, NO_PFN);
	assert_int_equal((pfn - z->start_pfn) % (int32_t)PAGEBLOCK_PAGES, 0);
	assert_int_equal(z->snap.nr_free[PAGEBLOCK_ORDER], 1);
	for (int32_t q = pfn; q < pfn + (int32_t)PAGEBLOCK_PAGES; q++)
		s->pages[q].state = PS_FREE_TAIL;
	buddy_free(s, pfn, PAGEBLOCK_ORDER);
	assert_int_equal(z->snap.nr_free[PAGEBLOCK_ORDER], 0);
	sim_check(s);
	sim_fixture_put(f);
}

/* An unmovable request on a movable-only zone steals a block and claims its pageblock. */
static void test_fallback_claims_pageblock(void **state)
{
	struct fixture *f = machine(32);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	int32_t pfn = buddy_alloc(s, z, 0, MT_UNMOVABLE);

	(void)state;
	assert_int_not_equal(pfn, NO_PFN);
	page_make_kernel(s, pfn, s->kswapd);
	assert_int_equal(s->pageblock_mt[pfn / (int32_t)PAGEBLOCK_PAGES], MT_UNMOVABLE);
	/* The rest of the stolen block now sits on unmovable lists. */
	assert_true(z->snap.free_list_mask[0] & (1u << MT_UNMOVABLE));
	sim_check(s);
	page_release(s, pfn);
	sim_check(s);
	sim_fixture_put(f);
}

/* Any page freed to a zone resets its pages_scanned: zone_reclaimable() turns true again. */
static void test_free_resets_pages_scanned(void **state)
{
	struct fixture *f = machine(32);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	int32_t pfn = buddy_alloc(s, z, 0, MT_MOVABLE);

	(void)state;
	s->nr_files = 1;
	page_make_file_dirty(s, pfn, 0);
	z->snap.pages_scanned = 6;
	assert_false(zone_reclaimable(&z->snap)); /* 6 >= 1 * 6 */
	{
		int32_t other = buddy_alloc(s, z, 0, MT_MOVABLE);

		page_make_kernel(s, other, s->kswapd);
		page_release(s, other);
	}
	assert_int_equal(z->snap.pages_scanned, 0);
	assert_true(zone_reclaimable(&z->snap));
	sim_check(s);
	sim_fixture_put(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_zone_layout),
	    cmocka_unit_test(test_split_merge),
	    cmocka_unit_test(test_high_order),
	    cmocka_unit_test(test_fallback_claims_pageblock),
	    cmocka_unit_test(test_free_resets_pages_scanned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
