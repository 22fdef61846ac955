// SPDX-License-Identifier: GPL-2.0-only
/* oom_badness() arithmetic and select_bad_process()'s ranked rules, with every listing order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "policy/badness.h"

#define TOTAL 100000UL /* totalpages: adj 1 is worth 100 pages */

static struct oom_task task(int pid, unsigned long rss, int adj, unsigned int flags)
{
	struct oom_task t = {
		.pid = pid,
		.rss_pages = rss,
		.oom_score_adj = adj,
		.start_time = 1000,
		.flags = flags,
	};
	strcpy(t.comm, "t");
	return t;
}

static void test_badness_arithmetic(void **state)
{
	struct oom_task t = task(10, 1000, 0, 0);

	(void)state;
	t.swap_pages = 200;
	t.pgtables_pages = 10;
	assert_int_equal(oom_badness(&t, TOTAL), 1210);
	t.oom_score_adj = 500;
	assert_int_equal(oom_badness(&t, TOTAL), 1210 + 500 * 100);
	t.oom_score_adj = -500;
	assert_int_equal(oom_badness(&t, TOTAL), 1210 - 500 * 100); /* negative, still killable */
	t.oom_score_adj = 1000;
	assert_int_equal(oom_badness(&t, TOTAL), 1210 + 1000 * 100);
	t.oom_score_adj = 700;
	assert_int_equal(oom_badness(&t, 999), 1210); /* totalpages / 1000 == 0 */
	assert_int_equal(oom_badness(&t, 2999), 1210 + 700 * 2);
	t.oom_score_adj = -1000;
	assert_true(oom_badness(&t, TOTAL) == OOM_BADNESS_UNKILLABLE);
}

static void test_unkillable_flags(void **state)
{
	static const unsigned int flags[] = {OOM_TASK_KTHREAD,   OOM_TASK_INIT,  OOM_TASK_SELF,
					     OOM_TASK_PROTECTED, OOM_TASK_NO_MM, OOM_TASK_SKIP,
					     OOM_TASK_VFORK};

	(void)state;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct oom_task t = task(10, 1UL << 30, 1000, flags[i]);

		if (oom_badness(&t, TOTAL) != OOM_BADNESS_UNKILLABLE)
			fail_msg("flag %#x: killable", flags[i]);
	}
}

#define MAX_TASKS 6

struct select_case {
	const char *name;
	struct oom_task tasks[MAX_TASKS];
	size_t nr;
	enum oom_select_result expect;
	int expect_pid;
};

static struct select_case select_cases[24];
static size_t nr_select_cases;

static void add_case(const char *name, enum oom_select_result expect, int expect_pid, size_t nr,
		     const struct oom_task *tasks)
{
	struct select_case *c = &select_cases[nr_select_cases++];

	c->name = name;
	c->expect = expect;
	c->expect_pid = expect_pid;
	c->nr = nr;
	memcpy(c->tasks, tasks, nr * sizeof(*tasks));
}

