// SPDX-License-Identifier: GPL-2.0-only
/* The model's event queue, reclaim, OOM killer and reaper, each on a hand-built machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/model.h"
#include "../lib/sim_fixture.h"

static struct fixture *machine(bool reaper)
{
	return sim_fixture_new(32, RETRY_RULE_REWORK, reaper, false);
}

/* Gives @task @n pages of @state ("anon", "kernel") or makes @n file pages in @file. */
static void fill(struct sim *s, int task, int file, unsigned long n, int state)
{
	for (unsigned long i = 0; i < n; i++) {
		int32_t pfn = buddy_alloc(s, &s->zones[ZONE_DMA32], 0, MT_MOVABLE);

		assert_int_not_equal(pfn, NO_PFN);
		if (state == PS_ANON)
			page_make_anon(s, pfn, task);
		else if (state == PS_KERNEL)
			page_make_kernel(s, pfn, task);
		else
			page_make_file_dirty(s, pfn, file);
	}
}

static void test_event_order(void **state)
{
	struct fixture *f = machine(false);
	struct sim *s = &f->s;
	struct sim_event ev;
	static const uint64_t when[] = {50, 10, 30, 10, 20, 10};
	static const int want_task[] = {1, 3, 5, 4, 2, 0};

	(void)state;
	while (event_pop(s, &ev)) /* drop the machine's own */
		;
	for (int i = 0; i < 6; i++)
		event_push(s, when[i], EV_TASK, i, 0);
	for (int i = 0; i < 6; i++) {
		assert_true(event_pop(s, &ev));
		assert_int_equal(ev.task, want_task[i]);
	}
	assert_false(event_pop(s, &ev));
	sim_fixture_put(f);
}

/* Reclaim frees clean pages first; with only dirty pages it scans, frees nothing, and the
 * zone's pages_scanned grows until zone_reclaimable() gives up. */
static void test_shrink_zone(void **state)
{
	struct fixture *f = machine(false);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	struct reclaim_result rr = {0, 0, false};
	int writer = task_create(s, TK_EATER, "x", 0, 0);

	(void)state;
	(void)writer;
	s->nr_files = 1;
	fill(s, 0, 0, 200, PS_FILE_DIRTY);
	/* Clean 100 of them by writing them back by hand. */
	for (int i = 0; i < 100; i++)
		page_file_start_writeback(s, s->bdev.dirty.head);
	for (int i = 0; i < 100; i++)
		page_file_end_writeback(s, s->bdev.writeback.head);
	assert_int_equal(z->lists[ZL_FILE_CLEAN].count, 100);
	shrink_zone(s, z, 0, SWAP_CLUSTER_MAX, &rr);
	assert_int_equal(rr.nr_reclaimed, 32);
	assert_int_equal(rr.nr_scanned, 32);
	assert_false(rr.met_dirty);
	assert_int_equal(z->lists[ZL_FILE_CLEAN].count, 68);
	/* A target beyond the clean pages scans the whole list at priority 0. */
	memset(&rr, 0, sizeof(rr));
	shrink_zone(s, z, 0, 1000, &rr);
	assert_int_equal(rr.nr_reclaimed, 68);
	assert_int_equal(rr.nr_scanned, 168);
	assert_true(rr.met_dirty);
	/* Only dirty pages left: nothing reclaimed, pages_scanned accumulates. */
	memset(&rr, 0, sizeof(rr));
	for (int round = 0; round < 6; round++)
		shrink_zone(s, z, 0, SWAP_CLUSTER_MAX, &rr);
	assert_int_equal(rr.nr_reclaimed, 0);
	assert_int_equal(z->snap.pages_scanned, 600);
	assert_false(zone_reclaimable(&z->snap));
	sim_check(s);
	sim_fixture_put(f);
}

/* The killer takes the biggest task, then waits while that victim is alive and not skipped. */
static void test_oom_waits_for_victim(void **state)
{
	struct fixture *f = machine(false);
	struct sim *s = &f->s;
	int small = task_create(s, TK_EATER, "small", 0, 0);
	int big = task_create(s, TK_EATER, "big", 0, 0);
	bool killed;

	(void)state;
	fill(s, small, 0, 100, PS_ANON);
	fill(s, big, 0, 300, PS_ANON);
	assert_true(out_of_memory(s, &s->tasks[small], GFP_KERNEL, 0, &killed));
	assert_true(killed);
	/* the report holds oom_lock; the SIGKILL goes out when it is printed */
	assert_false(s->tasks[big].killed);
	assert_int_equal(s->oom_victim, big);
	assert_true(s->oom_lock_until > s->now);
	assert_int_equal(f->res.oom_reports, 1);
	oom_kill_deferred(s);
	assert_true(s->tasks[big].killed);
	assert_int_equal(s->oom_victim, NO_TASK);
	assert_true(out_of_memory(s, &s->tasks[small], GFP_KERNEL, 0, &killed));
	assert_false(killed);
	assert_int_equal(f->res.oom_waits, 1);
	s->tasks[big].oom_skip = true; /* reaped or given up on */
	assert_true(out_of_memory(s, &s->tasks[small], GFP_KERNEL, 0, &killed));
	assert_true(killed);
	oom_kill_deferred(s);
	assert_true(s->tasks[small].killed);
	assert_int_equal(f->res.oom_kills, 2);
	sim_fixture_put(f);
}

