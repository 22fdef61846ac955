// SPDX-License-Identifier: GPL-2.0-only
/* A scope that cannot be read is loud: the round says so when it happens (not once per 100
 * rounds), reads it in full again every round (a quiet round skipped it on what the failed read
 * left), and says when it is readable again. On a copy of the 6.18 fixture whose zoneinfo is
 * broken, then mended. */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/options.h"
#include "linux/sys.h"

static struct daemon d;
static char logged[8192];
static size_t logged_len;

static ssize_t capture(int fd, const void *buf, size_t len)
{
	(void)fd;
	if (logged_len + len < sizeof(logged)) {
		memcpy(logged + logged_len, buf, len);
		logged_len += len;
		logged[logged_len] = '\0';
	}
	return (ssize_t)len;
}

static int count(const char *what)
{
	int n = 0;

	for (const char *p = logged; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_unreadable_scope_is_loud(void **state)
{
	char root[] = "/tmp/oomguard-test-round-XXXXXX", cmd[400], err[256];
	char *argv[] = {"run", "--machine", "--root", root, NULL};

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/proc %s/", root);
	assert_int_equal(system(cmd), 0);
	log_set_write(capture);
	log_max_prio = LOG_PRIO_NOTICE;
	daemon_init(&d, 4, argv);
	assert_int_equal(options_parse(&d.cfg, 4, argv, err, sizeof(err)), 0);
	assert_int_equal(daemon_setup_scopes(&d, err, sizeof(err)), 0);
	daemon_round(&d);
	assert_int_equal(d.scopes[0].read_err, 0);
	snprintf(cmd, sizeof(cmd), "printf 'Node 0, zone   Normal\\n  pages free     12abc\\n' > %s/proc/zoneinfo", root);
	assert_int_equal(system(cmd), 0);
	d.scopes[0].full_age = SCOPE_FULL_READ_ROUNDS; /* the next round reads every file */
	for (int i = 0; i < 5; i++) {
		daemon_round(&d);
		assert_true(d.scopes[0].read_err < 0); /* a failed read is read again, not skipped */
	}
	assert_true(d.scopes[0].read_err < 0);
	assert_int_equal(count("cannot read scope=machine"), 1); /* at once, and once */
	snprintf(cmd, sizeof(cmd), "cp tests/fixtures/k6.18/proc/zoneinfo %s/proc/", root);
	assert_int_equal(system(cmd), 0);
	daemon_round(&d);
	assert_int_equal(d.scopes[0].read_err, 0);
	assert_int_equal(count("scope=machine is readable again"), 1);
	/* A kill whose reaper report never came (lost) is waited for VICTIM_WAIT_USEC, not for
	 * ever: then the scope may kill again, and says so. */
	d.scopes[0].kill_pending = true;
	d.scopes[0].kill_pending_usec = now_usec();
	daemon_round(&d);
	assert_true(d.scopes[0].kill_pending);
	d.scopes[0].kill_pending_usec = now_usec() - VICTIM_WAIT_USEC - 1;
	daemon_round(&d);
	assert_false(d.scopes[0].kill_pending);
	assert_int_equal(count("no report from the reaper"), 1);
	daemon_teardown(&d);
	log_set_write(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* setup_ra ROOT WITH_DISKS: a daemon on the machine scope of a copy of the 6.18 fixture, with
 * two disks in its /sys/block or none; returns the scope's read-ahead window in pages. */
static uint64_t setup_ra(char *root, bool with_disks)
{
	char cmd[400], err[256];
	char *argv[] = {"run", "--machine", "--root", root, NULL};
	uint64_t pages;

	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/proc %s/", root);
	assert_int_equal(system(cmd), 0);
	if (with_disks) {
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/block/vda/queue %s/sys/block/loop0/queue"
			 " && echo 8192 > %s/sys/block/vda/queue/read_ahead_kb"
			 " && echo 128 > %s/sys/block/loop0/queue/read_ahead_kb", root, root, root, root);
		assert_int_equal(system(cmd), 0);
	}
	daemon_init(&d, 4, argv);
	assert_int_equal(options_parse(&d.cfg, 4, argv, err, sizeof(err)), 0);
	assert_int_equal(daemon_setup_scopes(&d, err, sizeof(err)), 0);
	assert_int_equal(d.nr_scopes, 1);
	pages = d.scopes[0].readahead_pages;
	assert_int_equal(d.readahead_pages, pages);
	/* read at set-up only: a round does not read /sys/block again */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys", root);
	assert_int_equal(system(cmd), 0);
	daemon_round(&d);
	assert_int_equal(d.scopes[0].readahead_pages, pages);
	daemon_teardown(&d);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	return pages;
}

/* The read-ahead rule's window (progress.h): the largest of the disks', read once per set-up
 * and given to every scope; no /sys/block leaves it 0 (the rule off). */
static void test_readahead_at_setup(void **state)
{
	char root1[] = "/tmp/oomguard-test-ra-XXXXXX", root2[] = "/tmp/oomguard-test-ra-XXXXXX";

	(void)state;
	log_set_write(capture);
	log_max_prio = LOG_PRIO_NOTICE;
	assert_int_equal(setup_ra(root1, true), 8192 / 4);
	assert_int_equal(setup_ra(root2, false), 0);
	log_set_write(NULL);
}

/* A victim no report settled is waited for VICTIM_WAIT_USEC after its kill, then skipped. */
static void test_victim_expire(void **state)
{
	struct victim_table vt = {0};
	const uint64_t now = 100 * VICTIM_WAIT_USEC;

	(void)state;
	victim_record(&vt, 10, 1, now - VICTIM_WAIT_USEC - 1); /* killed long ago, no report */
	victim_record(&vt, 11, 1, now - 1000);                 /* killed just now */
	victim_record(&vt, 12, 1, now - 2 * VICTIM_WAIT_USEC);
	victim_set_state(&vt, 12, VICTIM_DONE); /* settled by its report: left as it is */
	assert_int_equal(victim_expire(&vt, now, VICTIM_WAIT_USEC), 1);
	assert_int_equal(vt.v[0].state, VICTIM_SKIPPED);
	assert_int_equal(vt.v[1].state, VICTIM_KILLED);
	assert_int_equal(vt.v[2].state, VICTIM_DONE);
}

/* Refusals are counted per process (pid and start time), in one entry that a later kill takes
 * over; another process on the same pid starts its own count. */
static void test_victim_refused(void **state)
{
	struct victim_table vt = {0};

	(void)state;
	assert_int_equal(victim_refused(&vt, 20, 5, 1000), 1);
	assert_int_equal(victim_refused(&vt, 20, 5, 2000), 2);
	assert_int_equal(victim_refused(&vt, 20, 6, 2000), 1); /* the pid reused */
	assert_int_equal(victim_refused(&vt, 20, 5, 3000), 3);
	assert_int_equal(vt.v[0].state, VICTIM_REFUSED);
	assert_int_equal(vt.v[0].kill_usec, 3000);
	victim_record(&vt, 20, 5, 4000); /* killed at last: the same entry */
	assert_int_equal(vt.v[0].state, VICTIM_KILLED);
	assert_int_equal(vt.next, 2);
	assert_false(victim_in_flight(&(struct victim_table){.v = {vt.v[1]}}));
	assert_true(victim_in_flight(&vt));
	/* a refusal after another state counts from 1 again */
	assert_int_equal(victim_refused(&vt, 20, 5, 5000), 1);
}

/* Listed, a process refused fewer than VICTIM_REFUSALS_MAX times is still a candidate; refused
 * that many times, it is passed over. */
static void test_victim_refused_flags(void **state)
{
	struct victim_table vt = {0};

	(void)state;
	for (unsigned int i = 1; i < VICTIM_REFUSALS_MAX; i++) {
		victim_refused(&vt, 30, 7, i);
		assert_int_equal(victim_flags(&vt, 30, 7), 0);
	}
	victim_refused(&vt, 30, 7, 9);
	assert_int_equal(victim_flags(&vt, 30, 7), OOM_TASK_SKIP);
	assert_int_equal(victim_flags(&vt, 30, 8), 0); /* the pid reused by another process */
}

/* Refusals of many processes do not push out a victim still on its way out. */
static void test_victim_refused_keeps_in_flight(void **state)
{
	struct victim_table vt = {0};

	(void)state;
	victim_record(&vt, 40, 1, 1000);
	for (int pid = 100; pid < 100 + 2 * VICTIMS_MAX; pid++)
		victim_refused(&vt, pid, 1, 2000);
	assert_int_equal(victim_flags(&vt, 40, 1), OOM_TASK_VICTIM);
	assert_true(victim_in_flight(&vt));
	/* a table of victims all on their way out still takes a new one (the oldest goes) */
	memset(&vt, 0, sizeof(vt));
	for (int pid = 1; pid <= VICTIMS_MAX + 1; pid++)
		victim_record(&vt, pid, 1, 1000);
	assert_int_equal(victim_flags(&vt, VICTIMS_MAX + 1, 1), OOM_TASK_VICTIM);
	assert_int_equal(victim_flags(&vt, 1, 1), 0);
}

static int psi_opens;

static int counting_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	size_t n = strlen(path), m = strlen("/proc/pressure/memory");

	if (n >= m && !strcmp(path + n - m, "/proc/pressure/memory"))
		psi_opens++;
	return sys_ops_real.openat(dirfd, path, flags, mode);
}

/* A kernel without PSI (the 4.4 fixture): the round's gate looks for /proc/pressure/memory once
 * per set-up of the event sources, as the machine scope does per set-up, not in every round. */
static void test_gate_without_psi(void **state)
{
	static struct sys_ops fake;
	char err[256];
	char *argv[] = {"run", "--machine", "--root", "tests/fixtures/k4.4", NULL};

	(void)state;
	fake = sys_ops_real;
	fake.openat = counting_openat;
	sys = &fake;
	psi_opens = 0;
	log_set_write(capture);
	log_max_prio = LOG_PRIO_NOTICE;
	daemon_init(&d, 4, argv);
	assert_int_equal(options_parse(&d.cfg, 4, argv, err, sizeof(err)), 0);
	assert_int_equal(daemon_setup_scopes(&d, err, sizeof(err)), 0);
	for (int i = 0; i < 3 * SCOPE_FULL_READ_ROUNDS; i++)
		daemon_round(&d);
	assert_int_equal(d.scopes[0].read_err, 0);
	assert_int_equal(psi_opens, 2); /* the gate's, the scope's */
	assert_true(d.ev.psi_missing);
	/* The event sources set up again (start-up, a reload that changed the scopes or the
	 * root): looked for again. */
	assert_int_equal(events_start(&d), 0);
	assert_false(d.ev.psi_missing);
	daemon_round(&d);
	assert_int_equal(psi_opens, 3);
	daemon_teardown(&d);
	sys = &sys_ops_real;
	log_set_write(NULL);
}

/* Whether @fd is open on a file whose path names the fixture's group (deleted since). */
static bool removed(int fd)
{
	char link[64], target[600];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strstr(target, "/oomguard-fixture") != NULL;
}

static ssize_t pread_removed(int fd, void *buf, size_t len, off_t off)
{
	return removed(fd) ? -ENODEV : sys_ops_real.pread(fd, buf, len, off);
}

static ssize_t read_removed(int fd, void *buf, size_t len)
{
	return removed(fd) ? -ENODEV : sys_ops_real.read(fd, buf, len);
}

/*
 * A group that goes away while its kill waits for the reaper's report, and the report is lost:
 * the wait ends after VICTIM_WAIT_USEC as it does for a group that stays, and the group is
 * looked for again (before, it was never watched again: the look waits for the report).
 */
static void test_absent_with_kill_pending(void **state)
{
	char root[] = "/tmp/oomguard-test-round-XXXXXX", cmd[600], err[256];
	char *argv[] = {"run", "--cgroup", "/sys/fs/cgroup/memory/oomguard-fixture", "--root", root,
			NULL};
	static struct sys_ops fake;
	struct scope *s;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/proc tests/fixtures/k6.18/sys %s/",
		 root);
	assert_int_equal(system(cmd), 0);
	logged_len = 0;
	logged[0] = '\0';
	log_set_write(capture);
	log_max_prio = LOG_PRIO_NOTICE;
	daemon_init(&d, 5, argv);
	assert_int_equal(options_parse(&d.cfg, 5, argv, err, sizeof(err)), 0);
	assert_int_equal(daemon_setup_scopes(&d, err, sizeof(err)), 0);
	s = &d.scopes[0];
	daemon_round(&d);
	assert_false(s->absent);
	s->kill_pending = true; /* a kill, whose report will never come */
	s->kill_pending_usec = now_usec();
	/* removed: its open files read ENODEV (kernfs), and it is no more to be opened */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/fs/cgroup/memory/oomguard-fixture", root);
	assert_int_equal(system(cmd), 0);
	fake = sys_ops_real;
	fake.pread = pread_removed;
	fake.read = read_removed;
	sys = &fake;
	s->full_age = SCOPE_FULL_READ_ROUNDS; /* the next round reads every file */
	daemon_round(&d);
	sys = &sys_ops_real;
	assert_true(s->absent);
	assert_int_equal(count("is gone: waiting for it"), 1);
	snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/k6.18/sys/fs/cgroup/memory/oomguard-fixture "
		 "%s/sys/fs/cgroup/memory/", root);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 2 * SCOPE_FULL_READ_ROUNDS; i++)
		daemon_round(&d);
	assert_true(s->kill_pending); /* within VICTIM_WAIT_USEC: still waited for */
	assert_true(s->absent);
	s->kill_pending_usec = now_usec() - VICTIM_WAIT_USEC - 1;
	for (int i = 0; i < 2 * SCOPE_FULL_READ_ROUNDS; i++)
		daemon_round(&d);
	assert_false(s->kill_pending);
	assert_int_equal(count("no report from the reaper"), 1);
	assert_false(s->absent);
	assert_int_equal(count("is there: watching it"), 1);
	daemon_teardown(&d);
	log_set_write(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_unreadable_scope_is_loud),
					   cmocka_unit_test(test_readahead_at_setup),
					   cmocka_unit_test(test_victim_expire),
					   cmocka_unit_test(test_victim_refused),
					   cmocka_unit_test(test_victim_refused_flags),
					   cmocka_unit_test(test_victim_refused_keeps_in_flight),
					   cmocka_unit_test(test_gate_without_psi),
					   cmocka_unit_test(test_absent_with_kill_pending)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
