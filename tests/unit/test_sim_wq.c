// SPDX-License-Identifier: GPL-2.0-only
/* --wq-stall: a CPU whose worker pool is held keeps its vm_stat_diff unfolded past its
 * vmstat_update() time, and folds it when the pool is released; the disk events poll's GFP_NOIO
 * allocation holds the pool under 4.3 and the reworks, not under mainline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/model.h"
#include "../lib/sim_fixture.h"

static struct fixture *machine(enum retry_rule rule)
{
	struct fixture *f = sim_fixture_new(32, rule, false, true);

	assert_int_not_equal(f->s.kworker, NO_TASK);
	return f;
}

/* The held CPU's diff stays past its second; the other CPU's is folded; release folds it. */
static void test_held_cpu_not_folded(void **state)
{
	struct fixture *f = machine(RETRY_RULE_BASE);
	struct sim *s = &f->s;
	struct sim_zone *z = &s->zones[ZONE_DMA32];
	unsigned int held = s->wq_cpu, other = 1 - held;
	uint64_t due = s->vmstat_next[held];
	long before = z->vm.global[VM_LRU_FILE];

	(void)state;
	assert_true(vmstat_threshold(z) > 3);
	s->now = due > 10 ? due - 10 : 0;
	s->vmstat_cpu = held;
	vmstat_mod(s, z, VM_LRU_FILE, -3); /* below the threshold: stays in the diff */
	s->vmstat_cpu = other;
	vmstat_mod(s, z, VM_LRU_FILE, -2);
	assert_int_equal(z->vm.diff[held][VM_LRU_FILE], -3);
	assert_int_equal(vmstat_pool_hold(s, true), 0); /* not due yet: nothing waited */
	assert_true(s->wq_held);

	/* Two seconds on: both CPUs' updates are due; only the free one runs. */
	s->now = s->vmstat_next[other] > due ? s->vmstat_next[other] : due;
	s->now += 2 * VMSTAT_INTERVAL_USEC;
	vmstat_read(s, z, VM_LRU_FILE);
	assert_int_equal(z->vm.diff[held][VM_LRU_FILE], -3);
	assert_int_equal(z->vm.diff[other][VM_LRU_FILE], 0);
	assert_int_equal(z->vm.global[VM_LRU_FILE], before - 2);
	assert_int_equal(s->vmstat_next[held], due);

	/* The worker sleeps: vmstat_update() runs late, and is queued on its old phase again. */
	assert_int_equal(vmstat_pool_hold(s, false), s->now - due);
	assert_false(s->wq_held);
	assert_int_equal(z->vm.diff[held][VM_LRU_FILE], 0);
	assert_int_equal(z->vm.global[VM_LRU_FILE], before - 5);
	assert_true(s->vmstat_next[held] > s->now);
	assert_int_equal((s->vmstat_next[held] - due) % VMSTAT_INTERVAL_USEC, 0);
	sim_fixture_put(f);
}

/* Every free page taken by a task of the machine. */
static void exhaust(struct sim *s, int task)
{
	for (int i = 0; i < s->nr_populated; i++) {
		int32_t pfn;

		while ((pfn = buddy_alloc(s, &s->zones[i], 0, MT_UNMOVABLE)) != NO_PFN)
			page_make_kernel(s, pfn, task);
	}
}

/*
 * One poll on a full machine whose only file pages are dirty: reclaim frees nothing. Returns
 * whether the poll's round left its pool held (it did not sleep).
 */
static bool poll_on_full_machine(enum retry_rule rule)
{
	struct fixture *f = machine(rule);
	struct sim *s = &f->s;
	struct sim_task *w = &s->tasks[s->kworker];
	int hog = task_create(s, TK_EATER, "hog", 0, 0);
	int file = s->nr_files++;
	bool held;

	for (int i = 0; i < 8; i++) {
		int32_t pfn = buddy_alloc(s, &s->zones[ZONE_DMA32], 0, MT_MOVABLE);

		assert_int_not_equal(pfn, NO_PFN);
		page_make_file_dirty(s, pfn, file);
	}
	exhaust(s, hog);
	s->now = 1000;
	kworker_step(s, w);
	assert_true(w->alloc.active); /* no page: still in the slow path */
	assert_int_equal(w->alloc.rounds, 1);
	held = s->wq_held;
	assert_true(held == !w->alloc.sleep_usec); /* held: the round slept nothing */
	/* the round's CPU time first, in the run queue; then what it slept */
	assert_true(w->runnable);
	assert_int_equal(w->then_sleep_usec, w->alloc.sleep_usec);
	sim_check(s);
	sim_fixture_put(f);
	return held;
}

/* 4.3: zone_reclaimable() fakes progress (8 dirty pages, few scanned) and the retry does not
 * sleep. The reworks: no OOM kill for GFP_NOIO, "progress", no sleep either. Mainline: the
 * PF_WQ_WORKER jiffy in should_reclaim_retry(). */
static void test_noio_poll_holds_pool(void **state)
{
	(void)state;
	assert_true(poll_on_full_machine(RETRY_RULE_BASE));
	assert_true(poll_on_full_machine(RETRY_RULE_REWORK));
	assert_true(poll_on_full_machine(RETRY_RULE_REWORK_V4));
	assert_false(poll_on_full_machine(RETRY_RULE_MAINLINE));
}

/* The poll's events run on its CPU, without a draw from the CPU stream. */
static void test_poll_runs_on_its_cpu(void **state)
{
	struct fixture *f = machine(RETRY_RULE_BASE);
	struct sim *s = &f->s;
	struct sim_event ev = {.when = 0, .seq = 0, .task = s->kworker, .gen = 0, .kind = EV_TASK};
	uint64_t stream = s->drift_prng;

	(void)state;
	s->vmstat_cpu = 1 - s->wq_cpu;
	vmstat_pick_cpu(s, &ev);
	assert_int_equal(s->vmstat_cpu, s->wq_cpu);
	assert_int_equal(s->drift_prng, stream);
	ev.task = s->kswapd;
	vmstat_pick_cpu(s, &ev);
	assert_int_not_equal(s->drift_prng, stream);
	sim_fixture_put(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_held_cpu_not_folded),
	    cmocka_unit_test(test_noio_poll_holds_pool),
	    cmocka_unit_test(test_poll_runs_on_its_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
