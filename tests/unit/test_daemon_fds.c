// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of kept /proc files (tasks_fds_find(), tasks_fds_sweep()): the sweep empties slots in
 * place, so every entry it keeps must still be found, with what it held, and every entry it drops
 * must be gone and its files closed. Checked against a plain list of what was inserted, over
 * random pids, pids that share a home slot, runs that wrap past the table's last slot, and a full
 * table (max_fds), for a machine's listing and a group's. And the file table itself, grown at
 * start-up to what the listings may keep open (protect_fd_budget()), as the kernel reports it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "daemon/protect.h"
#include "daemon/tasks.h"
#include "linux/sys.h"

#define KNUTH_MULT32 2654435761u

static struct task_list tl;
static struct scope machine, group, other;
static int closed[8 * TASKS_FD_SLOTS]; /* fds closed, by number */

static int fake_close(int fd)
{
	assert_true(fd >= 0 && fd < (int)(sizeof(closed) / sizeof(closed[0])));
	closed[fd]++;
	return 0;
}

static size_t home(int pid)
{
	return (size_t)(unsigned int)pid * KNUTH_MULT32 % TASKS_FD_SLOTS;
}

/* Every entry can be reached from its home slot without crossing an empty one, and the count
 * is the table's. */
static void check_table(void)
{
	size_t n = 0;

	for (size_t i = 0; i < TASKS_FD_SLOTS; i++) {
		if (!tl.fds[i].pid)
			continue;
		n++;
		for (size_t k = home(tl.fds[i].pid); k != i; k = (k + 1) % TASKS_FD_SLOTS)
			assert_int_not_equal(tl.fds[k].pid, 0);
	}
	assert_int_equal(n, tl.nr_fds);
}

/* Distinct pids: random, or @nr_homes groups sharing a home slot (all near the table's end
 * when @wrap, so that their runs go on at slot 0). */
static void make_pids(int *pids, size_t nr, unsigned int seed, size_t nr_homes, bool wrap)
{
	size_t made = 0;

	srandom(seed);
	for (int pid = 1 + (int)(random() % 1000); made < nr; pid++) {
		size_t h = home(pid);
		bool ok = true;

		if (nr_homes && wrap)
			ok = h >= TASKS_FD_SLOTS - nr_homes;
		else if (nr_homes)
			ok = h % (TASKS_FD_SLOTS / nr_homes) == 0;
		else
			ok = random() % 3 == 0;
		if (ok)
			pids[made++] = pid;
	}
}

/*
 * Inserts @nr pids, marks which the listing saw (and, for a group's, which another scope's
 * listing saw and when), sweeps, and checks the result against the marks.
 */
static void sweep_case(size_t nr, unsigned int seed, size_t nr_homes, bool wrap,
		       const struct scope *s)
{
	static int pids[TASKS_FD_MAX];
	static bool keep[TASKS_FD_MAX];
	size_t kept = 0;

	memset(&tl, 0, sizeof(tl));
	memset(closed, 0, sizeof(closed));
	tl.gen = 100;
	make_pids(pids, nr, seed, nr_homes, wrap);
	for (size_t k = 0; k < nr; k++) {
		struct proc_fds *e = tasks_fds_find(&tl, pids[k], true);
		long r = random();

		assert_non_null(e);
		e->stat_fd = (int)(2 * k);
		e->adj_fd = (int)(2 * k + 1);
		e->re_hash = (uint32_t)pids[k] ^ 0x5a5a5a5au;
		e->seen_by = (uint32_t)(uintptr_t)(r % 4 ? &other : s);
		/* seen now, by another scope lately, or by another scope too long ago */
		e->gen = r % 3 == 0 ? tl.gen : r % 3 == 1 ? tl.gen - 5 : tl.gen - TASKS_SWEEP_AGE;
		keep[k] = e->gen == tl.gen ||
			  (s->kind != SCOPE_MACHINE && e->seen_by != (uint32_t)(uintptr_t)s &&
			   tl.gen - e->gen < TASKS_SWEEP_AGE);
		kept += keep[k];
	}
	assert_int_equal(tl.nr_fds, nr);
	check_table();
	tasks_fds_sweep(&tl, s);
	check_table();
	assert_int_equal(tl.nr_fds, kept);
	for (size_t k = 0; k < nr; k++) {
		struct proc_fds *e = tasks_fds_find(&tl, pids[k], false);

		if (keep[k]) {
			assert_non_null(e);
			assert_int_equal(e->stat_fd, (int)(2 * k));
			assert_int_equal(e->adj_fd, (int)(2 * k + 1));
			assert_int_equal(e->re_hash, (uint32_t)pids[k] ^ 0x5a5a5a5au);
		} else {
			assert_null(e);
		}
		assert_int_equal(closed[2 * k], !keep[k]);
		assert_int_equal(closed[2 * k + 1], !keep[k]);
	}
}

