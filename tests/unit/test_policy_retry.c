// SPDX-License-Identifier: GPL-2.0-only
/* The three retry rules: back-off arithmetic, the MAX_RECLAIM_RETRIES bound, costly orders,
 * several zones, counter handling, and base's livelock against rework's bounded retries. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "policy/retry.h"

/* A zone with min 1000 and a free block of every order on the movable list. */
static struct zone_snapshot zone_with(enum zone_type idx, unsigned long free_pages,
				      unsigned long reclaimable)
{
	struct zone_snapshot z = {
		.idx = idx,
		.managed_pages = 1UL << 20,
		.watermark = {1000, 1250, 1500},
		.free_pages = free_pages,
		.reclaimable_pages = reclaimable,
	};
	for (int o = 0; o < MAX_ORDER; o++) {
		z.nr_free[o] = 1;
		z.free_list_mask[o] = 1u << MIGRATE_MOVABLE;
	}
	return z;
}

static struct alloc_request request(const struct zone_snapshot *zones, size_t nr, unsigned int order,
				    gfp_t gfp)
{
	struct alloc_request r = {
		.gfp_mask = gfp,
		.order = order,
		.alloc_flags = gfp_to_alloc_flags(gfp),
		.high_zoneidx = ZONE_NORMAL,
		.zones = zones,
		.nr_zones = nr,
	};
	return r;
}

/* Runs rounds without progress until the rule says OOM; returns the round (1-based) or 0. */
static int rounds_until_oom(enum retry_rule rule, const struct alloc_request *req, int max_rounds,
			    struct retry_decision *ret_last)
{
	struct retry_state st = {0};

	for (int round = 1; round <= max_rounds; round++) {
		reclaim_retry_decide(rule, req, 0, &st, ret_last);
		if (ret_last->verdict == RETRY_OOM)
			return round;
	}
	return 0;
}

struct backoff_case {
	unsigned long reclaimable;
	int loops;
	unsigned long expect;
};

static const struct backoff_case backoff_cases[] = {
	{1000, 0, 1000}, /* nothing taken at 0 rounds */
	{1000, 1, 937},  /* DIV_ROUND_UP(1000, 16) = 63 */
	{1000, 8, 500},  /* half at 8 rounds */
	{1000, 16, 0},   /* nothing left at 16 */
	{1001, 8, 500},  /* DIV_ROUND_UP(8008, 16) = 501: the cut rounds up */
	{17, 1, 15},     /* DIV_ROUND_UP(17, 16) = 2 */
	{16, 1, 15},
	{15, 1, 14},     /* even a fraction of a page is taken */
	{0, 5, 0},
	{1000, 17, 0},
};

static void test_backoff_counts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(backoff_cases) / sizeof(backoff_cases[0]); i++) {
		const struct backoff_case *c = &backoff_cases[i];
		unsigned long got = reclaimable_after_backoff(c->reclaimable, c->loops);

		if (got != c->expect)
			fail_msg("reclaimable %lu after %d rounds: got %lu, want %lu",
				 c->reclaimable, c->loops, got, c->expect);
	}
}

/* The seed's available = reclaimable - backoff + free, as should_reclaim_retry() computes it. */
static void test_available_after_backoff(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 100, 1000);
	struct alloc_request req = request(&z, 1, 0, GFP_KERNEL);
	struct retry_decision d;
	static const struct {
		int loops;
		long available;
	} rows[] = {{0, 1100}, {1, 1037}, {8, 600}, {16, 100}};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&d, 0, sizeof(d));
		should_reclaim_retry(&req, false, 0, rows[i].loops, &d);
		assert_int_equal(d.available[0], rows[i].available);
	}
}

/* 17 rounds without progress -> OOM whatever the zones say (rework and mainline). */
static void test_seventeen_rounds_oom(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 1UL << 19, 1UL << 19);
	struct alloc_request req = request(&z, 1, 0, GFP_KERNEL);
	struct retry_decision d;

	(void)state;
	assert_int_equal(rounds_until_oom(RETRY_RULE_REWORK, &req, 100, &d),
			 MAX_RECLAIM_RETRIES + 1);
	assert_int_equal(d.no_progress_loops, MAX_RECLAIM_RETRIES + 1);
	assert_string_equal(d.reason, "no progress for more than MAX_RECLAIM_RETRIES rounds");
	assert_int_equal(rounds_until_oom(RETRY_RULE_MAINLINE, &req, 100, &d), 17);
	/* the literal figure of the seed, in case the constant itself drifts */
	assert_int_equal(MAX_RECLAIM_RETRIES, 16);
}

