// SPDX-License-Identifier: GPL-2.0-only
/* __zone_watermark_ok(), gfp_to_alloc_flags() and zone_reclaimable(): table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy/gfp.h"
#include "policy/zone.h"

#define MT(t) (1u << (t))

/* A Normal zone with min 1000 and no reserves; free blocks set per case. */
static struct zone_snapshot normal_zone(void)
{
	struct zone_snapshot z = {
		.idx = ZONE_NORMAL,
		.managed_pages = 100000,
		.watermark = {1000, 1250, 1500},
	};
	return z;
}

struct wm_case {
	const char *name;
	unsigned int order;
	unsigned int alloc_flags;
	long free_pages;
	unsigned long highatomic;
	unsigned long cma;
	int classzone;
	unsigned long reserve_normal; /* lowmem_reserve[ZONE_NORMAL] of this zone */
	int block_order;              /* order of the one free block, -1: none */
	unsigned int block_lists;     /* lists that block sits on */
	bool expect;
};

static const struct wm_case wm_cases[] = {
	/* order 0: free must stay strictly above min */
	{"order0 above min", 0, ALLOC_WMARK_MIN, 1001, 0, 0, ZONE_NORMAL, 0, -1, 0, true},
	{"order0 at min", 0, ALLOC_WMARK_MIN, 1000, 0, 0, ZONE_NORMAL, 0, -1, 0, false},
	/* ALLOC_HIGH halves min: 500 */
	{"HIGH above half", 0, ALLOC_HIGH, 501, 0, 0, ZONE_NORMAL, 0, -1, 0, true},
	{"HIGH at half", 0, ALLOC_HIGH, 500, 0, 0, ZONE_NORMAL, 0, -1, 0, false},
	/* ALLOC_HARDER takes a quarter off: 750 */
	{"HARDER above 3/4", 0, ALLOC_HARDER, 751, 0, 0, ZONE_NORMAL, 0, -1, 0, true},
	{"HARDER at 3/4", 0, ALLOC_HARDER, 750, 0, 0, ZONE_NORMAL, 0, -1, 0, false},
	/* GFP_ATOMIC = HIGH + HARDER: 1000 - 500 = 500, 500 - 125 = 375 (min * 3/8) */
	{"ATOMIC above 3/8", 0, ALLOC_HIGH | ALLOC_HARDER, 376, 0, 0, ZONE_NORMAL, 0, -1, 0, true},
	{"ATOMIC at 3/8", 0, ALLOC_HIGH | ALLOC_HARDER, 375, 0, 0, ZONE_NORMAL, 0, -1, 0, false},
	/* the highatomic reserve is unusable without HARDER */
	{"highatomic hidden", 0, ALLOC_WMARK_MIN, 1101, 100, 0, ZONE_NORMAL, 0, -1, 0, true},
	{"highatomic hidden fail", 0, ALLOC_WMARK_MIN, 1100, 100, 0, ZONE_NORMAL, 0, -1, 0, false},
	{"highatomic usable HARDER", 0, ALLOC_HARDER, 851, 100, 0, ZONE_NORMAL, 0, -1, 0, true},
	/* CMA pages count only with ALLOC_CMA */
	{"cma hidden", 0, ALLOC_WMARK_MIN, 1050, 0, 100, ZONE_NORMAL, 0, -1, 0, false},
	{"cma usable", 0, ALLOC_CMA, 1050, 0, 100, ZONE_NORMAL, 0, -1, 0, true},
	/* lowmem_reserve of the classzone is added to min */
	{"reserve selected", 0, ALLOC_WMARK_MIN, 1500, 0, 0, ZONE_NORMAL, 500, -1, 0, false},
	{"reserve passed", 0, ALLOC_WMARK_MIN, 1501, 0, 0, ZONE_NORMAL, 500, -1, 0, true},
	{"other classzone", 0, ALLOC_WMARK_MIN, 1500, 0, 0, ZONE_DMA32, 500, -1, 0, true},
	/* order > 0: (1 << order) - 1 pages are unusable, then a block of >= order is needed */
	{"order3 count", 3, ALLOC_WMARK_MIN, 1008, 0, 0, ZONE_NORMAL, 0, 3, MT(MIGRATE_MOVABLE),
	 true},
	{"order3 count short", 3, ALLOC_WMARK_MIN, 1007, 0, 0, ZONE_NORMAL, 0, 3,
	 MT(MIGRATE_MOVABLE), false},
	{"order3 no block", 3, ALLOC_WMARK_MIN, 50000, 0, 0, ZONE_NORMAL, 0, -1, 0, false},
	{"order3 only order2", 3, ALLOC_WMARK_MIN, 50000, 0, 0, ZONE_NORMAL, 0, 2,
	 MT(MIGRATE_MOVABLE), false},
	{"order3 bigger block", 3, ALLOC_WMARK_MIN, 50000, 0, 0, ZONE_NORMAL, 0, 10,
	 MT(MIGRATE_UNMOVABLE), true},
	{"order3 reclaimable list", 3, ALLOC_WMARK_MIN, 50000, 0, 0, ZONE_NORMAL, 0, 4,
	 MT(MIGRATE_RECLAIMABLE), true},
	{"order3 highatomic list", 3, ALLOC_WMARK_MIN, 50000, 0, 0, ZONE_NORMAL, 0, 3,
	 MT(MIGRATE_HIGHATOMIC), false},
	{"order3 highatomic HARDER", 3, ALLOC_HARDER, 50000, 0, 0, ZONE_NORMAL, 0, 3,
	 MT(MIGRATE_HIGHATOMIC), true},
	{"order3 cma list", 3, ALLOC_WMARK_MIN, 50000, 0, 0, ZONE_NORMAL, 0, 3, MT(MIGRATE_CMA),
	 false},
	{"order3 cma list CMA", 3, ALLOC_CMA, 50000, 0, 0, ZONE_NORMAL, 0, 3, MT(MIGRATE_CMA),
	 true},
	/* order 9 (a huge page): 511 unusable */
	{"order9 count", 9, ALLOC_WMARK_MIN, 1512, 0, 0, ZONE_NORMAL, 0, 9, MT(MIGRATE_MOVABLE),
	 true},
	{"order9 count short", 9, ALLOC_WMARK_MIN, 1511, 0, 0, ZONE_NORMAL, 0, 9,
	 MT(MIGRATE_MOVABLE), false},
	/* a negative count (the caller subtracted more than there was) simply fails */
	{"negative free", 0, ALLOC_WMARK_MIN, -5, 0, 0, ZONE_NORMAL, 0, -1, 0, false},
};

