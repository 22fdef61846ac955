// SPDX-License-Identifier: GPL-2.0-only
/* progress_round() and scope_decide(): which intervals are rounds, which made progress, and
 * after how many rounds the seed's rule says OOM. Deltas come from measurements on this
 * machine (docs/daemon.md): a thrashing v1 group refaults ~200 pages per 100 ms with
 * failcnt 0-1; healthy page-cache reclaim fails ~150 charges per 100 ms and refaults none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/scope.h"
#include "policy/progress.h"

struct progress_case {
	const char *name;
	struct round_sample s;
	bool is_round, progress;
	const char *reason;
};

#define MS100 100000
static const struct progress_case cases[] = {
	{"quiet", {MS100, 0, 0, true, 0, true, 0, false}, false, false, "no stalled allocation"},
	{"refault trickle", {MS100, 0, 0, false, 0, false, 31, false}, false, false,
	 "no stalled allocation"},
	{"parked", {MS100, 0, 0, false, 0, false, 0, true}, true, false, "tasks parked under_oom"},
	{"v1 thrash", {MS100, 1, 0, false, 0, false, 205, false}, true, false,
	 "reclaim undone by refaults"},
	{"v1 thrash, no failcnt", {MS100, 0, 0, false, 0, false, 205, false}, true, false,
	 "reclaim undone by refaults"},
	{"v1 healthy", {MS100, 150, 0, false, 0, false, 0, false}, true, true, "reclaim stayed"},
	{"v1 stale refaults", {MS100, 180, 0, false, 0, false, 368, false}, true, true,
	 "reclaim stayed"},
	{"machine healthy", {MS100, 3, 20000, true, 5000, true, 100, false}, true, true,
	 "reclaim stayed"},
	{"machine refaults all", {MS100, 3, 20000, true, 5000, true, 5000, false}, true, false,
	 "reclaim undone by refaults"},
	{"machine stall over bound", {MS100, 3, 60001, true, 5000, true, 0, false}, true, false,
	 "stall over bound"},
};

static void test_progress_round(void **state)
{
	struct progress_params p = {PROGRESS_STALL_BOUND_PERMILLE, PROGRESS_REFAULT_MIN_PAGES};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct round_result r;

		progress_round(&cases[i].s, &p, &r);
		if (r.is_round != cases[i].is_round || r.progress != cases[i].progress ||
		    strcmp(r.reason, cases[i].reason))
			fail_msg("%s: round %d progress %d (%s)", cases[i].name, r.is_round,
				 r.progress, r.reason);
	}
}

/* A v1 scope whose counters move by @failcnt and @refault per round. */
static void step(struct scope *s, const struct config *c, uint64_t failcnt, uint64_t refault,
		 bool parked)
{
	s->prev = s->cur;
	s->has_prev = true;
	s->cur.time_usec += MS100;
	s->cur.stall_events += failcnt;
	s->cur.refaulted += refault;
	s->cur.parked = parked;
	scope_decide(s, c);
}

static void v1_scope(struct scope *s, struct config *c, uint64_t free_pages,
		     uint64_t reclaimable_pages)
{
	struct zone_snapshot *z = &s->cur.zones[0];

	config_defaults(c);
	memset(s, 0, sizeof(*s));
	s->kind = SCOPE_CGROUP_V1;
	s->cur.time_usec = 1;
	s->cur.nr_zones = 1;
	z->idx = ZONE_NORMAL;
	z->managed_pages = 131072;
	z->watermark[WMARK_MIN] = 50;
	z->watermark[WMARK_LOW] = 62;
	z->watermark[WMARK_HIGH] = 75;
	z->free_pages = free_pages;
	z->nr_free[0] = free_pages;
	z->free_list_mask[0] = 3;
	z->reclaimable_pages = reclaimable_pages;
}

static int rounds_to_oom(struct scope *s, const struct config *c, uint64_t failcnt,
			 uint64_t refault, bool parked, int max)
{
	for (int i = 1; i <= max; i++) {
		step(s, c, failcnt, refault, parked);
		if (s->oom)
			return i;
	}
	return 0;
}

static void test_thrash_reaches_oom(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	/* 1600 reclaimable, min 50: 1600 - 16ths pass min through 15 rounds, fail at 16. */
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 205, false, 100), 16);
	assert_int_equal(s.decision.no_progress_loops, 16);
	/* Nothing reclaimable and tasks parked: the first round decides. */
	v1_scope(&s, &c, 0, 0);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 0, true, 100), 1);
}

static void test_healthy_never_oom(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 150, 0, false, 1000), 0);
	assert_int_equal(s.decision.no_progress_loops, 0);
	/* Free above min even with nothing reclaimable: retry (the zone can still serve). */
	v1_scope(&s, &c, 5000, 0);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 205, false, 15), 0);
}

static void test_progress_and_quiet_reset(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 205, false, 10), 0);
	assert_int_equal(s.decision.no_progress_loops, 10);
	step(&s, &c, 150, 0, false); /* a round with progress */
	assert_int_equal(s.decision.no_progress_loops, 0);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 205, false, 10), 0);
	for (int i = 0; i < SCOPE_QUIET_ROUNDS_RESET - 1; i++)
		step(&s, &c, 0, 0, false);
	assert_int_equal(s.retry.no_progress_loops, 10); /* a short pause keeps the count */
	step(&s, &c, 0, 0, false);
	assert_int_equal(s.retry.no_progress_loops, 0); /* a long one ends the "allocation" */
	/* A kill that freed memory resets the count too. */
	assert_int_equal(rounds_to_oom(&s, &c, 0, 205, false, 5), 0);
	scope_oom_progress(&s);
	assert_int_equal(s.retry.no_progress_loops, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_round),
		cmocka_unit_test(test_thrash_reaches_oom),
		cmocka_unit_test(test_healthy_never_oom),
		cmocka_unit_test(test_progress_and_quiet_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
