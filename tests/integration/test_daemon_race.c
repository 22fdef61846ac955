// SPDX-License-Identifier: GPL-2.0-only
/* Races on the real kernel: the chosen victim exits before the kill (pidfd_open or
 * pidfd_send_signal meets ESRCH, injected through the syscall table), or its pid was reused
 * (start time differs). In each case nothing is killed, the other task in the scope lives. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/unit.h"
#include "daemon/options.h"
#include "daemon/log.h"
#include "linux/sys.h"

#define MEMCG_ROOT "/sys/fs/cgroup/memory"

static struct daemon d;
static char cg[256];
static pid_t big, small, race_pid;
static struct sys_ops fake;

/* SIGUSR1 renames an eater, as an execve into another program would. */
static void rename_self(int sig)
{
	(void)sig;
	prctl(PR_SET_NAME, "renamed", 0, 0, 0);
}

/* A child that joins the cgroup, touches @mib MiB, says so, and waits to be killed (SIGUSR1
 * renames it). */
/* An eater of this size leaves by pthread_exit() once ready, a second thread holding its memory:
 * its leader a zombie, the process read through that thread (0: none). */
static size_t leader_gone_mib;

static void *hold_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static pid_t spawn_eater(size_t mib)
{
	int p[2];
	pid_t pid;
	char c = 0;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char path[300], buf[32];
		unsigned char *m;
		int fd;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		fd = open(path, O_WRONLY);
		snprintf(buf, sizeof(buf), "%d", getpid());
		if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
			_exit(1);
		close(fd);
		m = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (m == MAP_FAILED)
			_exit(1);
		memset(m, 1, mib << 20);
		signal(SIGUSR1, rename_self);
		if (mib == leader_gone_mib) {
			pthread_t t;

			if (pthread_create(&t, NULL, hold_forever, NULL) != 0)
				_exit(1);
		}
		if (write(p[1], "r", 1) < 0)
			_exit(1);
		if (mib == leader_gone_mib)
			pthread_exit(NULL);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

/* Waits until @pid's leader is a zombie (its stat's state Z). Return: 0, or -1 after 2 s. */
static int wait_leader_gone(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(path, "re");

		buf[0] = '\0';
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'Z')
			return 0;
		usleep(10000);
	}
	return -1;
}

static void reap_child(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

#define FREEZER_ROOT "/sys/fs/cgroup/freezer"
static char freezer[256]; /* a freezer group of this test's, "" when none */

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[320];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return r;
}

/* Thaws and removes the freezer group (the teardown's too: a frozen child cannot be reaped). */
static void freezer_remove(void)
{
	if (!freezer[0])
		return;
	write_file(freezer, "freezer.state", "THAWED");
	reap_child(&big);
	rmdir(freezer);
	freezer[0] = '\0';
}

/* The victim exits (and is reaped) just before the call the table makes. */
static int racing_pidfd_open(pid_t pid, unsigned int flags)
{
	if (pid == race_pid)
		reap_child(&big);
	return sys_ops_real.pidfd_open(pid, flags);
}

static int racing_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags)
{
	reap_child(&big);
	return sys_ops_real.pidfd_send_signal(pidfd, sig, info, flags);
}

static int setup_with(int argc, char **argv)
{
	char err[256];

	memset(&d, 0, sizeof(d));
	daemon_init(&d, argc, argv);
	if (options_parse(&d.cfg, argc, argv, err, sizeof(err)) != 0 ||
	    daemon_setup_scopes(&d, err, sizeof(err)) < 0) {
		print_message("setup: %s\n", err);
		return -1;
	}
	d.self_pid = getpid();
	big = spawn_eater(16);
	small = spawn_eater(4);
	if (big <= 0 || small <= 0)
		return -1;
	fake = sys_ops_real;
	sys = &fake;
	return 0;
}

static int setup(void **state)
{
	char *argv[] = {"run", "--cgroup", cg, "--reserve-permille", "500", NULL};

	(void)state;
	return setup_with(5, argv);
}

/* The big eater's leader leaves once it is ready (leader_gone_mib). */
static int setup_leader_gone(void **state)
{
	int r;

	leader_gone_mib = 16;
	r = setup(state);
	leader_gone_mib = 0;
	return r || wait_leader_gone(big);
}

/* The eaters are forks of this program: their name starts "test_daemon_". */
static int setup_prefer(void **state)
{
	char *argv[] = {"run",    "--cgroup", cg, "--reserve-permille", "500",
			"--prefer", "^test_daemon_", NULL};

	(void)state;
	return setup_with(7, argv);
}