/* free 500 + reclaimable 1000 against min 1000: the back-off makes rework give up when the cut
 * reaches 500, at round 8 exactly; mainline has no back-off and waits the full 17. */
static void test_backoff_decides_round(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 500, 1000);
	struct alloc_request req = request(&z, 0, 0, GFP_KERNEL);
	struct retry_decision d;

	(void)state;
	req.nr_zones = 1;
	req.zones = &z;
	req.order = 0;
	assert_int_equal(rounds_until_oom(RETRY_RULE_REWORK, &req, 100, &d), 8);
	assert_int_equal(d.available[0], 1000);
	assert_int_equal(rounds_until_oom(RETRY_RULE_MAINLINE, &req, 100, &d), 17);
}

static void test_second_zone_passes(void **state)
{
	struct zone_snapshot zones[2] = {zone_with(ZONE_DMA32, 10, 10),
					 zone_with(ZONE_NORMAL, 900, 400)};
	struct alloc_request req = request(zones, 2, 0, GFP_KERNEL);
	struct retry_state st = {0};
	struct retry_decision d;

	(void)state;
	for (int rule = 0; rule < NR_RETRY_RULES; rule++) {
		if (rule == RETRY_RULE_BASE)
			continue; /* base never looks at watermarks */
		memset(&st, 0, sizeof(st));
		reclaim_retry_decide((enum retry_rule)rule, &req, 0, &st, &d);
		assert_int_equal(d.verdict, RETRY_RECLAIM);
		assert_int_equal(d.passing_zone, 1);
	}
	/* the seed waits on the zone that passed */
	memset(&st, 0, sizeof(st));
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 0, &st, &d);
	assert_int_equal(d.wait, RETRY_WAIT_IFF_CONGESTED);
	assert_int_equal(d.wait_zone, 1);
	/* and when neither passes: OOM */
	zones[1].reclaimable_pages = 0;
	memset(&st, 0, sizeof(st));
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 0, &st, &d);
	assert_int_equal(d.verdict, RETRY_OOM);
	assert_int_equal(d.passing_zone, -1);
}

struct costly_case {
	const char *name;
	enum retry_rule rule;
	unsigned int order;
	gfp_t gfp;
	unsigned long pages_reclaimed_before;
	unsigned long nr_reclaimed;
	unsigned long zone_free; /* min is 1000 */
	enum retry_verdict expect;
};

static const struct costly_case costly_cases[] = {
	{"rework costly no REPEAT", RETRY_RULE_REWORK, 4, GFP_KERNEL, 0, 100, 1UL << 20, RETRY_OOM},
	{"rework REPEAT reclaimed enough", RETRY_RULE_REWORK, 4, GFP_KERNEL | __GFP_REPEAT, 16, 0,
	 1UL << 20, RETRY_OOM},
	{"rework REPEAT reaches 1<<order", RETRY_RULE_REWORK, 4, GFP_KERNEL | __GFP_REPEAT, 10, 6,
	 1UL << 20, RETRY_OOM},
	{"rework REPEAT progress", RETRY_RULE_REWORK, 4, GFP_KERNEL | __GFP_REPEAT, 0, 5, 0,
	 RETRY_RECLAIM},
	{"rework REPEAT no progress, zones fail", RETRY_RULE_REWORK, 4, GFP_KERNEL | __GFP_REPEAT, 0,
	 0, 0, RETRY_OOM},
	{"rework REPEAT no progress, zone ok", RETRY_RULE_REWORK, 4, GFP_KERNEL | __GFP_REPEAT, 0, 0,
	 1UL << 20, RETRY_RECLAIM},
	{"rework order3 not costly", RETRY_RULE_REWORK, 3, GFP_KERNEL, 0, 0, 1UL << 20,
	 RETRY_RECLAIM},
	{"base costly no REPEAT", RETRY_RULE_BASE, 4, GFP_KERNEL, 0, 100, 1UL << 20, RETRY_OOM},
	{"base REPEAT below 1<<order", RETRY_RULE_BASE, 9, GFP_KERNEL | __GFP_REPEAT, 400, 100, 0,
	 RETRY_RECLAIM},
	{"base REPEAT reaches 1<<order", RETRY_RULE_BASE, 9, GFP_KERNEL | __GFP_REPEAT, 500, 12, 0,
	 RETRY_OOM},
	{"base order3 progress", RETRY_RULE_BASE, 3, GFP_KERNEL, 0, 1, 0, RETRY_RECLAIM},
	{"mainline costly no RETRY_MAYFAIL", RETRY_RULE_MAINLINE, 4, GFP_KERNEL, 0, 100, 1UL << 20,
	 RETRY_OOM},
	{"mainline costly REPEAT zone ok", RETRY_RULE_MAINLINE, 9, GFP_KERNEL | __GFP_REPEAT, 0, 100,
	 1UL << 20, RETRY_RECLAIM},
};

