// SPDX-License-Identifier: GPL-2.0-only
/* The reaper's retry rule on a real child process, with process_mrelease faked through the
 * syscall table: EAGAIN every time on a live victim -> skipped after MAX_OOM_REAP_RETRIES;
 * ENOSYS -> falls back to waiting on the pidfd; the real call on a killed child -> freed. */
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

static void test_reap_one(void **state)
{
	(void)state;
	assert_int_equal(scope_init_machine(&machine, NULL, scratch), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct reap_case *c = &cases[i];
		struct reap_request req;
		struct reap_report rep;
		pid_t child = fork();

		if (child == 0) {
			for (;;)
				pause();
		}
		assert_true(child > 0);
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
		reap_one(&req, true, scratch, sizeof(scratch), &rep);
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

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_reap_one)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