/* A rule that reads a file of each process (its status, for the real uid). */
static int setup_avoid_uid(void **state)
{
	char *argv[] = {"run",	  "--cgroup",	  cg, "--reserve-permille",
			"500",	  "--avoid-uid", "65534", NULL};

	(void)state;
	return setup_with(7, argv);
}

static int setup_kill_cgroup(void **state)
{
	char *argv[] = {"run", "--cgroup", cg, "--reserve-permille", "500", "--kill-cgroup", NULL};

	(void)state;
	return setup_with(6, argv);
}

static int setup_dry_run(void **state)
{
	char *argv[] = {"run", "--cgroup", cg, "--reserve-permille", "500", "--dry-run", NULL};

	(void)state;
	return setup_with(6, argv);
}

/* A reserve of 1 per mille: the eaters leave the group far above its high watermark. */
static int setup_dry_run_roomy(void **state)
{
	char *argv[] = {"run", "--cgroup", cg, "--reserve-permille", "1", "--dry-run", NULL};

	(void)state;
	return setup_with(6, argv);
}

static int teardown(void **state)
{
	(void)state;
	sys = &sys_ops_real;
	log_set_write(NULL); /* a test that captured the log and failed midway */
	log_set_repeat_window(LOG_REPEAT_WINDOW_USEC);
	candidate_drop(&d.scopes[0]);
	tasks_close(&d.tasks);
	freezer_remove();
	reap_child(&big);
	reap_child(&small);
	config_release(&d.cfg);
	return 0;
}

/* The victim the daemon would choose now: the bigger eater. */
static struct oom_task choose(void)
{
	size_t idx = 0;
	long points;

	assert_int_equal(scope_acquire(&d.scopes[0], d.scratch, now_usec()), 0);
	assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims, d.self_pid,
				       d.scratch, sizeof(d.scratch)),
			 0);
	assert_int_equal(d.tasks.nr, 2);
	assert_int_equal(select_bad_process(d.tasks.tasks, d.tasks.nr, 8192, &idx, &points),
			 OOM_SELECT_VICTIM);
	assert_int_equal(d.tasks.tasks[idx].pid, big);
	return d.tasks.tasks[idx];
}

static void assert_small_alive(void)
{
	assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
	assert_int_equal(kill(small, 0), 0);
	assert_int_equal(d.kills, 0);
}

/*
 * --kill-cgroup on a real v1 group: the victim ("big") through its pidfd, then the rest of its
 * group ("small") one by one (v1 has no cgroup.kill); a child of this test outside the group is
 * not touched, nor is this process (the daemon here).
 */
static void test_kill_cgroup_v1(void **state)
{
	struct oom_task victim = choose();
	struct kill_unit unit;
	pid_t outsider = fork();
	int status;

	(void)state;
	if (outsider == 0) {
		for (;;)
			pause();
	}
	assert_true(outsider > 0);
	assert_int_equal(unit_find(&d.scopes[0], d.tasks.mounts, victim.pid, d.self_pid, now_usec(),
				   d.scratch, sizeof(d.scratch), &unit),
			 0);
	assert_int_equal(unit.mode, UNIT_CGROUP);
	assert_false(unit.v2);
	assert_int_equal(daemon_kill(&d, &d.scopes[0], &victim, 0, now_usec(), &unit), 0);
	assert_int_equal(waitpid(big, &status, 0), big);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	big = 0;
	assert_int_equal(waitpid(small, &status, 0), small);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	small = 0;
	assert_int_equal(waitpid(outsider, NULL, WNOHANG), 0); /* alive */
	kill(outsider, SIGKILL);
	waitpid(outsider, NULL, 0);
}

static void test_exit_before_pidfd_open(void **state)
{
	struct oom_task victim = choose();

	(void)state;
	race_pid = victim.pid;
	fake.pidfd_open = racing_pidfd_open;
	assert_int_equal(daemon_kill(&d, &d.scopes[0], &victim, 0, now_usec(), &(struct kill_unit){0}),
			 -ESRCH);
	assert_small_alive();
}

static void test_exit_before_signal(void **state)
{
	struct oom_task victim = choose();

	(void)state;
	fake.pidfd_send_signal = racing_send_signal;
	assert_int_equal(daemon_kill(&d, &d.scopes[0], &victim, 0, now_usec(), &(struct kill_unit){0}),
			 -ESRCH);
	assert_small_alive();
}