static void build_cases(void)
{
	struct oom_task t[MAX_TASKS];

	/* 1. -1000 is never chosen, however large */
	t[0] = task(1, 900000, -1000, 0);
	t[1] = task(2, 10, 0, 0);
	add_case("adj -1000 never", OOM_SELECT_VICTIM, 2, 2, t);
	/* 4. adj 1000 adds totalpages: a small task outranks a big one */
	t[0] = task(1, 90000, 0, 0);
	t[1] = task(2, 10, 1000, 0);
	add_case("adj 1000 wins", OOM_SELECT_VICTIM, 2, 2, t);
	/* 4. plain badness */
	t[0] = task(1, 500, 0, 0);
	t[1] = task(2, 700, 0, 0);
	t[2] = task(3, 600, 0, 0);
	add_case("largest rss", OOM_SELECT_VICTIM, 2, 3, t);
	/* 5. equal badness: more memory to free (page tables count in badness, not here) */
	t[0] = task(1, 100, 0, 0);
	t[0].pgtables_pages = 50;
	t[1] = task(2, 150, 0, 0);
	add_case("equal badness, more rss", OOM_SELECT_VICTIM, 2, 2, t);
	/* 6. equal badness and memory: the newer */
	t[0] = task(1, 100, 0, 0);
	t[0].start_time = 5000;
	t[1] = task(2, 100, 0, 0);
	t[1].start_time = 4000;
	add_case("equal, newer", OOM_SELECT_VICTIM, 1, 2, t);
	/* 7. all equal: the higher pid, whatever the listing order */
	t[0] = task(7, 100, 0, 0);
	t[1] = task(9, 100, 0, 0);
	t[2] = task(8, 100, 0, 0);
	add_case("equal, higher pid", OOM_SELECT_VICTIM, 9, 3, t);
	/* 2. an exiting victim makes the killer wait */
	t[0] = task(1, 100, 0, OOM_TASK_VICTIM);
	t[1] = task(2, 900, 0, 0);
	add_case("victim exiting: wait", OOM_SELECT_WAIT, 0, 2, t);
	/* ... unless it was skipped: then it is ignored */
	t[0] = task(1, 100000, 0, OOM_TASK_VICTIM | OOM_TASK_SKIP);
	t[1] = task(2, 900, 0, 0);
	add_case("skipped victim ignored", OOM_SELECT_VICTIM, 2, 2, t);
	/* 1. unkillable tasks are not waited for, even if marked */
	t[0] = task(1, 100, 0, OOM_TASK_VICTIM | OOM_TASK_KTHREAD);
	t[1] = task(2, 900, 0, 0);
	add_case("kthread never waited for", OOM_SELECT_VICTIM, 2, 2, t);
	/* nothing killable */
	t[0] = task(1, 100, 0, OOM_TASK_INIT);
	t[1] = task(2, 100, -1000, 0);
	t[2] = task(3, 100, 0, OOM_TASK_SELF);
	add_case("none killable", OOM_SELECT_NONE, 0, 3, t);
	/* 3. prefer beats badness, avoid loses to it */
	t[0] = task(1, 90000, 0, 0);
	t[1] = task(2, 10, 0, OOM_TASK_PREFER);
	add_case("prefer first", OOM_SELECT_VICTIM, 2, 2, t);
	t[0] = task(1, 90000, 0, OOM_TASK_AVOID);
	t[1] = task(2, 10, 0, 0);
	add_case("avoid last", OOM_SELECT_VICTIM, 2, 2, t);
	t[0] = task(1, 90000, 0, OOM_TASK_AVOID);
	add_case("avoid still killable", OOM_SELECT_VICTIM, 1, 1, t);
	/* 8. the chosen victim dying by another's hand: reaped, not killed */
	t[0] = task(1, 9000, 0, OOM_TASK_DYING);
	t[1] = task(2, 900, 0, 0);
	add_case("chosen dying: reap it", OOM_SELECT_DYING, 1, 2, t);
	/* ... a dying task that ranks lower holds nothing up (4.3's wait for any exiting task) */
	t[0] = task(1, 90, 0, OOM_TASK_DYING);
	t[1] = task(2, 900, 0, 0);
	add_case("lower dying: kill the larger", OOM_SELECT_VICTIM, 2, 2, t);
	/* ... rule 2 comes first: oomguard's own victim, dying by its SIGKILL, is waited for */
	t[0] = task(1, 9000, 0, OOM_TASK_VICTIM | OOM_TASK_DYING);
	t[1] = task(2, 900, 0, 0);
	add_case("own victim dying: wait", OOM_SELECT_WAIT, 0, 2, t);
	/* ... and once reaped (skipped) it is no candidate at all */
	t[0] = task(1, 9000, 0, OOM_TASK_DYING | OOM_TASK_SKIP);
	t[1] = task(2, 900, 0, 0);
	add_case("dying, reaped: the next", OOM_SELECT_VICTIM, 2, 2, t);
	/* ... nor is a dying task an administrator protects */
	t[0] = task(1, 9000, 0, OOM_TASK_DYING | OOM_TASK_PROTECTED);
	t[1] = task(2, 900, 0, 0);
	add_case("dying, protected: the next", OOM_SELECT_VICTIM, 2, 2, t);
	/* 1. a vfork child shows its parent's memory and is newer: the parent, not it */
	t[0] = task(1, 9000, 0, 0);
	t[0].start_time = 500;
	t[1] = task(2, 9000, 0, OOM_TASK_VFORK);
	add_case("vfork child: its parent", OOM_SELECT_VICTIM, 1, 2, t);
	/* negative badness is still a victim when it is the only one */
	t[0] = task(1, 10, -900, 0);
	add_case("negative badness", OOM_SELECT_VICTIM, 1, 1, t);
}

