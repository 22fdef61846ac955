// SPDX-License-Identifier: GPL-2.0-only
/* --noise: the rest of the machine takes its pool at boot (what the longest run gives back at the
 * rate, at most 1/64 of the machine), gives one page back at a time at the rate asked, stops when
 * the pool is empty, is never an OOM victim, and is absent without the option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/model.h"

struct fixture {
	struct sim s;
	struct sim_config cfg;
	struct sim_result res;
};

static struct fixture *machine(unsigned int mem_mib, uint64_t noise_usec)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->cfg.mem_mib = mem_mib;
	f->cfg.rule = RETRY_RULE_BASE;
	f->cfg.noise_usec = noise_usec;
	assert_int_equal(machine_init(&f->s, &f->cfg, &f->res, 1, false), 0);
	return f;
}

static void put(struct fixture *f)
{
	machine_free(&f->s);
	free(f);
}

static unsigned long held_pages(const struct sim *s)
{
	return s->noise == NO_TASK ? 0 : s->tasks[s->noise].pages.count;
}

/* Runs the machine alone until @until_usec. */
static void run_until(struct sim *s, uint64_t until_usec)
{
	s->stop_at = until_usec;
	s->budget_usec = until_usec + USEC_PER_SEC;
	machine_loop(s);
}

static void test_off(void **state)
{
	struct fixture *f = machine(32, 0);

	(void)state;
	assert_int_equal(f->s.noise, NO_TASK);
	for (int i = 0; i < f->s.nr_tasks; i++)
		assert_int_not_equal(f->s.tasks[i].kind, TK_NOISE);
	put(f);
}

/* The pool: 610 s at the rate, plus one; at most 1/64 of the machine. */
static void test_pool(void **state)
{
	struct fixture *f = machine(2048, USEC_PER_SEC);

	(void)state;
	assert_int_not_equal(f->s.noise, NO_TASK);
	assert_int_equal(f->s.tasks[f->s.noise].kind, TK_NOISE);
	assert_int_equal(held_pages(&f->s), 611);
	put(f);
	f = machine(32, 100 * USEC_PER_MSEC); /* 6,101 asked, 128 at 32 MiB */
	assert_int_equal(held_pages(&f->s), 32 * PAGES_PER_MIB / 64);
	put(f);
}

/* A page a mean interval: uniform in 1 us .. 200 ms, so 50 in 5 s give or take; each goes back
 * to the buddy allocator; once the 128 are given back the task has nothing more to do. (A run
 * stopped at stop_at drops the event it popped, so each part boots its own machine.) */
static void test_rate_and_end(void **state)
{
	struct fixture *f = machine(32, 100 * USEC_PER_MSEC);
	struct sim *s = &f->s;
	unsigned long free0 = total_free_pages(s), pool = held_pages(s);

	(void)state;
	run_until(s, 5 * USEC_PER_SEC);
	assert_in_range(f->res.noise_frees, 35, 65);
	assert_int_equal(held_pages(s), pool - f->res.noise_frees);
	assert_int_equal(total_free_pages(s), free0 + f->res.noise_frees);
	put(f);
	f = machine(32, 100 * USEC_PER_MSEC);
	s = &f->s;
	run_until(s, 60 * USEC_PER_SEC);
	assert_int_equal(f->res.noise_frees, pool);
	assert_int_equal(held_pages(s), 0);
	assert_int_equal(s->tasks[s->noise].run, TR_IDLE);
	put(f);
}

/* Nothing but kernel threads and the rest of the machine: the OOM killer finds no victim. */
static void test_not_a_victim(void **state)
{
	struct fixture *f = machine(32, 100 * USEC_PER_MSEC);
	struct sim *s = &f->s;
	struct sim_task current;
	bool killed = true;

	(void)state;
	memset(&current, 0, sizeof(current));
	assert_false(out_of_memory(s, &current, GFP_KERNEL, 0, &killed));
	assert_false(killed);
	assert_int_equal(f->res.outcome, SIM_OUT_PANIC);
	put(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_off),
	    cmocka_unit_test(test_pool),
	    cmocka_unit_test(test_rate_and_end),
	    cmocka_unit_test(test_not_a_victim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