static void test_pid_reused(void **state)
{
	struct oom_task victim = choose();

	(void)state;
	victim.start_time++; /* as if the pid now named a newer process */
	assert_int_equal(daemon_kill(&d, &d.scopes[0], &victim, 0, now_usec(), &(struct kill_unit){0}),
			 -ESRCH);
	assert_small_alive();
	assert_int_equal(kill(big, 0), 0); /* the "new" process was not touched either */
}

/* Chosen ahead of the verdict: the verdict kills the candidate through the held pidfd. */
static void test_armed_kill(void **state)
{
	int status = 0;

	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	assert_true(d.scopes[0].cand.pidfd >= 0);
	assert_int_equal(d.scopes[0].cand.task.pid, big);
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.scopes[0].cand.pidfd, -1);
	assert_int_equal(d.kills, 1);
	assert_int_equal(waitpid(big, &status, 0), big);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	big = 0;
	assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
}

/* The candidate exits between arming and the verdict: its memory is back, nothing is killed. */
static void test_armed_victim_exited(void **state)
{
	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	reap_child(&big);
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.scopes[0].cand.pidfd, -1);
	assert_small_alive();
}

/*
 * A victim killed by another scope (the machine's, say) is still exiting, and it is in this
 * scope: the verdict does not kill the candidate chosen ahead, it lists the scope and waits for
 * the victim, as a listing would.
 */
static void test_armed_waits_for_victim(void **state)
{
	struct oom_task small_task = {0};

	(void)state;
	(void)choose();
	for (size_t i = 0; i < d.tasks.nr; i++)
		if (d.tasks.tasks[i].pid == small)
			small_task = d.tasks.tasks[i];
	assert_int_equal(small_task.pid, small);
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	assert_int_equal(d.scopes[0].cand.task.pid, big);
	victim_record(&d.victims, small, small_task.start_time, now_usec()); /* "exiting" */
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.kills, 0);
	assert_int_equal(waitpid(big, NULL, WNOHANG), 0);
	assert_int_equal(kill(big, 0), 0);
	assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
}

/* Lines the log wrote while captured (log_set_write()), NUL-terminated. */
static char logged[8192];
static size_t logged_len;

static ssize_t log_capture(int fd, const void *buf, size_t len)
{
	size_t n = len < sizeof(logged) - 1 - logged_len ? len : sizeof(logged) - 1 - logged_len;

	(void)fd;
	memcpy(logged + logged_len, buf, n);
	logged_len += n;
	logged[logged_len] = '\0';
	return (ssize_t)len;
}

static unsigned int armed_lines(void)
{
	unsigned int n = 0;

	for (const char *p = logged; (p = strstr(p, "armed scope=")); p++)
		n++;
	return n;
}

/*
 * The "armed" line is at debug, also under pressure (each line costs journald refaults when the
 * machine is short of memory): none at info; at debug one for each choice, the refresh a
 * second later included.
 */
static void test_armed_line_debug(void **state)
{
	struct scope *s = &d.scopes[0];
	uint64_t t = now_usec();
	int max_prio = log_max_prio;

	(void)state;
	(void)choose();
	log_set_repeat_window(0);
	log_set_write(log_capture);
	logged_len = 0;
	s->decision.no_progress_loops = CANDIDATE_ARM_LOOPS;
	log_max_prio = LOG_PRIO_INFO;
	arm_scope(&d, s, t);
	assert_int_equal(s->cand.task.pid, big);
	assert_int_equal(armed_lines(), 0);
	log_max_prio = LOG_PRIO_DEBUG;
	arm_scope(&d, s, t + CANDIDATE_REFRESH_USEC); /* the refresh: listed and chosen again */
	assert_int_equal(s->cand.task.pid, big);
	assert_int_equal(s->cand.time_usec, t + CANDIDATE_REFRESH_USEC);
	assert_int_equal(armed_lines(), 1);
	log_set_write(NULL);
	log_set_repeat_window(LOG_REPEAT_WINDOW_USEC);
	log_max_prio = max_prio;
	s->decision.no_progress_loops = 0;
}

/* Opens of /proc/PID/task/TID (the directory itself) fail as if the thread had gone, after the
 * first @gone_after of them. */
static int gone_pid, gone_tid, gone_after;

static int thread_gone_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	char want[64];

	snprintf(want, sizeof(want), "/proc/%d/task/%d", gone_pid, gone_tid);
	if (!strcmp(path, want) && gone_after-- <= 0)
		return -ENOENT;
	return sys_ops_real.openat(dirfd, path, flags, mode);
}

/*
 * The big eater's leader has gone; it is read through its live thread (/proc/TID), chosen
 * ahead. By the verdict that thread is no longer among the process's own (faked: its tid may
 * name another process now, whose cgroup the unit's read saw): the armed kill is not taken, nor
 * the kill of the listing made then; nothing is signalled, the small eater lives.
 */
