// SPDX-License-Identifier: GPL-2.0-only
/* The reaper's retry rule on a real child process, with process_mrelease faked through the
 * syscall table: EAGAIN every time on a live victim -> skipped after MAX_OOM_REAP_RETRIES;
 * ENOSYS -> falls back to waiting on the pidfd; the real call on a killed child -> freed.
 * A team: every try is made by each caller, at the same time, on the same pidfd, and
 * reap_one() returns only when all are back. A call that never comes back (the victim's mmap
 * lock held by a task stuck in the kernel): reported skipped at the deadline, the next victim
 * still reaped, reaper_stop() returns; alarm() turns a hang into a failure. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/log.h"
#include "daemon/reaper.h"
#include "linux/sys.h"

static struct sys_ops fake;
static int mrelease_calls, mrelease_ret;
static int sched_calls, sched_policy;
static struct scope machine;
static char scratch[SCOPE_SCRATCH_SIZE];

static int fake_mrelease(int pidfd, unsigned int flags)
{
	(void)pidfd;
	(void)flags;
	mrelease_calls++;
	return mrelease_ret;
}

/* Who asked for which policy: the callers' threads write their slot (taken atomically). */
#define SCHED_SEEN_MAX 8
static struct {
	pthread_t thread;
	int policy;
} sched_seen[SCHED_SEEN_MAX];
static int sched_seen_n;

static int fake_sched(int policy, const struct sched_param *param)
{
	int i = __atomic_fetch_add(&sched_seen_n, 1, __ATOMIC_SEQ_CST);

	(void)param;
	if (i < SCHED_SEEN_MAX) {
		sched_seen[i].thread = pthread_self();
		sched_seen[i].policy = policy;
	}
	__atomic_add_fetch(&sched_calls, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sched_policy, policy, __ATOMIC_SEQ_CST);
	return 0;
}

/* The policy @thread asked for (-1: none). */
static int policy_of(pthread_t thread)
{
	int n = __atomic_load_n(&sched_seen_n, __ATOMIC_SEQ_CST);

	for (int i = 0; i < n && i < SCHED_SEEN_MAX; i++) {
		if (pthread_equal(sched_seen[i].thread, thread))
			return sched_seen[i].policy;
	}
	return -1;
}

/* `realtime = no`: reaper_raise_priority() asks for nothing; yes: SCHED_FIFO. */
static void test_realtime_switch(void **state)
{
	(void)state;
	fake = sys_ops_real;
	fake.sched_setscheduler_self = fake_sched;
	sys = &fake;
	reaper_set_realtime(false);
	assert_int_equal(reaper_raise_priority(), 0);
	assert_int_equal(sched_calls, 0);
	reaper_set_realtime(true);
	assert_int_equal(reaper_raise_priority(), 0);
	assert_int_equal(sched_calls, 1);
	assert_int_equal(sched_policy, SCHED_FIFO);
	sys = &sys_ops_real;
}

/* A team of 2 and a spare: the team's first caller and the spare ask for SCHED_FIFO, the
 * team's second for normal priority (reaper.h: a team all at realtime priority holds every CPU
 * while a slow release lasts). */
static void test_caller_priorities(void **state)
{
	static struct reap_callers p;

	(void)state;
	fake = sys_ops_real;
	fake.sched_setscheduler_self = fake_sched;
	sys = &fake;
	reaper_set_realtime(true);
	sched_calls = sched_seen_n = 0;
	assert_int_equal(reap_callers_start(&p, 2, 3), 0);
	for (int i = 0; i < 1000 && __atomic_load_n(&sched_calls, __ATOMIC_SEQ_CST) < 3; i++)
		usleep(1000);
	assert_int_equal(policy_of(p.caller[0].thread), SCHED_FIFO);
	assert_int_equal(policy_of(p.caller[1].thread), SCHED_OTHER);
	assert_int_equal(policy_of(p.caller[2].thread), SCHED_FIFO); /* the spare */
	reap_callers_stop(&p);
	assert_int_equal(sched_calls, 3);
	/* `realtime = no`: no caller asks for anything */
	reaper_set_realtime(false);
	sched_calls = sched_seen_n = 0;
	assert_int_equal(reap_callers_start(&p, 2, 3), 0);
	usleep(50000);
	reap_callers_stop(&p);
	sys = &sys_ops_real;
	assert_int_equal(sched_calls, 0);
	reaper_set_realtime(true);
}

