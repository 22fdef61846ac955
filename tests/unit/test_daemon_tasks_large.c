// SPDX-License-Identifier: GPL-2.0-only
/* Listings larger than the task table, on generated fixture trees: a host of 6,000 and one of
 * 20,000 processes (the machine's /proc), and a group of 6,000 (its cgroup.procs). The victim
 * must be the one a table of every process would give, wherever /proc lists it; on a host of
 * more processes than kept files, the largest keeps its files for listings under pressure. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/scope.h"
#include "daemon/tasks.h"
#include "linux/sys.h"
#include "../lib/proc_fixture.h"

#define FIXTURE_PAGE_SHIFT 12
#define FIRST_PID          1000

static char scratch[SCOPE_SCRATCH_SIZE];
static struct task_list tl;

/* A generated process: its pid, rss and start time; 0 rss: a kernel thread. */
struct gen_task {
	int pid;
	unsigned long rss_pages;
	unsigned long long start_time;
	int adj;
};

/* Writes @t's stat and oom_score_adj (and status, for the few the listing asks it of). */
static void gen_put(const char *root, const struct gen_task *t)
{
	char stat[512], adj[16];
	unsigned int flags = t->rss_pages ? 0x400000u : 0x200000u; /* PF_KTHREAD: 0x200000 */
	int n;

	n = snprintf(stat, sizeof(stat),
		     "%d (w%d) S 1 %d %d 0 -1 %u 0 0 0 0 0 0 0 0 20 0 1 0 %llu 4136960 %lu "
		     "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		     t->pid, t->pid % 1000, t->pid, t->pid, flags, t->start_time, t->rss_pages);
	proc_fixture_put(root, t->pid, "stat", stat, (size_t)n);
	n = snprintf(adj, sizeof(adj), "%d\n", t->adj);
	proc_fixture_put(root, t->pid, "oom_score_adj", adj, (size_t)n);
}

/*
 * A copy of the k6.18 fixture whose /proc holds @nr generated processes from FIRST_PID (and not
 * the fixture's one): rss spread by a multiplicative hash (40 to 4,039 pages), every 97th a
 * kernel thread. Return: the generated tasks (caller frees).
 */
static struct gen_task *gen_host(char *root, size_t nr)
{
	struct gen_task *t = calloc(nr, sizeof(*t));
	char cmd[300];

	assert_non_null(t);
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "cp -r tests/fixtures/k6.18/proc tests/fixtures/k6.18/sys %s/ && rm -r %s/proc/1234",
		 root, root);
	assert_int_equal(system(cmd), 0);
	/* tmpfs lists a directory newest first: made from the highest pid down, /proc lists
	 * ascending, as the kernel's /proc does */
	for (size_t i = nr; i-- > 0;) {
		t[i].pid = FIRST_PID + (int)i;
		t[i].rss_pages = i % 97 == 3 ? 0 : 40 + (unsigned long)(i * 2654435761u % 4000);
		t[i].start_time = 5000 + i;
		gen_put(root, &t[i]);
	}
	return t;
}

static void gen_remove(const char *root, struct gen_task *t)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(t);
}

static int by_rss_desc(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static bool in_table(int pid)
{
	for (size_t i = 0; i < tl.nr; i++)
		if (tl.tasks[i].pid == pid)
			return true;
	return false;
}

/*
 * Every listed process is in the table or counted out by rank, with what it holds; the table
 * holds at least TASKS_KEEP_CUT candidates, among them every one larger than the
 * TASKS_KEEP_CUT-th largest of @t (every candidate of @t has adj 0 here, so rank is rss).
 */
static void check_listing(const struct gen_task *t, size_t nr)
{
	unsigned long *rss = calloc(nr, sizeof(*rss)), total = 0, held = 0;
	size_t cand = 0, kept = 0, missing = 0;

	assert_non_null(rss);
	for (size_t i = 0; i < nr; i++) {
		if (t[i].rss_pages)
			rss[cand++] = t[i].rss_pages;
		total += t[i].rss_pages;
	}
	qsort(rss, cand, sizeof(*rss), by_rss_desc);
	for (size_t i = 0; i < tl.nr; i++) {
		held += tl.tasks[i].rss_pages;
		kept += !(tl.tasks[i].flags & OOM_TASK_KTHREAD);
	}
	for (size_t i = 0; cand > TASKS_KEEP_CUT && i < nr; i++)
		missing += t[i].rss_pages > rss[TASKS_KEEP_CUT - 1] && !in_table(t[i].pid);
	free(rss);
	assert_true(tl.nr <= TASKS_MAX);
	assert_int_equal(tl.nr + tl.take.ranked_out, nr);
	assert_int_equal(held + tl.take.ranked_out_pages, total);
	assert_int_equal(missing, 0);
	assert_true(kept >= (cand < TASKS_KEEP_CUT ? cand : TASKS_KEEP_CUT));
}

/* The verdict on the last listing chooses @pid. */
static void expect_victim(int pid)
{
	size_t idx = 0;
	long points = 0;

	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points),
			 OOM_SELECT_VICTIM);
	assert_int_equal(tl.tasks[idx].pid, pid);
}