static void test_costly_orders(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(costly_cases) / sizeof(costly_cases[0]); i++) {
		const struct costly_case *c = &costly_cases[i];
		struct zone_snapshot z = zone_with(ZONE_NORMAL, c->zone_free, 0);
		struct alloc_request req = request(&z, 1, c->order, c->gfp);
		struct retry_state st = {.pages_reclaimed = c->pages_reclaimed_before};
		struct retry_decision d;

		if (c->zone_free == 0) /* no free block either */
			memset(z.nr_free, 0, sizeof(z.nr_free));
		reclaim_retry_decide(c->rule, &req, c->nr_reclaimed, &st, &d);
		if (d.verdict != c->expect)
			fail_msg("case '%s': verdict %d (%s), want %d", c->name, d.verdict,
				 d.reason, c->expect);
	}
}

/* Under base, a costly __GFP_REPEAT request retries until 1 << order pages were reclaimed. */
static void test_base_repeat_counts_pages(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 0, 0);
	struct alloc_request req = request(&z, 1, 9, GFP_KERNEL | __GFP_REPEAT);
	struct retry_state st = {0};
	struct retry_decision d;
	int round;

	(void)state;
	for (round = 1; round < 100; round++) {
		reclaim_retry_decide(RETRY_RULE_BASE, &req, 100, &st, &d);
		if (d.verdict == RETRY_OOM)
			break;
	}
	assert_int_equal(round, 6); /* 500 < 512 retries, 600 does not */
	assert_int_equal(st.pages_reclaimed, 600);
}

static void test_counter_handling(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 1UL << 19, 0);
	struct alloc_request req = request(&z, 1, 0, GFP_KERNEL);
	struct alloc_request costly = request(&z, 1, 9, GFP_KERNEL | __GFP_REPEAT);
	struct retry_state st = {0};
	struct retry_decision d;

	(void)state;
	/* rework: +1 per round without progress, reset and accumulate on progress */
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 0, &st, &d);
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 0, &st, &d);
	assert_int_equal(st.no_progress_loops, 2);
	assert_int_equal(d.no_progress_loops, 2);
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 7, &st, &d);
	assert_int_equal(st.no_progress_loops, 0);
	assert_int_equal(st.pages_reclaimed, 7);
	/* an OOM kill that helped resets the counter */
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 0, &st, &d);
	assert_int_equal(st.no_progress_loops, 1);
	retry_state_oom_progress(&st);
	assert_int_equal(st.no_progress_loops, 0);
	/* mainline: costly orders never reset it, even with progress */
	memset(&st, 0, sizeof(st));
	reclaim_retry_decide(RETRY_RULE_MAINLINE, &costly, 50, &st, &d);
	reclaim_retry_decide(RETRY_RULE_MAINLINE, &costly, 50, &st, &d);
	assert_int_equal(st.no_progress_loops, 2);
	/* ... but order <= 3 progress does */
	reclaim_retry_decide(RETRY_RULE_MAINLINE, &req, 1, &st, &d);
	assert_int_equal(st.no_progress_loops, 0);
	/* base keeps no counter */
	memset(&st, 0, sizeof(st));
	reclaim_retry_decide(RETRY_RULE_BASE, &req, 0, &st, &d);
	assert_int_equal(st.no_progress_loops, 0);
}

/* The cover letter's livelock: reclaimable pages that reclaim cannot free (dirty, stuck), and a
 * churner whose frees keep pages_scanned at 0. base retries without end; rework gives up within
 * 17 rounds, here at the round the back-off predicts. */