static void test_sweep_random(void **state)
{
	(void)state;
	for (unsigned int seed = 1; seed <= 40; seed++) {
		sweep_case(1 + seed * 25, seed, 0, false, &machine);
		sweep_case(1 + seed * 25, seed, 0, false, &group);
	}
}

/* Long runs: 8 home slots for 1,000 pids, and 3 homes at the table's end whose runs wrap. */
static void test_sweep_collisions(void **state)
{
	(void)state;
	for (unsigned int seed = 1; seed <= 10; seed++) {
		sweep_case(1000, seed, 8, false, &machine);
		sweep_case(1000, seed, 8, false, &group);
		sweep_case(300, seed, 3, true, &machine);
		sweep_case(300, seed, 3, true, &group);
	}
}

/* The table full (TASKS_FD_MAX kept): a further pid finds no slot; after a sweep it does. */
static void test_full_then_swept(void **state)
{
	struct proc_fds *e;

	(void)state;
	sweep_case(TASKS_FD_MAX, 7, 0, false, &machine);
	while (tl.nr_fds < TASKS_FD_MAX)
		assert_non_null(tasks_fds_find(&tl, 1000000 + (int)tl.nr_fds, true));
	assert_null(tasks_fds_find(&tl, 999999, true));
	tl.gen++;
	tasks_fds_sweep(&tl, &machine); /* nothing seen at this listing: every file closed */
	assert_int_equal(tl.nr_fds, 0);
	check_table();
	e = tasks_fds_find(&tl, 999999, true);
	assert_non_null(e);
	assert_int_equal(e->stat_fd, -1);
}

static int setup(void **state)
{
	static struct sys_ops ops;

	(void)state;
	ops = sys_ops_real;
	ops.close = fake_close;
	sys = &ops;
	machine.kind = SCOPE_MACHINE;
	group.kind = SCOPE_CGROUP_V1;
	other.kind = SCOPE_CGROUP_V1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sys = &sys_ops_real;
	return 0;
}

/* The kernel's file table of this process (FDSize in /proc/self/status). */
static long fd_table_size(void)
{
	char line[128];
	long size = -1;
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "FDSize: %ld", &size) == 1)
			break;
	fclose(f);
	return size;
}

/* After protect_fd_budget() the table holds as many files as the soft limit it set (up to what
 * the listings want), before any of them is opened. */
static void test_fd_table_grown(void **state)
{
	const rlim_t want = 2 * TASKS_FD_MAX + 64;
	struct rlimit rl;
	long before = fd_table_size(), after;
	size_t keep;

	(void)state;
	assert_true(before > 0);
	keep = protect_fd_budget();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	after = fd_table_size();
	if (rl.rlim_cur < want)
		assert_true(keep > 0);
	/* the test needs a limit that lets the table grow past a fresh process's 64 */
	assert_true(rl.rlim_cur > (rlim_t)before);
	assert_true(after >= (long)(rl.rlim_cur < want ? rl.rlim_cur : want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sweep_random),
	    cmocka_unit_test(test_sweep_collisions),
	    cmocka_unit_test(test_full_then_swept),
	    cmocka_unit_test(test_fd_table_grown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