struct reap_case {
	const char *name;
	bool fake;
	int ret;
	bool kill_first;
	enum reap_result want;
	int want_calls; /* -1: do not check */
	int want_tries;
};

static const struct reap_case cases[] = {
    {"busy mmap lock, victim alive", true, -EAGAIN, false, REAP_SKIPPED, MAX_OOM_REAP_RETRIES,
     MAX_OOM_REAP_RETRIES},
    {"no process_mrelease: wait on the pidfd", true, -ENOSYS, true, REAP_EXITED, 1, -1},
    {"real process_mrelease on a killed child", false, 0, true, REAP_RELEASED, -1, 1},
};

/* A child that only waits to be killed (by us, or by our death if a test fails first). */
static pid_t idle_child(void)
{
	pid_t child = fork();

	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	assert_true(child > 0);
	return child;
}

static void test_reap_one(void **state)
{
	static struct reap_callers callers;

	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, sys_page_shift(), scratch), 0);
	assert_int_equal(reap_callers_start(&callers, 1, 1), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct reap_case *c = &cases[i];
		struct reap_request req;
		struct reap_report rep;
		pid_t child = idle_child();

		fake = sys_ops_real;
		if (c->fake)
			fake.process_mrelease = fake_mrelease;
		mrelease_calls = 0;
		mrelease_ret = c->ret;
		sys = &fake;
		memset(&req, 0, sizeof(req));
		req.pid = child;
		req.scope = &machine;
		req.pidfd = sys->pidfd_open(child, 0);
		assert_true(req.pidfd >= 0);
		req.kill_usec = now_usec();
		if (c->kill_first)
			assert_int_equal(sys->pidfd_send_signal(req.pidfd, SIGKILL, NULL, 0), 0);
		reap_one(&req, true, &callers, scratch, sizeof(scratch), &rep);
		sys = &sys_ops_real;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		/* A killed child may also be gone before the call: ESRCH is "exited". */
		if (!c->fake && rep.result == REAP_EXITED)
			continue;
		if (rep.result != c->want)
			fail_msg("%s: result %d, want %d", c->name, rep.result, c->want);
		if (c->want_calls >= 0 && mrelease_calls != c->want_calls)
			fail_msg("%s: %d calls, want %d", c->name, mrelease_calls, c->want_calls);
		if (c->want_tries >= 0 && rep.tries != c->want_tries)
			fail_msg("%s: %d tries, want %d", c->name, rep.tries, c->want_tries);
		if (c->want == REAP_SKIPPED && rep.kill_to_freed_usec < 900000)
			fail_msg("%s: gave up after %llu us, want ~1 s", c->name,
				 (unsigned long long)rep.kill_to_freed_usec);
	}
	reap_callers_stop(&callers);
}

/* A slow fake: each call takes 20 ms and records how many were in flight together. */
static int slow_in_flight, slow_max_in_flight, slow_calls, slow_bad_pidfd, slow_want_pidfd;