static void test_armed_thread_gone(void **state)
{
	struct scope *s = &d.scopes[0];

	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, s, now_usec()), 0);
	assert_int_equal(s->cand.task.pid, big);
	assert_true(s->cand.task.mm_tid > 0 && s->cand.task.mm_tid != big);
	gone_pid = big;
	gone_tid = s->cand.task.mm_tid;
	fake.openat = thread_gone_openat;
	/* chosen with the thread gone, or gone after the pidfd was confirmed and before the unit
	 * was read: not armed (the unit may be another process's) */
	for (gone_after = 0; gone_after <= 1; gone_after++) {
		int after = gone_after;

		assert_int_equal(daemon_arm(&d, s, now_usec()), -ESTALE);
		assert_int_equal(s->cand.pidfd, -1);
		gone_after = after;
	}
	fake.openat = sys_ops_real.openat;
	assert_int_equal(daemon_arm(&d, s, now_usec()), 0);
	fake.openat = thread_gone_openat;
	gone_after = 0;
	daemon_act(&d, s, now_usec());
	fake.openat = sys_ops_real.openat;
	assert_int_equal(d.kills, 0);
	assert_int_equal(kill(big, 0), 0);
	assert_small_alive();
}

/* kcmp(KCMP_VM) says the small eater shares every mm it is compared with: its parent's (so the
 * listing flags it a vfork child) and the big eater's. */
static int small_shares_kcmp_vm(pid_t pid1, pid_t pid2)
{
	return pid1 == small ? 0 : sys_ops_real.kcmp_vm(pid1, pid2);
}

/*
 * A process that shares the victim's mm without being its child (a vfork child's own vfork
 * child: its parent's mm is the victim's) dies with the victim, as the kernel kills every
 * sharer of the mm: killing the victim alone would free nothing while it holds the mm. Here
 * the small eater, a child of this test, plays it through a faked kcmp. It is no victim of its
 * own (a vfork child is never chosen) and no kill is counted for it.
 */
static void test_sharer_not_a_child(void **state)
{
	int status = 0;

	(void)state;
	fake.kcmp_vm = small_shares_kcmp_vm;
	(void)choose();
	daemon_act(&d, &d.scopes[0], now_usec());
	fake.kcmp_vm = sys_ops_real.kcmp_vm;
	assert_int_equal(d.kills, 1);
	assert_int_equal(waitpid(big, &status, 0), big);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	big = 0;
	for (int i = 0; i < 200 && waitpid(small, &status, WNOHANG) == 0; i++)
		usleep(10000); /* 2 s at most: a sharer left alive fails here, it does not hang */
	assert_int_equal(kill(small, 0), -1);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	small = 0;
}

/*
 * The candidate chosen ahead is SIGKILLed by another (the kernel's OOM killer, a user) after
 * it was armed, and cannot run (frozen): at the verdict its stat shows the SIGKILL pending, so
 * it is reaped, not signalled again and not counted as a kill, and waited for as a victim.
 */
static void test_armed_then_dying(void **state)
{
	char pid[32], st[32] = "", path[300];
	struct oom_task armed;
	int fd;

	(void)state;
	if (access(FREEZER_ROOT, F_OK) != 0)
		skip();
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	armed = d.scopes[0].cand.task;
	assert_int_equal(armed.pid, big);
	assert_false(armed.flags & OOM_TASK_DYING);
	snprintf(freezer, sizeof(freezer), FREEZER_ROOT "/oomguard-test-race-%d", getpid());
	assert_int_equal(mkdir(freezer, 0755), 0);
	snprintf(pid, sizeof(pid), "%d", big);
	assert_int_equal(write_file(freezer, "cgroup.procs", pid), 0);
	assert_int_equal(write_file(freezer, "freezer.state", "FROZEN"), 0);
	for (int i = 0; i < 100 && strncmp(st, "FROZEN", 6); i++) {
		snprintf(path, sizeof(path), "%s/freezer.state", freezer);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		assert_true(read(fd, st, sizeof(st) - 1) > 0);
		close(fd);
		usleep(10000);
	}
	assert_memory_equal(st, "FROZEN", 6);
	assert_int_equal(kill(big, SIGKILL), 0);
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.kills, 0);
	assert_int_equal(d.scopes[0].metrics.reaped_dying, 1);
	assert_int_equal(victim_flags(&d.victims, big, armed.start_time), OOM_TASK_VICTIM);
	assert_int_equal(kill(big, 0), 0); /* frozen still: not gone */
	assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
	freezer_remove();
}