static void test_base_livelock_rework_bounded(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 500, 2000);
	struct alloc_request req = request(&z, 1, 0, GFP_KERNEL);
	struct retry_decision d;

	(void)state;
	z.pages_scanned = 0;
	assert_int_equal(rounds_until_oom(RETRY_RULE_BASE, &req, 10000, &d), 0);
	assert_string_equal(d.reason, "zone_reclaimable() faked progress");
	/* 500 + 2000 - ceil(2000k/16) > 1000 holds up to k = 11 */
	assert_int_equal(rounds_until_oom(RETRY_RULE_REWORK, &req, 10000, &d), 12);
	/* with reclaimable far above the watermark, the back-off still takes it all by round 16
	 * (free alone is below min), within the 17-round bound */
	z.reclaimable_pages = 1UL << 20;
	assert_int_equal(rounds_until_oom(RETRY_RULE_REWORK, &req, 10000, &d), 16);
	assert_int_equal(d.available[0], 500);
	assert_int_equal(rounds_until_oom(RETRY_RULE_BASE, &req, 10000, &d), 0);
	/* base does go OOM once scanning passes 6 x reclaimable without a page freed */
	z.reclaimable_pages = 2000;
	z.pages_scanned = 6 * 2000;
	assert_int_equal(rounds_until_oom(RETRY_RULE_BASE, &req, 10, &d), 1);
}

static void test_mainline_unreserves_highatomic(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 0, 0);
	struct alloc_request req = request(&z, 1, 0, GFP_KERNEL);
	struct retry_state st = {0};
	struct retry_decision d;

	(void)state;
	z.nr_reserved_highatomic = 512;
	reclaim_retry_decide(RETRY_RULE_MAINLINE, &req, 0, &st, &d);
	assert_int_equal(d.verdict, RETRY_UNRESERVE_HIGHATOMIC);
	z.nr_reserved_highatomic = 0;
	reclaim_retry_decide(RETRY_RULE_MAINLINE, &req, 0, &st, &d);
	assert_int_equal(d.verdict, RETRY_OOM);
	/* rework has no such step */
	z.nr_reserved_highatomic = 512;
	memset(&st, 0, sizeof(st));
	reclaim_retry_decide(RETRY_RULE_REWORK, &req, 0, &st, &d);
	assert_int_equal(d.verdict, RETRY_OOM);
}

static void test_rule_names(void **state)
{
	enum retry_rule r = NR_RETRY_RULES;

	(void)state;
	for (int i = 0; i < NR_RETRY_RULES; i++) {
		assert_int_equal(retry_rule_parse(retry_rule_name((enum retry_rule)i), &r), 0);
		assert_int_equal(r, i);
	}
	assert_string_equal(retry_rule_name(RETRY_RULE_REWORK), "rework");
	assert_int_equal(retry_rule_parse("Base", &r), -EINVAL);
	assert_int_equal(retry_rule_parse("", &r), -EINVAL);
	assert_int_equal(retry_rule_parse(NULL, &r), -EINVAL);
	assert_null(retry_rule_name(NR_RETRY_RULES));
}

/* rework-v4, patch 2/3: congestion_wait only after a round without progress and with dirty +
 * writeback above half of the passing zone's reclaimable pages; otherwise no wait at all. */
static void test_rework_v4_throttle(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 900, 400);
	struct alloc_request req = request(&z, 1, 0, GFP_KERNEL);
	struct retry_state st = {0};
	struct retry_decision d;

	(void)state;
	z.write_pending = 201;
	reclaim_retry_decide(RETRY_RULE_REWORK_V4, &req, 0, &st, &d);
	assert_int_equal(d.verdict, RETRY_RECLAIM);
	assert_int_equal(d.wait, RETRY_WAIT_CONGESTION);
	z.write_pending = 200; /* exactly half: no throttle */
	reclaim_retry_decide(RETRY_RULE_REWORK_V4, &req, 0, &st, &d);
	assert_int_equal(d.wait, RETRY_WAIT_NONE);
	z.write_pending = 400;
	reclaim_retry_decide(RETRY_RULE_REWORK_V4, &req, 5, &st, &d); /* progress: no throttle */
	assert_int_equal(d.wait, RETRY_WAIT_NONE);
	assert_int_equal(st.no_progress_loops, 0);
	assert_string_equal(retry_rule_name(RETRY_RULE_REWORK_V4), "rework-v4");
}