/* The reaper frees anon pages only, and marks the victim skipped. */
static void test_reaper_reaps_anon(void **state)
{
	struct fixture *f = machine(true);
	struct sim *s = &f->s;
	int v = task_create(s, TK_EATER, "victim", 0, 0);
	uint64_t d;

	(void)state;
	fill(s, v, 0, 300, PS_ANON);
	fill(s, v, 0, 20, PS_KERNEL);
	s->tasks[v].killed = true;
	queue_oom_reaper(s, &s->tasks[v]);
	d = oom_reaper_step(s, &s->tasks[s->reaper]);
	assert_true(d > 0);
	assert_int_equal(f->res.reaped_pages, 300);
	assert_int_equal(s->tasks[v].nr_anon, 0);
	assert_int_equal(s->tasks[v].pages.count, 20);
	assert_true(s->tasks[v].oom_skip);
	assert_int_equal(oom_reaper_step(s, &s->tasks[s->reaper]), 0);
	sim_check(s);
	sim_fixture_put(f);
}

/* mmap_sem held for write: MAX_OOM_REAP_RETRIES tries HZ/10 apart, then give up and skip. */
static void test_reaper_gives_up(void **state)
{
	struct fixture *f = machine(true);
	struct sim *s = &f->s;
	int v = task_create(s, TK_EATER, "victim", 0, 0);
	unsigned int tries = 0;

	(void)state;
	fill(s, v, 0, 50, PS_ANON);
	s->tasks[v].killed = true;
	s->tasks[v].mmap_write = true;
	queue_oom_reaper(s, &s->tasks[v]);
	while (!s->tasks[v].oom_skip) {
		assert_int_equal(oom_reaper_step(s, &s->tasks[s->reaper]), OOM_REAP_RETRY_USEC);
		tries++;
		assert_true(tries <= MAX_OOM_REAP_RETRIES);
	}
	assert_int_equal(tries, MAX_OOM_REAP_RETRIES);
	assert_int_equal(f->res.reaper_giveups, 1);
	assert_int_equal(f->res.reaped_pages, 0);
	assert_int_equal(s->tasks[v].nr_anon, 50);
	sim_fixture_put(f);
}

/* Compaction empties a pageblock of movable pages into free pages higher up, and the freed
 * pageblock merges into a block of the order; an unmovable page pins its pageblock. */
static void test_compaction(void **state)
{
	struct fixture *f = machine(false);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	int t = task_create(s, TK_EATER, "frag", 0, 0);
	unsigned long migrated = 0, used = 0;

	(void)state;
	/* Take every page of the zone, then free every other one: no block above order 0. */
	for (int32_t pfn; (pfn = buddy_alloc(s, z, 0, MT_MOVABLE)) != NO_PFN;)
		page_make_anon(s, pfn, t);
	for (int32_t p = z->start_pfn; p < z->start_pfn + (int32_t)z->nr_pages; p += 2)
		page_release(s, p);
	/* Pin the first pageblock with an unmovable page. */
	page_release(s, z->start_pfn + 1);
	page_make_kernel(s, buddy_alloc(s, z, 0, MT_UNMOVABLE), t);
	sim_check(s);
	for (unsigned int o = PAGEBLOCK_ORDER; o < MAX_ORDER; o++)
		assert_int_equal(z->snap.nr_free[o], 0);
	used = s->tasks[t].nr_anon;
	assert_true(compact_zone_order(s, z, PAGEBLOCK_ORDER, &migrated));
	assert_int_equal(migrated, PAGEBLOCK_PAGES / 2);
	assert_int_equal(z->snap.nr_free[PAGEBLOCK_ORDER], 1);
	assert_int_equal(s->tasks[t].nr_anon, used); /* moved, not lost */
	/* The pinned first pageblock was left alone. */
	assert_int_equal(s->pages[z->start_pfn].state, PS_KERNEL);
	sim_check(s);
	sim_fixture_put(f);
}

/* The next event of task @idx (of its current generation), dropping the others. */
static uint64_t next_event_of(struct sim *s, int idx)
{
	struct sim_event ev;

	while (event_pop(s, &ev))
		if (ev.kind == EV_TASK && ev.task == idx && ev.gen == s->tasks[idx].gen)
			return ev.when;
	fail_msg("no event of task %d", idx);
	return 0;
}

/* A slow path round is on a CPU (in the run queue) for its CPU time, then asleep for its wait;
 * a SIGKILL that came while it ran skips the sleep. */
static void test_run_then_sleep(void **state)
{
	struct fixture *f = machine(false);
	struct sim *s = &f->s;
	int idx = task_create(s, TK_EATER, "eater", 1000, 0);
	struct sim_task *t = &s->tasks[idx];
	unsigned int others;

	(void)state;
	task_set_runnable(s, t, false);
	others = s->nr_runnable;
	s->now = 1000;
	task_run_sleep(s, t, 300, 4000);
	assert_true(t->runnable);
	assert_int_equal(s->nr_runnable, others + 1);
	assert_int_equal(next_event_of(s, idx), 1300);
	s->now = 1300;
	task_step(s, t); /* the run is over: the sleep */
	assert_false(t->runnable);
	assert_int_equal(s->nr_runnable, others);
	assert_int_equal(t->then_sleep_usec, 0);
	assert_int_equal(next_event_of(s, idx), 5300);

	s->now = 6000;
	task_run_sleep(s, t, 300, 4000);
	task_kill(s, t); /* on a CPU: it notices when its run ends */
	assert_int_equal(next_event_of(s, idx), 6300);
	s->now = 6300;
	task_step(s, t);
	assert_int_equal(t->run, TR_EXITING); /* no sleep: it exits */
	assert_int_equal(t->then_sleep_usec, 0);
	sim_fixture_put(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_event_order),          cmocka_unit_test(test_shrink_zone),
	    cmocka_unit_test(test_oom_waits_for_victim), cmocka_unit_test(test_reaper_reaps_anon),
	    cmocka_unit_test(test_reaper_gives_up),      cmocka_unit_test(test_compaction),
	    cmocka_unit_test(test_run_then_sleep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
