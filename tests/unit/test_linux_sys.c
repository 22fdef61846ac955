// SPDX-License-Identifier: GPL-2.0-only
/* The syscall table: file reads through it retry EINTR a bounded number of times, pass every
 * other error up as -errno, and refuse files larger than the caller's buffer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "linux/sys.h"

static int fail_open_err, eintr_reads_left, read_calls, close_calls;

static int fake_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (fail_open_err)
		return fail_open_err;
	return sys_ops_real.openat(dirfd, path, flags, mode);
}

static ssize_t fake_read(int fd, void *b, size_t len)
{
	read_calls++;
	if (eintr_reads_left > 0) {
		eintr_reads_left--;
		return -EINTR;
	}
	return sys_ops_real.read(fd, b, len);
}

static int fake_close(int fd)
{
	close_calls++;
	return sys_ops_real.close(fd);
}

static struct sys_ops fake;

static int setup(void **state)
{
	(void)state;
	fake = sys_ops_real;
	fake.openat = fake_openat;
	fake.read = fake_read;
	fake.close = fake_close;
	fail_open_err = eintr_reads_left = read_calls = close_calls = 0;
	sys = &fake;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sys = &sys_ops_real;
	return 0;
}

struct read_case {
	const char *name;
	int open_err;
	int eintr;
	size_t size;
	ssize_t want; /* >= 0: a length is expected (compared with the real file) */
};

static const struct read_case cases[] = {
    {"plain", 0, 0, 4096, 1},
    {"eintr below the bound", 0, SYS_EINTR_RETRIES - 1, 4096, 1},
    {"eintr at the bound", 0, SYS_EINTR_RETRIES, 4096, -EINTR},
    {"enomem on open", -ENOMEM, 0, 4096, -ENOMEM},
    {"esrch on open (process gone)", -ESRCH, 0, 4096, -ESRCH},
    {"buffer too small", 0, 0, 8, -E2BIG},
};

static void test_read_file(void **state)
{
	char buf[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct read_case *c = &cases[i];
		ssize_t n;

		setup(NULL);
		fail_open_err = c->open_err;
		eintr_reads_left = c->eintr;
		n = sys_read_file("tests/fixtures/k4.4", "/proc/buddyinfo", buf, c->size);
		if (c->want >= 0) {
			if (n <= 0 || strncmp(buf, "Node 0, zone      DMA", 21))
				fail_msg("%s: got %zd", c->name, n);
		} else if (n != c->want) {
			fail_msg("%s: got %zd, want %zd", c->name, n, c->want);
		}
		if (!c->open_err && close_calls != 1)
			fail_msg("%s: %d closes", c->name, close_calls);
		if (n < 0)
			assert_int_equal(buf[0], '\0');
	}
}

static void test_write_file_errors(void **state)
{
	(void)state;
	fail_open_err = -EACCES;
	assert_int_equal(sys_write_file(NULL, "/nonexistent", "1"), -EACCES);
	fail_open_err = 0;
	assert_int_equal(sys_write_file("tests/fixtures", "/no/such/file", "1"), -ENOENT);
	assert_int_equal(sys_read_file(NULL, "x", (char[1]){0}, 1), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_read_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_file_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
