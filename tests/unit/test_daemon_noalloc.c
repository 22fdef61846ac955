// SPDX-License-Identifier: GPL-2.0-only
/* No heap allocation in the loop after start-up: count malloc calls (through the sanitizer's
 * allocation hooks) over many rounds of the machine scope and a v1 cgroup scope read from a
 * fixture tree, including the victim listing and choice that an OOM verdict runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/options.h"
#include "daemon/log.h"

#include "../lib/malloc_count.h"

static struct daemon d;

static int setup(void **state)
{
	char err[256];
	char *argv[] = {"run",       "--root",     "tests/fixtures/k6.18",
			"--machine", "--cgroup",   "/sys/fs/cgroup/memory/oomguard-fixture",
			"--prefer",  "^(java|x)$", NULL};

	(void)state;
	daemon_init(&d, 8, argv);
	if (options_parse(&d.cfg, 8, argv, err, sizeof(err)) != 0 ||
	    daemon_setup_scopes(&d, err, sizeof(err)) < 0) {
		print_message("setup: %s\n", err);
		return -1;
	}
	malloc_count_install();
	daemon_round(&d); /* start-up's first round */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	config_release(&d.cfg);
	return 0;
}

static void test_hook_counts(void **state)
{
	void *volatile p;

	(void)state;
	mallocs = 0;
	counting = 1;
	p = malloc(16); /* the control: a test that could not see mallocs proves nothing */
	counting = 0;
	free(p);
	assert_int_equal(mallocs, 1);
}

static void test_rounds_do_not_allocate(void **state)
{
	size_t idx;
	long points;

	(void)state;
	assert_int_equal(d.nr_scopes, 2);
	mallocs = 0;
	counting = 1;
	for (int i = 0; i < 200; i++) {
		daemon_round(&d);
		assert_int_equal(tasks_acquire(&d.tasks, &d.scopes[1], &d.cfg, &d.victims, 1,
					       d.scratch, sizeof(d.scratch)),
				 0);
		select_bad_process(d.tasks.tasks, d.tasks.nr, 131072, &idx, &points);
	}
	counting = 0;
	assert_int_equal(d.rounds, 201);
	assert_int_equal(d.tasks.nr, 1); /* the fixture cgroup holds pid 1234 */
	assert_true(d.scopes[0].decided && d.scopes[1].decided);
	assert_int_equal(mallocs, 0);
}

/* systemd's notifications from the loop: statuses, pings, a reload's messages, to a real
 * socket and to one that refuses them (the drop is counted and said), allocate nothing. */
static void test_notify_does_not_allocate(void **state)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct notify n;
	char err[256], text[64];
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)state;
	assert_true(s >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/oomguard-test-noalloc-%d", getpid());
	unlink(a.sun_path);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	setenv("NOTIFY_SOCKET", a.sun_path, 1);
	setenv("WATCHDOG_USEC", "1000", 1);
	assert_int_equal(notify_open(&n, getpid(), err, sizeof(err)), 0);
	assert_true(n.fd >= 0 && n.watchdog_usec == 1000);
	mallocs = 0;
	counting = 1;
	for (int i = 0; i < 50; i++) {
		snprintf(text, sizeof(text), "watching 2 scopes; %d kills", i / 10);
		notify_status(&n, i ? NULL : "READY=1\n", text);
		notify_watchdog(&n, (uint64_t)i * 1000);
		if (i == 25)
			close(s); /* gone: ECONNREFUSED, dropped */
	}
	counting = 0;
	assert_int_equal(mallocs, 0);
	assert_true(n.dropped > 0);
	notify_close(&n);
	unlink(a.sun_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hook_counts),
	    cmocka_unit_test(test_rounds_do_not_allocate),
	    cmocka_unit_test(test_notify_does_not_allocate),
	};

	log_max_prio = LOG_PRIO_ERR;
	return cmocka_run_group_tests(tests, setup, teardown);
}