static int listings;

static long counting_getdents_race(int fd, void *buf, size_t len)
{
	listings++;
	return sys_ops_real.getdents64(fd, buf, len);
}

/* Whether /proc/@pid/comm reads @want within a second. */
static bool comm_becomes(pid_t pid, const char *want)
{
	char path[64], buf[32];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");
		bool same = f && fgets(buf, sizeof(buf), f) && !strncmp(buf, want, strlen(want));

		if (f)
			fclose(f);
		if (same)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * The candidate is no longer what was chosen: renamed (an execve into another program), or
 * moved out of the scope's group (to the hierarchy's root here: a test child of 16 MiB, killed
 * at teardown). The verdict does not kill it through the held pidfd; it lists the scope again
 * (a directory read: the armed path reads none).
 */
static void test_armed_renamed(void **state)
{
	int status = 0;

	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	assert_int_equal(d.scopes[0].cand.task.pid, big);
	assert_int_equal(kill(big, SIGUSR1), 0);
	assert_true(comm_becomes(big, "renamed"));
	listings = 0;
	fake.getdents64 = counting_getdents_race;
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_true(listings > 0);
	/* listed again, it still is the largest: killed, by that listing's choice */
	assert_int_equal(d.kills, 1);
	assert_int_equal(waitpid(big, &status, 0), big);
	big = 0;
	assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
}

static void test_armed_moved_out(void **state)
{
	char buf[32];
	int fd;

	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	assert_int_equal(d.scopes[0].cand.task.pid, big);
	fd = open(MEMCG_ROOT "/cgroup.procs", O_WRONLY);
	assert_true(fd >= 0);
	snprintf(buf, sizeof(buf), "%d", big);
	assert_true(write(fd, buf, strlen(buf)) > 0);
	close(fd);
	listings = 0;
	fake.getdents64 = counting_getdents_race;
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_true(listings > 0);
	assert_int_equal(waitpid(big, NULL, WNOHANG), 0); /* not killed: out of the scope */
	assert_int_equal(kill(big, 0), 0);
}

/* The listed victim is moved out of the scope's group (to the hierarchy's root) just before its
 * pidfd is opened. */
static int moving_pidfd_open(pid_t pid, unsigned int flags)
{
	char buf[32];
	int fd;

	if (pid == race_pid) {
		fd = open(MEMCG_ROOT "/cgroup.procs", O_WRONLY);
		snprintf(buf, sizeof(buf), "%d", pid);
		if (fd < 0 || write(fd, buf, strlen(buf)) <= 0)
			race_pid = -1; /* the test fails on it */
		if (fd >= 0)
			close(fd);
	}
	return sys_ops_real.pidfd_open(pid, flags);
}

/* A victim that leaves the scope between the listing and the kill is not killed (the listing
 * path; the armed one is test_armed_moved_out). */
static void test_listing_moved_out(void **state)
{
	(void)state;
	race_pid = big;
	fake.pidfd_open = moving_pidfd_open;
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(race_pid, big); /* it was moved */
	assert_int_equal(d.kills, 0);
	assert_int_equal(waitpid(big, NULL, WNOHANG), 0); /* not killed: out of the scope */
	assert_int_equal(kill(big, 0), 0);
	assert_small_alive();
}

/* A candidate chosen too long ago is not used: the verdict chooses afresh. */
static void test_armed_stale(void **state)
{
	int status = 0;

	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	d.scopes[0].cand.task.pid = small; /* what a stale candidate would name; must not be used */
	d.scopes[0].cand.time_usec -= CANDIDATE_MAX_AGE_USEC + 1;
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.kills, 1);
	assert_int_equal(waitpid(big, &status, 0), big);
	big = 0;
	assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
}

/* waitpid(@pid) for 5 s at most (a kill that went elsewhere must fail the test, not hang it). */
static pid_t wait_bounded(pid_t pid, int *status)
{
	for (int i = 0; i < 500; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r != 0)
			return r;
		usleep(10000);
	}
	return 0;
}

static pid_t refuse_pid;
static int refusals_seen;

/* The pid @pidfd names (the Pid line of its fdinfo), or -1. */
static pid_t pidfd_pid(int pidfd)
{
	char path[64], line[128];
	pid_t pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

/* A security module that does not let the daemon signal @refuse_pid. */
static int refusing_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags)
{
	if (pidfd_pid(pidfd) == refuse_pid) {
		refusals_seen++;
		return -EPERM;
	}
	return sys_ops_real.pidfd_send_signal(pidfd, sig, info, flags);
}

