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
#define SEC   1000000
/* interval, stall events, stall usec, has stall, reclaimed, has reclaimed, refaulted, file, parked
 */
static const struct progress_case cases[] = {
    {"quiet", {SEC, 0, 0, true, 0, true, 0, 0, false}, false, false, "no stalled allocation"},
    {"refault trickle",
     {SEC, 0, 0, false, 0, false, 255, 13825, false},
     false,
     false,
     "no stalled allocation"},
    {"parked", {SEC, 0, 0, false, 0, false, 0, 0, true}, true, false, "tasks parked under_oom"},
    /* Measured: 256 MiB group, 200 MiB anon, a 64 MiB file reread at 16 MB/s. */
    {"v1 thrash",
     {SEC, 7, 0, false, 0, false, 3584, 13825, false},
     true,
     false,
     "reclaim undone by refaults"},
    {"v1 thrash, no failcnt",
     {SEC, 0, 0, false, 0, false, 2048, 13825, false},
     true,
     false,
     "reclaim undone by refaults"},
    /* A failcnt burst (charges retried while reclaim fails) is no reclaim to count. */
    {"v1 thrash, failcnt burst",
     {SEC, 886, 0, false, 0, false, 5632, 13825, false},
     true,
     false,
     "reclaim undone by refaults"},
    /* Measured: writer + streaming reader + 100 MiB anon in 256 MiB. */
    {"v1 healthy", {SEC, 1500, 0, false, 0, false, 0, 38000, false}, true, true, "reclaim stayed"},
    /* Healthy with stale shadow entries (a file evicted long before is read again): held. */
    {"v1 stale refaults",
     {SEC, 1860, 0, false, 0, false, 3680, 38000, false},
     true,
     false,
     "refaults near the bound: count held"},
    {"machine healthy",
     {SEC, 3, 20000, true, 5000, true, 100, 0, false},
     true,
     true,
     "reclaim stayed"},
    {"machine refaults all",
     {SEC, 3, 20000, true, 5000, true, 5000, 0, false},
     true,
     false,
     "reclaim undone by refaults"},
    {"machine stall over bound",
     {SEC, 3, 600001, true, 5000, true, 0, 0, false},
     true,
     false,
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
	s->cur.time_usec += MS100;
	s->cur.stall_events += failcnt;
	s->cur.refaulted += refault;
	s->cur.parked = parked;
	scope_push_history(s);
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
	s->cur.file_bytes = reclaimable_pages * 4096;
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
	scope_push_history(s);
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
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 100), 16);
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
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 15), 0);
}

static void test_progress_and_quiet_reset(void **state)
{
	struct scope s;
	struct config c;
	int peak = 0;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 5), 0);
	assert_int_equal(s.decision.no_progress_loops, 5);
	/* Healthy rounds: the refaults stay in the window for up to SCOPE_WINDOW_ROUNDS - 1
	 * rounds, then a round with progress resets the count. */
	for (int i = 0; i < SCOPE_WINDOW_ROUNDS; i++) {
		step(&s, &c, 150, 0, false);
		if (s.decision.no_progress_loops > peak)
			peak = s.decision.no_progress_loops;
	}
	assert_true(peak > 5 && peak < MAX_RECLAIM_RETRIES);
	assert_false(s.oom);
	assert_int_equal(s.decision.no_progress_loops, 0);

	/* Quiet rounds: once the window is clear, SCOPE_QUIET_ROUNDS_RESET of them end the
	 * "allocation"; fewer keep the count. */
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 5), 0);
	for (int i = 0; i < SCOPE_WINDOW_ROUNDS - 2 + SCOPE_QUIET_ROUNDS_RESET - 1; i++)
		step(&s, &c, 0, 0, false);
	assert_false(s.oom);
	assert_true(s.retry.no_progress_loops > 5);
	step(&s, &c, 0, 0, false);
	assert_int_equal(s.retry.no_progress_loops, 0);

	/* A dip near the bound holds the count; it does not restart it. */
	v1_scope(&s, &c, 0, 1600); /* bound max(256, 200) = 256, half 128 */
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 5), 0);
	for (int i = 0; i < SCOPE_WINDOW_ROUNDS; i++)
		step(&s, &c, 1, 20, false); /* the window slides down to 180 refaults */
	assert_true(s.round.hold);
	assert_true(s.retry.no_progress_loops >= 5);
	assert_false(s.oom);

	/* A kill that freed memory resets the count and the window. */
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 5), 0);
	scope_oom_progress(&s);
	assert_int_equal(s.retry.no_progress_loops, 0);
	assert_int_equal(s.hist_len, 1);
	step(&s, &c, 0, 0, false);
	assert_false(s.round.is_round);
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