/* rework-v4, patch 3/3: a costly __GFP_REPEAT order's progress neither resets the counter nor
 * counts pages_reclaimed: it ends on MAX_RECLAIM_RETRIES where the seed patch stops at 1 << order
 * reclaimed pages. */
static void test_rework_v4_costly(void **state)
{
	struct zone_snapshot z = zone_with(ZONE_NORMAL, 100000, 100000);
	struct alloc_request req = request(&z, 1, 9, GFP_KERNEL | __GFP_REPEAT);
	struct retry_state st = {0};
	struct retry_decision d;
	int round;

	(void)state;
	for (round = 1; round <= 100; round++) {
		reclaim_retry_decide(RETRY_RULE_REWORK_V4, &req, 100, &st, &d);
		if (d.verdict == RETRY_OOM)
			break;
	}
	assert_int_equal(round, MAX_RECLAIM_RETRIES + 1);
	assert_int_equal(st.pages_reclaimed, 0);
	memset(&st, 0, sizeof(st));
	for (round = 1; round <= 100; round++) {
		reclaim_retry_decide(RETRY_RULE_REWORK, &req, 100, &st, &d);
		if (d.verdict == RETRY_OOM)
			break;
	}
	assert_int_equal(round, 6); /* 6 * 100 >= 512 */
	/* without __GFP_REPEAT: OOM path at once */
	req.gfp_mask = GFP_KERNEL;
	memset(&st, 0, sizeof(st));
	reclaim_retry_decide(RETRY_RULE_REWORK_V4, &req, 100, &st, &d);
	assert_int_equal(d.verdict, RETRY_OOM);
}

/* Mainline's compaction feedback: never for order 0; failures raise the priority to its floor
 * (sync full for !costly, sync light for costly), then give up; successes count retries. */
static void test_should_compact_retry(void **state)
{
	struct compact_retry_state cs = {COMPACT_PRIO_ASYNC, 0};
	int n = 0;

	(void)state;
	assert_false(should_compact_retry(0, COMPACT_COMPLETE, true, &cs));
	while (should_compact_retry(2, COMPACT_COMPLETE, true, &cs))
		n++;
	assert_int_equal(n, 2);
	assert_int_equal(cs.priority, MIN_COMPACT_PRIORITY);
	cs = (struct compact_retry_state){COMPACT_PRIO_ASYNC, 0};
	n = 0;
	while (should_compact_retry(9, COMPACT_COMPLETE, true, &cs))
		n++;
	assert_int_equal(n, 1);
	cs = (struct compact_retry_state){COMPACT_PRIO_SYNC_FULL, 0};
	n = 0;
	while (should_compact_retry(2, COMPACT_SUCCESS, true, &cs) && n < 100)
		n++;
	assert_int_equal(n, MAX_COMPACT_RETRIES);
	assert_true(should_compact_retry(2, COMPACT_SKIPPED, true, &cs));
	assert_false(should_compact_retry(2, COMPACT_SKIPPED, false, &cs));
	/* A deferral is a failure: it raises the priority, it does not retry in place. */
	cs = (struct compact_retry_state){COMPACT_PRIO_ASYNC, 0};
	n = 0;
	while (should_compact_retry(2, COMPACT_DEFERRED, true, &cs) && n < 100)
		n++;
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff_counts),
		cmocka_unit_test(test_available_after_backoff),
		cmocka_unit_test(test_seventeen_rounds_oom),
		cmocka_unit_test(test_backoff_decides_round),
		cmocka_unit_test(test_second_zone_passes),
		cmocka_unit_test(test_costly_orders),
		cmocka_unit_test(test_base_repeat_counts_pages),
		cmocka_unit_test(test_counter_handling),
		cmocka_unit_test(test_base_livelock_rework_bounded),
		cmocka_unit_test(test_mainline_unreserves_highatomic),
		cmocka_unit_test(test_rule_names),
		cmocka_unit_test(test_rework_v4_throttle),
		cmocka_unit_test(test_rework_v4_costly),
		cmocka_unit_test(test_should_compact_retry),
	};
	return cmocka_run_group_tests_name("retry", tests, NULL, NULL);
}