static int fake_slow_mrelease(int pidfd, unsigned int flags)
{
	int now = __atomic_add_fetch(&slow_in_flight, 1, __ATOMIC_SEQ_CST);
	int max = __atomic_load_n(&slow_max_in_flight, __ATOMIC_SEQ_CST);

	(void)flags;
	while (now > max && !__atomic_compare_exchange_n(&slow_max_in_flight, &max, now, false,
							 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	if (pidfd != __atomic_load_n(&slow_want_pidfd, __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&slow_bad_pidfd, 1, __ATOMIC_SEQ_CST);
	usleep(20000);
	__atomic_add_fetch(&slow_calls, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&slow_in_flight, 1, __ATOMIC_SEQ_CST);
	return mrelease_ret;
}

static void test_reap_team(void **state)
{
	static struct reap_callers p;
	/* released at once: 1 call each; the mmap lock always busy: every try is shared */
	const struct {
		int ret;
		enum reap_result want;
		int tries;
	} runs[] = {{0, REAP_RELEASED, 1}, {-EAGAIN, REAP_SKIPPED, MAX_OOM_REAP_RETRIES}};

	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, sys_page_shift(), scratch), 0);
	assert_int_equal(reap_callers_start(&p, 3, 3), 0);
	assert_int_equal(p.n, 3);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct reap_request req;
		struct reap_report rep;
		unsigned long calls_before = p.calls_made;
		pid_t child = idle_child();

		fake = sys_ops_real;
		fake.process_mrelease = fake_slow_mrelease;
		mrelease_ret = runs[i].ret;
		slow_calls = slow_max_in_flight = slow_bad_pidfd = 0;
		memset(&req, 0, sizeof(req));
		req.pid = child;
		req.scope = &machine;
		req.pidfd = sys_ops_real.pidfd_open(child, 0);
		assert_true(req.pidfd >= 0);
		slow_want_pidfd = req.pidfd;
		req.kill_usec = now_usec();
		sys = &fake;
		reap_one(&req, true, &p, scratch, sizeof(scratch), &rep);
		/* back only when every caller is: nothing in flight on the pidfd it closed */
		assert_int_equal(__atomic_load_n(&slow_in_flight, __ATOMIC_SEQ_CST), 0);
		sys = &sys_ops_real;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		assert_int_equal(rep.result, runs[i].want);
		assert_int_equal(rep.tries, runs[i].tries);
		assert_int_equal(rep.callers, 3);
		assert_int_equal(slow_calls, 3 * runs[i].tries);
		assert_int_equal(p.calls_made - calls_before, (unsigned long)(3 * runs[i].tries));
		assert_int_equal(slow_bad_pidfd, 0);
		/* together, not one after the other */
		assert_int_equal(slow_max_in_flight, 3);
	}
	reap_callers_stop(&p);
	assert_int_equal(p.n, 0);
}

/*
 * A process_mrelease that does not come back on the pidfds marked in block_fd, as when a task
 * stuck in the kernel holds the victim's mmap lock, until the test closes block_wr; others
 * release at once.
 */
#define BLOCK_FDS 1024
static int block_fd[BLOCK_FDS];
static int block_rd = -1, block_wr = -1;
static int blocked_now; /* calls waiting in the fake */
static struct sys_ops blocking;

static int fake_blocking_mrelease(int pidfd, unsigned int flags)
{
	char c;

	(void)flags;
	if (pidfd < 0 || pidfd >= BLOCK_FDS || !__atomic_load_n(&block_fd[pidfd], __ATOMIC_SEQ_CST))
		return 0;
	__atomic_add_fetch(&blocked_now, 1, __ATOMIC_SEQ_CST);
	while (read(block_rd, &c, 1) < 0 && errno == EINTR)
		;
	__atomic_sub_fetch(&blocked_now, 1, __ATOMIC_SEQ_CST);
	return -EAGAIN;
}

static void blocking_setup(void)
{
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	block_rd = fds[0];
	block_wr = fds[1];
	memset(block_fd, 0, sizeof(block_fd));
	blocking = sys_ops_real;
	blocking.process_mrelease = fake_blocking_mrelease;
	sys = &blocking;
}

/* Let every blocked call go, and wait (bounded) until every caller left behind is back. */
static void blocking_release(struct reap_callers *p)
{
	close(block_wr);
	block_wr = -1;
	for (int i = 0; reap_callers_lost(p) && i < 300; i++)
		usleep(10000);
	assert_int_equal(reap_callers_lost(p), 0);
	assert_int_equal(__atomic_load_n(&blocked_now, __ATOMIC_SEQ_CST), 0);
	sys = &sys_ops_real; /* after: a caller back closes the victim's pidfd through it */
	close(block_rd);
	block_rd = -1;
}

/* A victim for the blocking fake: killed first or not, its call blocked or not. */
static void victim(struct reap_request *req, pid_t child, bool kill_first, bool blocked)
{
	memset(req, 0, sizeof(*req));
	req->pid = child;
	req->scope = &machine;
	req->pidfd = sys_ops_real.pidfd_open(child, 0);
	assert_true(req->pidfd >= 0 && req->pidfd < BLOCK_FDS);
	__atomic_store_n(&block_fd[req->pidfd], blocked, __ATOMIC_SEQ_CST);
	req->kill_usec = now_usec();
	if (kill_first)
		assert_int_equal(sys_ops_real.pidfd_send_signal(req->pidfd, SIGKILL, NULL, 0), 0);
}