/*
 * The largest process cannot be killed (its SIGKILL is refused): the verdicts choose it
 * VICTIM_REFUSALS_MAX times, then pass it over and kill the next, "small", instead of nothing.
 */
static void test_refused_passed_over(void **state)
{
	int status = 0;

	(void)state;
	(void)choose();
	refuse_pid = big;
	refusals_seen = 0;
	fake.pidfd_send_signal = refusing_send_signal;
	for (int i = 0; i < VICTIM_REFUSALS_MAX; i++) {
		daemon_act(&d, &d.scopes[0], now_usec());
		assert_int_equal(refusals_seen, i + 1);
		assert_int_equal(d.kills, 0);
		assert_int_equal(waitpid(small, NULL, WNOHANG), 0);
	}
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(refusals_seen, VICTIM_REFUSALS_MAX);
	assert_int_equal(d.kills, 1);
	assert_int_equal(wait_bounded(small, &status), small);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	small = 0;
	assert_int_equal(kill(big, 0), 0);
}

/* Writes @adj to @pid's oom_score_adj. Return: 0 or -errno. */
static int write_adj(pid_t pid, int adj)
{
	char path[64], val[16];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
	snprintf(val, sizeof(val), "%d", adj);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = (int)write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * A candidate whose oom_score_adj changed since it was chosen is not killed on the old choice:
 * the verdict chooses again, with what the processes say now.
 */
static void test_armed_adj_changed(void **state)
{
	int status = 0;

	(void)state;
	(void)choose(); /* the scope's size, which oom_score_adj is scaled by */
	assert_int_equal(write_adj(big, 500), 0);
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	assert_int_equal(d.scopes[0].cand.task.pid, big);
	/* Back to 0 needs no privilege (not below oom_score_adj_min, 0 here). */
	assert_int_equal(write_adj(big, 0), 0);
	assert_int_equal(write_adj(small, 1000), 0);
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.kills, 1);
	assert_int_equal(wait_bounded(small, &status), small);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	small = 0;
	assert_int_equal(kill(big, 0), 0);
}

/* A dry run walks the real path up to the signal: armed, re-checked, reported, not signalled. */
static void test_dry_run_walks_the_path(void **state)
{
	(void)state;
	(void)choose();
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.dry_run_kills, 1);
	assert_int_equal(d.scopes[0].cand.pidfd, -1);
	assert_int_equal(kill(big, 0), 0);
	assert_small_alive();
	/* Chosen at the verdict (no candidate): the same. */
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.dry_run_kills, 2);
	assert_int_equal(kill(big, 0), 0);
}

/* Where a real run's re-check finds the scope resolved, a dry run reports no kill either. */
static void test_dry_run_rechecks(void **state)
{
	(void)state;
	(void)choose();
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.dry_run_kills, 0);
	assert_int_equal(daemon_arm(&d, &d.scopes[0], now_usec()), 0);
	daemon_act(&d, &d.scopes[0], now_usec());
	assert_int_equal(d.dry_run_kills, 0);
	assert_int_equal(kill(big, 0), 0);
	assert_small_alive();
}

/* A thrashing verdict is not resolved by the free memory that comes and goes with each
 * read-ahead batch: the same roomy scope, judged thrashing, is killed (dry run). */
static void test_thrash_not_resolved_by_free(void **state)
{
	(void)state;
	(void)choose();
	d.scopes[0].round.thrash = THRASH_YES;
	daemon_act(&d, &d.scopes[0], now_usec());
	d.scopes[0].round.thrash = THRASH_NONE;
	assert_int_equal(d.dry_run_kills, 1);
	assert_int_equal(kill(big, 0), 0);
	assert_small_alive();
}

static int proc_opens;

static int counting_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (!strncmp(path, "/proc/", 6))
		proc_opens++;
	return sys_ops_real.openat(dirfd, path, flags, mode);
}

/*
 * A listing keeps each process's /proc files open for the next: a second listing opens only
 * the status files of its top tasks (TASKS_DETAIL_TOP), not stat and oom_score_adj again; a
 * process that exited is dropped and its files closed.
 */