/* A host of @nr processes whose largest is listed last: it is the victim, and an earlier victim
 * listed last is waited for. */
static void large_host(size_t nr)
{
	char root[] = "/dev/shm/oomguard-test-large-XXXXXX";
	struct gen_task *t = gen_host(root, nr);
	struct victim_table vt;
	struct config c;
	struct scope s;
	size_t idx = 0;
	long points = 0;

	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	t[nr - 1].rss_pages = 90000; /* the one taking the memory, born last */
	gen_put(root, &t[nr - 1]);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	expect_victim(t[nr - 1].pid);
	check_listing(t, nr);
	assert_true(tl.take.ranked_out > 0);
	/* A small earlier victim still exiting, listed after thousands of larger ones. */
	victim_record(&vt, t[nr - 2].pid, t[nr - 2].start_time, 1);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points),
			 OOM_SELECT_WAIT);
	/* Given up on: the largest again. */
	victim_set_state(&vt, t[nr - 2].pid, VICTIM_SKIPPED);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	expect_victim(t[nr - 1].pid);
	tasks_close(&tl);
	scope_close(&s);
	gen_remove(root, t);
}

static void test_machine_6000(void **state)
{
	(void)state;
	large_host(6000);
}

static void test_machine_20000(void **state)
{
	(void)state;
	large_host(20000);
}

/* A host that fits the table: nothing left out by rank. */
static void test_machine_fits(void **state)
{
	char root[] = "/dev/shm/oomguard-test-large-XXXXXX";
	struct gen_task *t = gen_host(root, TASKS_MAX);
	struct victim_table vt;
	struct config c;
	struct scope s;

	(void)state;
	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(tl.nr, TASKS_MAX);
	assert_int_equal(tl.take.ranked_out, 0);
	check_listing(t, TASKS_MAX);
	tasks_close(&tl);
	scope_close(&s);
	gen_remove(root, t);
}

/* A group of 6,000 (a fork bomb's), every process alike but one listed late by cgroup.procs
 * and preferred by oom_score_adj 500: it is the victim. */
static void test_group_6000(void **state)
{
	char root[] = "/dev/shm/oomguard-test-large-XXXXXX", path[600];
	struct gen_task *t = gen_host(root, 6000);
	struct victim_table vt;
	struct cgroup_mounts m;
	struct config c;
	struct scope s;
	char err[256] = "";
	FILE *f;

	(void)state;
	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	for (size_t i = 0; i < 6000; i++) {
		t[i].rss_pages = 300;
		t[i].start_time = 5000;
	}
	t[5000].adj = 500;
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/memory/oomguard-fixture/cgroup.procs", root);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < 6000; i++) {
		gen_put(root, &t[i]);
		fprintf(f, "%d\n", t[i].pid);
	}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), &m), 0);
	assert_int_equal(scope_init_cgroup(&s, root, "/sys/fs/cgroup/memory/oomguard-fixture", &m,
					   FIXTURE_PAGE_SHIFT, scratch, err, sizeof(err)),
			 0);
	s.cur.limit_bytes = 1ull << 32; /* totalpages 2^20: adj 500 is worth 524,000 pages */
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	expect_victim(t[5000].pid);
	assert_int_equal(tl.nr + tl.take.ranked_out, 6000);
	assert_true(tl.take.ranked_out > 0);
	/* All alike: the deterministic key decides (rule 7, the higher pid), as in a whole table. */
	t[5000].adj = 0;
	gen_put(root, &t[5000]);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	expect_victim(t[5999].pid);
	tasks_close(&tl);
	scope_close(&s);
	gen_remove(root, t);
}

/*
 * A host of 3,000 processes, more than the kept files' slots (TASKS_FD_MAX): the largest, listed
 * last, keeps its files after a full listing, so that a listing under pressure (known_only),
 * which walks the kept files alone, sees it and chooses it. The largest before it loses its
 * slot to none of the others: the slots given up are the lowest-ranked.
 */
static void test_machine_top_kept(void **state)
{
	char root[] = "/dev/shm/oomguard-test-large-XXXXXX";
	const size_t nr = 3000;
	struct gen_task *t = gen_host(root, nr);
	struct victim_table vt;
	struct proc_fds *e;
	struct config c;
	struct scope s;

	(void)state;
	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	t[nr - 1].rss_pages = 90000;
	gen_put(root, &t[nr - 1]);
	t[10].rss_pages = 80000; /* the second largest, listed early: it had a slot */
	gen_put(root, &t[10]);
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_true(tl.not_kept > 0);
	assert_int_equal(tl.nr_fds, TASKS_FD_MAX);
	e = tasks_fds_find(&tl, t[nr - 1].pid, false);
	assert_non_null(e);
	assert_true(e->stat_fd >= 0 && e->adj_fd >= 0);
	e = tasks_fds_find(&tl, t[10].pid, false);
	assert_non_null(e);
	assert_true(e->stat_fd >= 0);
	tl.known_only = true;
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	tl.known_only = false;
	assert_int_equal(tl.nr, TASKS_FD_MAX);
	expect_victim(t[nr - 1].pid);
	tasks_close(&tl);
	scope_close(&s);
	gen_remove(root, t);
}