/* Every rotation and the reversal of the listing must give the same answer. */
static void test_select_case(void **state)
{
	const struct select_case *c = *state;

	for (size_t perm = 0; perm < 2 * c->nr; perm++) {
		struct oom_task list[MAX_TASKS];
		enum oom_select_result r;
		size_t idx = SIZE_MAX;
		long points = 0;

		for (size_t i = 0; i < c->nr; i++) {
			size_t from = (i + perm) % c->nr;

			list[i] = c->tasks[perm < c->nr ? from : c->nr - 1 - from];
		}
		r = select_bad_process(list, c->nr, TOTAL, &idx, &points);
		if (r != c->expect)
			fail_msg("%s (listing %zu): result %d, want %d", c->name, perm, r, c->expect);
		if ((r == OOM_SELECT_VICTIM || r == OOM_SELECT_DYING) &&
		    list[idx].pid != c->expect_pid)
			fail_msg("%s (listing %zu): chose pid %d, want %d", c->name, perm,
				 list[idx].pid, c->expect_pid);
		if ((r == OOM_SELECT_VICTIM || r == OOM_SELECT_DYING) &&
		    points != oom_badness(&list[idx], TOTAL))
			fail_msg("%s: points %ld differ from oom_badness", c->name, points);
	}
}

/*
 * oom_tasks_keep_best() over every rotation and reversal of one listing: an earlier victim still
 * exiting first however small, then the candidates by the victim rules (preferred first,
 * avoided last), then a vfork child, then what can never be chosen; the whole array sorted.
 */
static void test_keep_best(void **state)
{
	struct oom_task want[9], list[9];
	const size_t n = 9;

	(void)state;
	want[0] = task(40, 1, 0, OOM_TASK_VICTIM);
	want[1] = task(42, 2, 0, OOM_TASK_PREFER);
	want[2] = task(43, 900, 0, 0);
	want[3] = task(44, 800, 0, 0);
	want[4] = task(45, 800, 0, 0); /* 6: 44 is the newer */
	want[4].start_time = 999;
	want[5] = task(46, 5000, 0, OOM_TASK_AVOID);
	want[6] = task(41, 5, 0, OOM_TASK_VFORK);
	want[7] = task(48, 90000, -1000, 0); /* never chosen: by pid */
	want[8] = task(47, 90000, 0, OOM_TASK_VICTIM | OOM_TASK_SKIP);
	for (size_t perm = 0; perm < 2 * n; perm++) {
		for (size_t i = 0; i < n; i++) {
			size_t from = (i + perm) % n;

			list[i] = want[perm < n ? from : n - 1 - from];
		}
		assert_int_equal(oom_tasks_keep_best(list, n, 4, TOTAL), 4);
		for (size_t i = 0; i < n; i++)
			if (list[i].pid != want[i].pid)
				fail_msg("listing %zu: place %zu holds pid %d, want %d", perm, i,
					 list[i].pid, want[i].pid);
	}
	assert_int_equal(oom_tasks_keep_best(list, 3, 4, TOTAL), 3); /* fewer than kept */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n; k++)
			if (oom_task_keep_before(&want[i], &want[k], TOTAL) != (i < k))
				fail_msg("keep_before(%zu, %zu) wrong", i, k);
	assert_true(oom_task_waited_for(&want[0]));
	assert_false(oom_task_waited_for(&want[8]));
	want[0].flags |= OOM_TASK_KTHREAD; /* unkillable: select_bad_process() passes it by */
	assert_false(oom_task_waited_for(&want[0]));
}

