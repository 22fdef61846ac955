// SPDX-License-Identifier: GPL-2.0-only
/* scope_decide(): after how many rounds the seed's rule says OOM for a v1 scope, when counts are
 * held or reset (progress_round() itself: test_policy_progress.c). Deltas come from
 * measurements on this machine (docs/daemon-design.md): a thrashing v1 group refaults ~200
 * pages per 100 ms with failcnt 0-1; healthy page-cache reclaim fails ~150 charges per 100 ms
 * and refaults none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/scope.h"

#define MS100 100000

/* A v1 scope whose counters move by @failcnt and @refault per round. */
static void step(struct scope *s, const struct config *c, uint64_t failcnt, uint64_t refault,
		 bool parked)
{
	s->prev = s->cur; /* as scope_acquire() keeps the last snapshot */
	s->has_prev = true;
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
	s->page_shift = 12;
	s->cur.time_usec = 1;
	s->cur.file_bytes = reclaimable_pages << s->page_shift;
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

/* The kernel's own OOM kill in the scope freed memory: the count starts again, as after ours. */
static void test_kernel_kill_is_progress(void **state)
{
	struct scope s;
	struct config c;

	(void)state;
	v1_scope(&s, &c, 0, 1600);
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 10), 0);
	assert_int_equal(s.decision.no_progress_loops, 10);
	s.prev = s.cur; /* the next round's read: the kernel's counter moved */
	s.cur.kernel_oom_kills++;
	s.cur.time_usec += MS100;
	s.cur.refaulted += 400;
	scope_push_history(&s);
	scope_decide(&s, &c);
	assert_false(s.oom);
	assert_int_equal(s.retry.no_progress_loops, 0);
	assert_string_equal(s.decision.reason, "the kernel killed");
	/* The thrash goes on: the whole count again, as from the start (test_thrash_reaches_oom). */
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 100), 16);
	/* The machine's counter (vmstat) counts every cgroup's kernel kills: no progress of its. */
	v1_scope(&s, &c, 0, 1600);
	s.kind = SCOPE_MACHINE;
	assert_int_equal(rounds_to_oom(&s, &c, 0, 400, false, 10), 0);
	s.prev = s.cur;
	s.cur.kernel_oom_kills++;
	s.cur.time_usec += MS100;
	s.cur.refaulted += 400;
	scope_push_history(&s);
	scope_decide(&s, &c);
	assert_true(s.retry.no_progress_loops > 10);
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
	    cmocka_unit_test(test_kernel_kill_is_progress),
	    cmocka_unit_test(test_thrash_reaches_oom),
	    cmocka_unit_test(test_healthy_never_oom),
	    cmocka_unit_test(test_progress_and_quiet_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