/*
 * The same host with a small process the rules prefer (prefer_regex on its name), listed last:
 * it ranks first, so its status is read and it keeps its files, and a listing under pressure
 * chooses it (a choice of the 8 largest by badness alone left it out of both).
 */
static void test_machine_preferred_kept(void **state)
{
	char root[] = "/dev/shm/oomguard-test-large-XXXXXX", err[128];
	const size_t nr = 3000;
	struct gen_task *t = gen_host(root, nr);
	struct victim_table vt;
	struct proc_fds *e;
	struct config c;
	struct scope s;

	(void)state;
	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	assert_int_equal(config_set(&c, "prefer_regex", "^w999$", err, sizeof(err)), 0);
	assert_int_equal(config_finish(&c, err, sizeof(err)), 0);
	assert_int_equal(t[nr - 1].pid % 1000, 999); /* its name is w999: the only one */
	assert_int_equal(scope_init_machine(&s, root, FIXTURE_PAGE_SHIFT, scratch), 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	expect_victim(t[nr - 1].pid);
	e = tasks_fds_find(&tl, t[nr - 1].pid, false);
	assert_non_null(e);
	assert_true(e->stat_fd >= 0);
	tl.known_only = true;
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	tl.known_only = false;
	assert_int_equal(tl.nr, TASKS_FD_MAX);
	expect_victim(t[nr - 1].pid);
	tasks_close(&tl);
	scope_close(&s);
	config_release(&c);
	gen_remove(root, t);
}

#define GROUP_FIXTURE "/sys/fs/cgroup/memory/oomguard-fixture"

/* Writes @pid (0: none) as the only line of @dir's cgroup.procs, making @dir. */
static void put_procs(const char *dir, int pid)
{
	char path[4200];
	FILE *f;

	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	if (pid)
		fprintf(f, "%d\n", pid);
	assert_int_equal(fclose(f), 0);
}

/*
 * A group whose children nest 20 deep under names of 60 bytes: a process 12 levels down (a
 * path of about 800 bytes, more than a scope's own path may be) is listed and is the victim; a
 * larger one 18 levels down is past TASKS_MAX_DEPTH: not listed, and the one group cut off
 * above it is counted (the daemon says so) instead of passed over in silence.
 */
static void test_group_deep(void **state)
{
	char root[] = "/dev/shm/oomguard-test-large-XXXXXX", dir[4096];
	struct gen_task *t = gen_host(root, 2);
	struct victim_table vt;
	struct cgroup_mounts m;
	struct config c;
	struct scope s;
	char err[256] = "";
	size_t len;

	(void)state;
	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	t[0].rss_pages = 3000;
	t[1].rss_pages = 9000;
	gen_put(root, &t[0]);
	gen_put(root, &t[1]);
	len = (size_t)snprintf(dir, sizeof(dir), "%s%s", root, GROUP_FIXTURE);
	put_procs(dir, 0);
	for (int level = 1; level <= 20; level++) {
		len += (size_t)snprintf(dir + len, sizeof(dir) - len, "/g%02d-%057d", level, 0);
		put_procs(dir, level == 12 ? t[0].pid : level == 18 ? t[1].pid : 0);
		if (level == 12)
			assert_true(len - strlen(root) > CONFIG_PATH_MAX);
	}
	assert_int_equal(read_mountinfo(root, scratch, sizeof(scratch), &m), 0);
	assert_int_equal(scope_init_cgroup(&s, root, GROUP_FIXTURE, &m, FIXTURE_PAGE_SHIFT, scratch,
					   err, sizeof(err)),
			 0);
	assert_int_equal(tasks_acquire(&tl, &s, &c, &vt, 1, scratch, sizeof(scratch)), 0);
	assert_int_equal(tl.nr, 1);
	expect_victim(t[0].pid);
	assert_int_equal(tl.groups_cut, 1);
	tasks_close(&tl);
	scope_close(&s);
	gen_remove(root, t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_machine_fits),
	    cmocka_unit_test(test_machine_6000),
	    cmocka_unit_test(test_machine_20000),
	    cmocka_unit_test(test_group_6000),
	    cmocka_unit_test(test_group_deep),
	    cmocka_unit_test(test_machine_top_kept),
	    cmocka_unit_test(test_machine_preferred_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