static void test_listing_keeps_files(void **state)
{
	size_t kept;

	(void)state;
	(void)choose();
	kept = d.tasks.nr_fds;
	assert_true(kept >= 2);
	fake.openat = counting_openat;
	proc_opens = 0;
	(void)choose();
	assert_int_equal(proc_opens, 2); /* the two eaters' status; no stat, no oom_score_adj */
	assert_int_equal(d.tasks.nr_fds, kept);
	/* A process new since the last listing: left out of a known_only one, which opens no file
	 * (not even the top tasks' status). */
	{
		pid_t extra = spawn_eater(1);

		assert_true(extra > 0);
		d.tasks.known_only = true;
		proc_opens = 0;
		assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims,
					       d.self_pid, d.scratch, sizeof(d.scratch)),
				 0);
		d.tasks.known_only = false;
		assert_int_equal(d.tasks.nr, 2);
		assert_int_equal(d.tasks.skipped_new, 1);
		assert_int_equal(proc_opens, 0); /* no file opened at all */
		assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims,
					       d.self_pid, d.scratch, sizeof(d.scratch)),
				 0);
		assert_int_equal(d.tasks.nr, 3);
		reap_child(&extra);
	}
	reap_child(&big);
	assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims, d.self_pid,
				       d.scratch, sizeof(d.scratch)),
			 0);
	assert_int_equal(d.tasks.nr, 1);
	assert_int_equal(d.tasks.tasks[0].pid, small);
	assert_int_equal(d.tasks.nr_fds, kept - 1);
	tasks_close(&d.tasks);
	assert_int_equal(d.tasks.nr_fds, 0);
}

static struct proc_fds *entry_of(pid_t pid)
{
	for (size_t i = 0; i < TASKS_FD_SLOTS; i++)
		if (d.tasks.fds[i].pid == pid)
			return &d.tasks.fds[i];
	return NULL;
}

static unsigned int flags_of(pid_t pid)
{
	for (size_t i = 0; i < d.tasks.nr; i++)
		if (d.tasks.tasks[i].pid == pid)
			return d.tasks.tasks[i].flags;
	fail_msg("pid %d not listed", pid);
	return 0;
}

/*
 * The prefer regex is run when a process is first listed (or renamed), and its result kept with
 * the process's open files: a second listing takes it from there; a new config (a reload)
 * runs it again.
 */
static void test_regex_cached(void **state)
{
	struct proc_fds *e;

	(void)state;
	assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims, d.self_pid,
				       d.scratch, sizeof(d.scratch)),
			 0);
	assert_true(flags_of(big) & OOM_TASK_PREFER);
	assert_true(flags_of(small) & OOM_TASK_PREFER);
	e = entry_of(big);
	assert_non_null(e);
	assert_int_equal(e->re_serial, d.cfg.re_serial);
	e->re_flags = 0; /* what only the cache can say: regexec would find a match */
	assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims, d.self_pid,
				       d.scratch, sizeof(d.scratch)),
			 0);
	assert_false(flags_of(big) & OOM_TASK_PREFER);
	assert_true(flags_of(small) & OOM_TASK_PREFER);
	d.cfg.re_serial++; /* as after a reload */
	assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims, d.self_pid,
				       d.scratch, sizeof(d.scratch)),
			 0);
	assert_true(flags_of(big) & OOM_TASK_PREFER);
}

/*
 * The files a machine listing kept for processes outside the group stay through the group's
 * listings (a group's listing does not see them, it does not mean they exited), and go once no
 * listing saw them for TASKS_SWEEP_AGE; a machine listing drops at once what it did not see.
 */
static void test_group_listing_keeps_others(void **state)
{
	struct scope m;
	pid_t me = getpid();

	(void)state;
	assert_int_equal(scope_init_machine(&m, NULL, sys_page_shift(), d.scratch), 0);
	assert_int_equal(tasks_acquire(&d.tasks, &m, &d.cfg, &d.victims, d.self_pid, d.scratch,
				       sizeof(d.scratch)),
			 0);
	assert_non_null(entry_of(me)); /* this program: outside the group */
	assert_non_null(entry_of(big));
	for (int i = 1; i < TASKS_SWEEP_AGE; i++) {
		assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims,
					       d.self_pid, d.scratch, sizeof(d.scratch)),
				 0);
		assert_non_null(entry_of(me));
		assert_int_equal(d.tasks.nr, 2);
	}
	assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[0], &d.cfg, &d.victims, d.self_pid,
				       d.scratch, sizeof(d.scratch)),
			 0);
	assert_null(entry_of(me)); /* not seen for TASKS_SWEEP_AGE listings */
	assert_int_equal(d.tasks.nr_fds, 2);
	assert_int_equal(tasks_acquire(&d.tasks, &m, &d.cfg, &d.victims, d.self_pid, d.scratch,
				       sizeof(d.scratch)),
			 0);
	assert_non_null(entry_of(me));
	{
		pid_t gone = small;

		assert_non_null(entry_of(gone));
		reap_child(&small);
		assert_int_equal(tasks_acquire(&d.tasks, &m, &d.cfg, &d.victims, d.self_pid,
					       d.scratch, sizeof(d.scratch)),
				 0);
		assert_null(entry_of(gone)); /* the machine's listing: gone at once */
	}
	scope_close(&m);
}

