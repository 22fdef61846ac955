// SPDX-License-Identifier: GPL-2.0-only
/* The event sources on the real kernel: daemon_start_events() registers an OOM and a vmpressure
 * eventfd per v1 group, and one on the v1 root group for the machine scope, so the round's
 * gate needs no v1 refaults and no PSI read: quiet rounds of the machine and three groups read
 * no file at all; a child that writes past one group's limit makes the kernel reclaim in it,
 * vmpressure fires there and at the root, and the next round reads PSI and that group in full
 * (its failcnt moved), not the others; then all is quiet again. Groups:
 * oomguard-test-events-*, 32 MiB, removed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/options.h"
#include "daemon/log.h"
#include "linux/sys.h"

#define MEMCG_ROOT "/sys/fs/cgroup/memory"
#define GROUPS     3

static struct daemon d;
static char cg[GROUPS][256];
static char scratch_file[256];
static int preads;

static ssize_t counting_pread(int fd, void *buf, size_t len, off_t off)
{
	preads++;
	return sys_ops_real.pread(fd, buf, len, off);
}

/* A child in group @g that writes @mib MiB to a file on disk (page cache charged to @g). */
static int write_in_group(int g, size_t mib)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		static char buf[1 << 20];
		char path[300], me[32];
		int fd;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg[g]);
		fd = open(path, O_WRONLY);
		snprintf(me, sizeof(me), "%d", getpid());
		if (fd < 0 || write(fd, me, strlen(me)) < 0)
			_exit(1);
		close(fd);
		fd = open(scratch_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(1);
		memset(buf, 'x', sizeof(buf));
		for (size_t i = 0; i < mib; i++)
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		close(fd);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void remove_groups(void)
{
	for (int g = 0; g < GROUPS; g++)
		for (int i = 0; cg[g][0] && i < 50 && rmdir(cg[g]) < 0 && errno != ENOENT; i++)
			usleep(100000);
}

static void test_events(void **state)
{
	static struct sys_ops fake;
	char err[256];
	char *argv[3 + 2 * GROUPS] = {"run", "--machine"};
	int argc = 2;
	uint64_t failcnt;

	(void)state;
	for (int g = 0; g < GROUPS; g++) {
		argv[argc++] = "--cgroup";
		argv[argc++] = cg[g];
	}
	argv[argc] = NULL;
	memset(&d, 0, sizeof(d));
	daemon_init(&d, argc, argv);
	if (options_parse(&d.cfg, argc, argv, err, sizeof(err)) != 0 ||
	    daemon_setup_scopes(&d, err, sizeof(err)) < 0)
		fail_msg("setup: %s", err);
	d.self_pid = getpid();
	assert_int_equal(events_start(&d), 0);
	assert_true(d.ev.v1_evented);
	assert_true(d.ev.machine_efd >= 0);
	assert_int_equal(d.ev.nr_pressure, GROUPS);
	assert_int_equal(d.scopes[0].kind, SCOPE_MACHINE);
	for (int g = 1; g <= GROUPS; g++) {
		assert_true(d.scopes[g].oom_efd >= 0);
		assert_true(d.scopes[g].pressure_efd >= 0);
	}
	daemon_round(&d); /* the first read is full */
	fake = sys_ops_real;
	fake.pread = counting_pread;
	sys = &fake;
	/* Quiet, unless something on this machine reclaims meanwhile (then PSI is read): the
	 * machine's meminfo alone, in the rounds it is due (MemAvailable,
	 * scope_meminfo_wait_usec()), else nothing. Under the multi-gen LRU the root is silent
	 * about the kernel's own reclaim: PSI every round too. */
	for (int i = 0, quiet = 0; quiet < 3 && i < 50; i++) {
		uint64_t due = d.scopes[0].meminfo_due_usec;

		preads = 0;
		daemon_round(&d);
		if (!d.ev.lru_gen && d.ev.psi_age == 0)
			continue; /* reclaim elsewhere: the root fired */
		/* no group file, no root memory.stat */
		assert_int_equal(preads, (d.scopes[0].cur.time_usec >= due) + (d.ev.lru_gen ? 1 : 0));
		for (int g = 1; g <= GROUPS; g++)
			assert_true(d.scopes[g].full_age > 0);
		quiet++;
	}
	assert_true(d.ev.lru_gen || d.ev.psi_age > 0);
	failcnt = d.scopes[2].cur.stall_events;
	/* 64 MiB of page cache through a 32 MiB group: the kernel reclaims in it. vmpressure
	 * signals from a work item: wait (bounded) until the group's eventfd and the root's are
	 * readable, as the daemon's next round would find them. */
	assert_int_equal(write_in_group(1, 64), 0);
	{
		struct pollfd p[2] = {{.fd = d.scopes[2].pressure_efd, .events = POLLIN},
				      {.fd = d.ev.machine_efd, .events = POLLIN}};

		for (int k = 0; k < 2; k++) {
			if (poll(&p[k], 1, 2000) != 1)
				fail_msg("no vmpressure event within 2 s (%s)",
					 k ? "root" : "group");
		}
	}
	preads = 0;
	daemon_round(&d);
	assert_int_equal(d.ev.psi_age, 0);      /* the root fired: PSI read */
	assert_int_equal(d.scopes[2].full_age, 0);
	assert_true(d.scopes[2].cur.stall_events > failcnt);
	assert_true(preads >= 6); /* PSI and the group's five files */
	assert_true(d.scopes[1].full_age > 0 && d.scopes[3].full_age > 0); /* not theirs */
	/* Drained; warm for SCOPE_WARM_ROUNDS (read every round), then quiet again. */
	for (int i = 1; i < SCOPE_WARM_ROUNDS; i++) {
		daemon_round(&d);
		assert_int_equal(d.scopes[2].full_age, 0);
	}
	preads = 0;
	daemon_round(&d);
	assert_int_equal(d.scopes[2].full_age, 1); /* the group reads nothing */
	/* At most PSI and meminfo; more only when something else on the machine stalled on memory
	 * lately: then the machine scope is warm (SCOPE_WARM_ROUNDS) and read in full, the groups
	 * not. */
	assert_true(preads <= 2 || d.scopes[0].full_age == 0);
	sys = &sys_ops_real;
	daemon_teardown(&d);
	assert_int_equal(d.ev.wake_ep, -1);
	assert_int_equal(d.ev.pressure_ep, -1);
	assert_int_equal(d.ev.machine_efd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_events)};
	int r;

	if (geteuid() != 0 || access(MEMCG_ROOT "/memory.limit_in_bytes", F_OK) != 0 ||
	    access(MEMCG_ROOT "/memory.pressure_level", F_OK) != 0) {
		printf(
		    "SKIP: needs root and the cgroup v1 memory controller with pressure_level\n");
		return 0;
	}
	snprintf(scratch_file, sizeof(scratch_file), "build/oomguard-test-events-%d.data",
		 getpid());
	for (int g = 0; g < GROUPS; g++) {
		char path[300];
		int fd;

		snprintf(cg[g], sizeof(cg[g]), MEMCG_ROOT "/oomguard-test-events-%d-%d", getpid(),
			 g);
		if (mkdir(cg[g], 0755) < 0) {
			cg[g][0] = '\0';
			remove_groups();
			return 1;
		}
		snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", cg[g]);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "33554432", 8) != 8) {
			remove_groups();
			return 1;
		}
		close(fd);
	}
	log_max_prio = LOG_PRIO_ERR;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(scratch_file);
	remove_groups();
	return r;
}