/* splitmix64: the property test's draws, the same every run. */
static uint64_t draw(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random task: many ties in rss and start time, every flag and adjustment now and then. */
static struct oom_task random_task(uint64_t *x, int pid)
{
	static const int adjs[] = {-1000, -999, -300, 0, 0, 0, 0, 500, 1000};
	static const unsigned int flags[] = {
	    OOM_TASK_KTHREAD, OOM_TASK_PROTECTED, OOM_TASK_NO_MM, OOM_TASK_SKIP,
	    OOM_TASK_VFORK,   OOM_TASK_VFORK,     OOM_TASK_PREFER, OOM_TASK_AVOID,
	    OOM_TASK_AVOID,   OOM_TASK_DYING,     OOM_TASK_VICTIM | OOM_TASK_SKIP};
	struct oom_task t = task(pid, draw(x) % 50, adjs[draw(x) % 9], 0);

	t.swap_pages = draw(x) % 3;
	t.pgtables_pages = draw(x) % 2;
	t.start_time = draw(x) % 20;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (draw(x) % 100 < 5)
			t.flags |= flags[i];
	return t;
}

/*
 * Across a space: 400 random listings of 1 to 3,000 tasks, fed one by one to tables of 8 to 127
 * entries (so that most are cut many times), with at most one earlier victim still exiting: the
 * table's verdict is the verdict over every task (result, victim, points), and every task is in
 * the table or counted out with its memory.
 */
static void test_take_any_order(void **state)
{
	static struct oom_task all[3000], sorted[3000], table[128];
	uint64_t x = 2026;

	(void)state;
	for (int trial = 0; trial < 400; trial++) {
		size_t n = 1 + draw(&x) % 3000, nr = 0, ia = 0, it = 0;
		struct oom_take_limits lim = {8 + draw(&x) % 120, 0, 1 + draw(&x) % 100000};
		struct oom_take_state st;
		enum oom_select_result ra, rt;
		unsigned long pages = 0, held = 0;
		long pa = 0, pt = 0;

		lim.keep = 1 + draw(&x) % (lim.cap - 1);
		memset(&st, 0, sizeof(st));
		for (size_t i = 0; i < n; i++) {
			all[i] = random_task(&x, (int)(1000 + (i * 7919) % 3001));
			pages += all[i].rss_pages + all[i].swap_pages;
		}
		if (draw(&x) % 5 == 0) /* an earlier victim still exiting, somewhere */
			all[draw(&x) % n].flags = OOM_TASK_VICTIM;
		for (size_t i = 0; i < n; i++)
			oom_tasks_take(table, &nr, &lim, &st, &all[i]);
		for (size_t i = 0; i < nr; i++)
			held += table[i].rss_pages + table[i].swap_pages;
		if (nr + st.ranked_out != n || held + st.ranked_out_pages != pages)
			fail_msg("trial %d: %zu kept + %zu out of %zu tasks", trial, nr, st.ranked_out,
				 n);
		/* the table holds the lim.keep tasks that rank first among all */
		memcpy(sorted, all, n * sizeof(all[0]));
		for (size_t i = 0, k = oom_tasks_keep_best(sorted, n, lim.keep, lim.totalpages);
		     i < k; i++) {
			size_t j = 0;

			while (j < nr && table[j].pid != sorted[i].pid)
				j++;
			if (j == nr)
				fail_msg("trial %d: the task ranked %zu (pid %d) is not in the table",
					 trial, i + 1, sorted[i].pid);
		}
		ra = select_bad_process(all, n, lim.totalpages, &ia, &pa);
		rt = select_bad_process(table, nr, lim.totalpages, &it, &pt);
		if (ra != rt)
			fail_msg("trial %d (%zu tasks, table %zu/%zu): result %d, over all %d", trial,
				 n, lim.cap, lim.keep, rt, ra);
		if ((ra == OOM_SELECT_VICTIM || ra == OOM_SELECT_DYING) &&
		    (all[ia].pid != table[it].pid || pa != pt))
			fail_msg("trial %d (%zu tasks, table %zu/%zu): pid %d, over all %d", trial, n,
				 lim.cap, lim.keep, table[it].pid, all[ia].pid);
	}
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_badness_arithmetic),
		cmocka_unit_test(test_unkillable_flags),
		cmocka_unit_test(test_keep_best),
		cmocka_unit_test(test_take_any_order),
	};
	struct CMUnitTest tests[24 + 4];
	size_t n = 0;

	build_cases();
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < nr_select_cases; i++)
		tests[n++] = (struct CMUnitTest){.name = select_cases[i].name,
						 .test_func = test_select_case,
						 .initial_state = &select_cases[i]};
	return _cmocka_run_group_tests("badness", tests, n, NULL, NULL);
}