#define NR_WM_CASES (sizeof(wm_cases) / sizeof(wm_cases[0]))

/* One cmocka test per row: the row arrives as the test's state. */
static void test_watermark_case(void **state)
{
	const struct wm_case *c = *state;
	struct zone_snapshot z = normal_zone();
	bool ok;

	z.nr_reserved_highatomic = c->highatomic;
	z.free_cma_pages = c->cma;
	z.lowmem_reserve[ZONE_NORMAL] = c->reserve_normal;
	if (c->block_order >= 0) {
		z.nr_free[c->block_order] = 1;
		z.free_list_mask[c->block_order] = c->block_lists;
	}
	ok = __zone_watermark_ok(&z, c->order, min_wmark_pages(&z), c->classzone, c->alloc_flags,
				 c->free_pages);
	if (ok != c->expect)
		fail_msg("case '%s': got %d, want %d", c->name, ok, c->expect);
}

static void test_zone_watermark_ok_uses_free_pages(void **state)
{
	struct zone_snapshot z = normal_zone();

	(void)state;
	z.free_pages = 1001;
	assert_true(zone_watermark_ok(&z, 0, 1000, ZONE_NORMAL, ALLOC_WMARK_MIN));
	z.free_pages = 1000;
	assert_false(zone_watermark_ok(&z, 0, 1000, ZONE_NORMAL, ALLOC_WMARK_MIN));
}

static void test_gfp_to_alloc_flags(void **state)
{
	(void)state;
	assert_int_equal(gfp_to_alloc_flags(GFP_KERNEL) & (ALLOC_HIGH | ALLOC_HARDER), 0);
	assert_int_equal(gfp_to_alloc_flags(GFP_ATOMIC) & (ALLOC_HIGH | ALLOC_HARDER),
			 ALLOC_HIGH | ALLOC_HARDER);
	assert_int_equal(gfp_to_alloc_flags(GFP_ATOMIC) & ALLOC_CPUSET, 0);
	assert_int_equal(gfp_to_alloc_flags(GFP_KERNEL) & ALLOC_CPUSET, ALLOC_CPUSET);
	assert_int_equal(gfp_to_alloc_flags(GFP_HIGHUSER_MOVABLE) & ALLOC_CMA, ALLOC_CMA);
	assert_int_equal(gfp_to_alloc_flags(GFP_KERNEL) & ALLOC_WMARK_MASK, ALLOC_WMARK_MIN);
}

static void test_zone_reclaimable(void **state)
{
	struct zone_snapshot z = normal_zone();

	(void)state;
	z.reclaimable_pages = 100;
	z.pages_scanned = 599; /* < 6 x 100 */
	assert_true(zone_reclaimable(&z));
	z.pages_scanned = 600;
	assert_false(zone_reclaimable(&z));
	z.reclaimable_pages = 0;
	z.pages_scanned = 0;
	assert_false(zone_reclaimable(&z));
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_zone_watermark_ok_uses_free_pages),
		cmocka_unit_test(test_gfp_to_alloc_flags),
		cmocka_unit_test(test_zone_reclaimable),
	};
	struct CMUnitTest tests[NR_WM_CASES + sizeof(fixed) / sizeof(fixed[0])];
	size_t n = 0;

	for (size_t i = 0; i < NR_WM_CASES; i++)
		tests[n++] = (struct CMUnitTest){.name = wm_cases[i].name,
						 .test_func = test_watermark_case,
						 .initial_state = (void *)&wm_cases[i]};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		tests[n++] = fixed[i];
	return _cmocka_run_group_tests("watermark", tests, n, NULL, NULL);
}
