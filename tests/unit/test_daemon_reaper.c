// SPDX-License-Identifier: GPL-2.0-only
/* The reaper's retry rule on a real child process, with process_mrelease faked through the
 * syscall table: EAGAIN every time on a live victim -> skipped after MAX_OOM_REAP_RETRIES;
 * ENOSYS -> falls back to waiting on the pidfd; the real call on a killed child -> freed.
 * Helpers: every call is shared with each helper, at the same time, on the same pidfd, and
 * reap_one() returns only when all are back. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/reaper.h"
#include "linux/sys.h"

static struct sys_ops fake;
static int mrelease_calls, mrelease_ret;
static struct scope machine;
static char scratch[SCOPE_SCRATCH_SIZE];

static int fake_mrelease(int pidfd, unsigned int flags)
{
	(void)pidfd;
	(void)flags;
	mrelease_calls++;
	return mrelease_ret;
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

/* A child that only waits to be killed. */
static pid_t idle_child(void)
{
	pid_t child = fork();

	if (child == 0) {
		for (;;)
			pause();
	}
	assert_true(child > 0);
	return child;
}

static void test_reap_one(void **state)
{
	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, sys_page_shift(), scratch), 0);
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
		reap_one(&req, true, NULL, scratch, sizeof(scratch), &rep);
		sys = &sys_ops_real;
		sys->close(req.pidfd);
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
}

/* A slow fake: each call takes 30 ms and records how many were in flight together. */
static int slow_in_flight, slow_max_in_flight, slow_calls, slow_bad_pidfd, slow_want_pidfd;

static int fake_slow_mrelease(int pidfd, unsigned int flags)
{
	int now = __atomic_add_fetch(&slow_in_flight, 1, __ATOMIC_SEQ_CST);
	int max = __atomic_load_n(&slow_max_in_flight, __ATOMIC_SEQ_CST);

	(void)flags;
	while (now > max &&
	       !__atomic_compare_exchange_n(&slow_max_in_flight, &max, now, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	if (pidfd != __atomic_load_n(&slow_want_pidfd, __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&slow_bad_pidfd, 1, __ATOMIC_SEQ_CST);
	usleep(30000);
	__atomic_add_fetch(&slow_calls, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&slow_in_flight, 1, __ATOMIC_SEQ_CST);
	return mrelease_ret;
}

static void test_reap_helpers(void **state)
{
	static struct reap_helpers h;
	/* released at once: 1 call each; the mmap lock always busy: every try is shared */
	const struct {
		int ret;
		enum reap_result want;
		int tries;
	} runs[] = {{0, REAP_RELEASED, 1}, {-EAGAIN, REAP_SKIPPED, MAX_OOM_REAP_RETRIES}};

	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, sys_page_shift(), scratch), 0);
	assert_int_equal(reap_helpers_start(&h, 2), 0);
	assert_int_equal(h.n, 2);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct reap_request req;
		struct reap_report rep;
		unsigned long calls_before = h.calls;
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
		reap_one(&req, true, &h, scratch, sizeof(scratch), &rep);
		/* back only when every helper is: nothing in flight on the pidfd we close */
		assert_int_equal(__atomic_load_n(&slow_in_flight, __ATOMIC_SEQ_CST), 0);
		sys = &sys_ops_real;
		sys->close(req.pidfd);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		assert_int_equal(rep.result, runs[i].want);
		assert_int_equal(rep.tries, runs[i].tries);
		assert_int_equal(rep.callers, 3);
		assert_int_equal(slow_calls, 3 * runs[i].tries);
		assert_int_equal(h.calls - calls_before, (unsigned long)(2 * runs[i].tries));
		assert_int_equal(slow_bad_pidfd, 0);
		/* together, not one after the other */
		assert_int_equal(slow_max_in_flight, 3);
	}
	reap_helpers_stop(&h);
	assert_int_equal(h.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_reap_one),
					   cmocka_unit_test(test_reap_helpers)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