static void end_child(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static uint64_t msec_since(uint64_t t0)
{
	return (now_usec() - t0) / 1000;
}

/* A blocked call with a pool of one caller: skipped at the deadline, the caller counted lost;
 * the next victim, with no caller free, only waited for; the caller back serves again. */
static void test_reap_one_blocked(void **state)
{
	static struct reap_callers p;
	struct reap_request req;
	struct reap_report rep;
	pid_t a = idle_child(), d = idle_child(), e = idle_child();
	uint64_t t0;

	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, sys_page_shift(), scratch), 0);
	blocking_setup();
	assert_int_equal(reap_callers_start(&p, 1, 1), 0);

	victim(&req, a, false, true);
	t0 = now_usec();
	reap_one(&req, true, &p, scratch, sizeof(scratch), &rep);
	if (msec_since(t0) < REAP_DEADLINE_MSEC - 10 || msec_since(t0) > REAP_DEADLINE_MSEC + 300)
		fail_msg("blocked call: reported after %llu ms, want %d",
			 (unsigned long long)msec_since(t0), REAP_DEADLINE_MSEC);
	assert_int_equal(rep.result, REAP_SKIPPED);
	assert_int_equal(rep.err, ETIMEDOUT);
	assert_int_equal(rep.tries, 1);
	assert_int_equal(rep.callers, 1);
	assert_int_equal(reap_callers_lost(&p), 1);
	assert_int_equal(__atomic_load_n(&blocked_now, __ATOMIC_SEQ_CST), 1);

	victim(&req, d, true, false);
	t0 = now_usec();
	reap_one(&req, true, &p, scratch, sizeof(scratch), &rep);
	assert_true(msec_since(t0) < 300);
	assert_int_equal(rep.result, REAP_EXITED);
	assert_int_equal(rep.callers, 0);

	blocking_release(&p);
	sys = &blocking;
	victim(&req, e, true, false);
	reap_one(&req, true, &p, scratch, sizeof(scratch), &rep);
	sys = &sys_ops_real;
	assert_int_equal(rep.result, REAP_RELEASED);
	assert_int_equal(rep.callers, 1);
	reap_callers_stop(&p);
	end_child(a);
	end_child(d);
	end_child(e);
}

/* The reaper's next report, waited for up to @msec. */
static bool wait_report(struct reaper *r, int msec, struct reap_report *ret_report)
{
	struct pollfd pfd = {.fd = r->report_rd, .events = POLLIN};

	return poll(&pfd, 1, msec) == 1 && reaper_read_report(r, ret_report) == 1;
}

/*
 * The daemon's reaper, its call on victim A blocked: A is reported skipped at the deadline;
 * B, killed, is released while A's call is still out; reaper_stop() with C's call blocked
 * returns by C's deadline.
 */
static void test_reaper_blocked(void **state)
{
	static struct reaper r;
	struct reap_request req;
	struct reap_report rep;
	pid_t a = idle_child(), b = idle_child(), c = idle_child();
	uint64_t t0;

	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, sys_page_shift(), scratch), 0);
	blocking_setup();
	assert_int_equal(reaper_start(&r, true), 0);

	victim(&req, a, false, true);
	t0 = now_usec();
	assert_int_equal(reaper_submit(&r, &req), 0);
	if (!wait_report(&r, REAP_DEADLINE_MSEC + 2000, &rep))
		fail_msg("blocked call: no report within %d ms", REAP_DEADLINE_MSEC + 2000);
	if (msec_since(t0) > REAP_DEADLINE_MSEC + 300)
		fail_msg("blocked call: reported after %llu ms, want %d",
			 (unsigned long long)msec_since(t0), REAP_DEADLINE_MSEC);
	assert_int_equal(rep.pid, a);
	assert_int_equal(rep.result, REAP_SKIPPED);
	assert_true(__atomic_load_n(&blocked_now, __ATOMIC_SEQ_CST) >= 1);

	victim(&req, b, true, false);
	t0 = now_usec();
	assert_int_equal(reaper_submit(&r, &req), 0);
	if (!wait_report(&r, 1000, &rep))
		fail_msg("second victim: no report within 1000 ms while the first is blocked");
	assert_int_equal(rep.pid, b);
	assert_int_equal(rep.result, REAP_RELEASED);
	assert_true(rep.callers >= 1);
	assert_true(msec_since(t0) < 300);

	victim(&req, c, false, true);
	assert_int_equal(reaper_submit(&r, &req), 0);
	usleep(100000);
	t0 = now_usec();
	reaper_stop(&r);
	reaper_release(&r);
	if (msec_since(t0) > REAP_DEADLINE_MSEC + 300)
		fail_msg("reaper_stop with a call blocked: %llu ms",
			 (unsigned long long)msec_since(t0));
	blocking_release(&r.callers);
	end_child(a);
	end_child(b);
	end_child(c);
}