static int getdents_calls;

static long counting_getdents(int fd, void *buf, size_t len)
{
	getdents_calls++;
	return sys_ops_real.getdents64(fd, buf, len);
}

/*
 * Under machine-wide pressure (known_only) a listing of the machine walks the kept files, not
 * /proc: no directory read, no file opened (with a rule that reads each process's status, not
 * even for a process renamed since); a process new since is not seen; one that exited since is
 * dropped.
 */
static void test_machine_known_only(void **state)
{
	struct scope m;
	pid_t extra, gone;
	int renamed = 0;

	(void)state;
	assert_int_equal(scope_init_machine(&m, NULL, sys_page_shift(), d.scratch), 0);
	assert_int_equal(tasks_acquire(&d.tasks, &m, &d.cfg, &d.victims, d.self_pid, d.scratch,
				       sizeof(d.scratch)),
			 0);
	extra = spawn_eater(1);
	assert_true(extra > 0);
	gone = small;
	reap_child(&small);
	/* big renamed itself since (execve does): what its rules read is stale, and is kept */
	for (size_t i = 0; i < TASKS_FD_SLOTS; i++)
		if (d.tasks.fds[i].pid == big) {
			d.tasks.fds[i].re_hash ^= 1;
			renamed++;
		}
	assert_int_equal(renamed, 1);
	fake.openat = counting_openat;
	fake.getdents64 = counting_getdents;
	proc_opens = getdents_calls = 0;
	d.tasks.known_only = true;
	assert_int_equal(tasks_acquire(&d.tasks, &m, &d.cfg, &d.victims, d.self_pid, d.scratch,
				       sizeof(d.scratch)),
			 0);
	d.tasks.known_only = false;
	assert_int_equal(getdents_calls, 0);
	assert_int_equal(proc_opens, 0);
	(void)flags_of(big); /* listed: flags_of() fails the test if not */
	for (size_t i = 0; i < d.tasks.nr; i++) {
		assert_true(d.tasks.tasks[i].pid != extra);
		assert_true(d.tasks.tasks[i].pid != gone);
	}
	assert_null(entry_of(gone));
	assert_null(entry_of(extra));
	reap_child(&extra);
	scope_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_exit_before_pidfd_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exit_before_signal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pid_reused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_kill, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_victim_exited, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_waits_for_victim, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_then_dying, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_thread_gone, setup_leader_gone, teardown),
	    cmocka_unit_test_setup_teardown(test_sharer_not_a_child, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_line_debug, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_renamed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_passed_over, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_moved_out, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listing_moved_out, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_stale, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_armed_adj_changed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kill_cgroup_v1, setup_kill_cgroup, teardown),
	    cmocka_unit_test_setup_teardown(test_dry_run_walks_the_path, setup_dry_run, teardown),
	    cmocka_unit_test_setup_teardown(test_dry_run_rechecks, setup_dry_run_roomy, teardown),
	    cmocka_unit_test_setup_teardown(test_thrash_not_resolved_by_free, setup_dry_run_roomy,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_listing_keeps_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_regex_cached, setup_prefer, teardown),
	    cmocka_unit_test_setup_teardown(test_group_listing_keeps_others, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_machine_known_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_machine_known_only, setup_avoid_uid, teardown),
	};
	int fd, r;

	if (geteuid() != 0 || access(MEMCG_ROOT "/memory.limit_in_bytes", F_OK) != 0) {
		printf("SKIP: needs root and the cgroup v1 memory controller\n");
		return 0;
	}
	snprintf(cg, sizeof(cg), MEMCG_ROOT "/oomguard-test-race-%d", getpid());
	if (mkdir(cg, 0755) < 0)
		return 1;
	snprintf(cg + strlen(cg), sizeof(cg) - strlen(cg), "/memory.limit_in_bytes");
	fd = open(cg, O_WRONLY);
	if (fd < 0 || write(fd, "33554432", 8) != 8)
		return 1;
	close(fd);
	*strrchr(cg, '/') = '\0';
	log_max_prio = LOG_PRIO_ERR;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	for (int i = 0; i < 50 && rmdir(cg) < 0; i++)
		usleep(100000);
	return r;
}