/* The group's usage file, written whole (a reader never sees half of it). */
static char usage_dir[64];

static void write_usage(uint64_t bytes)
{
	char tmp[96], path[96];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.usage", usage_dir);
	snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", usage_dir);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f, "%llu\n", (unsigned long long)bytes);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static void *usage_drops_later(void *arg)
{
	(void)arg;
	usleep(30000);
	write_usage(100ull << 20);
	return NULL;
}

/*
 * A victim killed and released whose group's usage shows its pages freed only 30 ms later (as
 * when its last mmput() fell to a reader of its /proc files): freed is what shows then, not
 * the 0 of a single read at once. A usage that never drops: 0, and the re-reads end within
 * REAP_SETTLE_MSEC. kill_to_freed_usec is the reap's time, not the re-reads'.
 */
static void test_freed_settles(void **state)
{
	static struct reap_callers callers;
	static struct scope group;

	(void)state;
	strcpy(usage_dir, "/tmp/oomguard-reaper-XXXXXX");
	assert_non_null(mkdtemp(usage_dir));
	memset(&group, 0, sizeof(group));
	group.kind = SCOPE_CGROUP_V1;
	snprintf(group.dir, sizeof(group.dir), "%s", usage_dir);
	assert_int_equal(reap_callers_start(&callers, 1, 1), 0);
	for (int drops = 1; drops >= 0; drops--) {
		struct reap_request req;
		struct reap_report rep;
		pthread_t writer;
		pid_t child = idle_child();
		uint64_t t0;

		write_usage(200ull << 20);
		memset(&req, 0, sizeof(req));
		req.pid = child;
		req.scope = &group;
		req.rss_kib = 100 << 10;
		req.usage_before_bytes = 200ull << 20;
		req.pidfd = sys->pidfd_open(child, 0);
		assert_true(req.pidfd >= 0);
		assert_int_equal(sys->pidfd_send_signal(req.pidfd, SIGKILL, NULL, 0), 0);
		req.kill_usec = t0 = now_usec();
		if (drops)
			assert_int_equal(pthread_create(&writer, NULL, usage_drops_later, NULL), 0);
		reap_one(&req, true, &callers, scratch, sizeof(scratch), &rep);
		if (drops)
			assert_int_equal(pthread_join(writer, NULL), 0);
		waitpid(child, NULL, 0);
		assert_true(rep.result == REAP_RELEASED || rep.result == REAP_EXITED);
		if (rep.freed_bytes != (drops ? 100ull << 20 : 0))
			fail_msg("usage %s: freed %llu bytes", drops ? "drops at 30 ms" : "stays",
				 (unsigned long long)rep.freed_bytes);
		if (!drops && now_usec() - t0 > (REAP_SETTLE_MSEC + 200) * 1000ull)
			fail_msg("usage stays: re-read for %llu ms",
				 (unsigned long long)(now_usec() - t0) / 1000);
		if (rep.kill_to_freed_usec > 25000)
			fail_msg("kill_to_freed_usec %llu: the re-reads counted",
				 (unsigned long long)rep.kill_to_freed_usec);
	}
	reap_callers_stop(&callers);
	write_usage(0);
	unlink(strcat(usage_dir, "/memory.usage_in_bytes"));
	*strrchr(usage_dir, '/') = '\0';
	assert_int_equal(rmdir(usage_dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reap_one), cmocka_unit_test(test_reap_team),
	    cmocka_unit_test(test_reap_one_blocked), cmocka_unit_test(test_reaper_blocked),
	    cmocka_unit_test(test_realtime_switch),
	    cmocka_unit_test(test_caller_priorities), cmocka_unit_test(test_freed_settles)};

	alarm(60);                   /* a hang is a failure */
	log_max_prio = LOG_PRIO_ERR; /* quiet: the lost callers' warnings are expected */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
