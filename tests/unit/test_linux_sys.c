// SPDX-License-Identifier: GPL-2.0-only
/* The syscall table: file reads through it retry EINTR a bounded number of times, pass every
 * other error up as -errno, and refuse files larger than the caller's buffer; kept files are
 * opened once and re-read with one pread; a pidfd tells an exited process; errno names. */
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "linux/sys.h"

static int fail_open_err, eintr_reads_left, read_calls, close_calls, open_calls, pread_calls,
    pread_err;

static int fake_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	open_calls++;
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

static ssize_t fake_pread(int fd, void *b, size_t len, off_t off)
{
	pread_calls++;
	if (pread_err) {
		int e = pread_err;

		pread_err = 0;
		return e;
	}
	return sys_ops_real.pread(fd, b, len, off);
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
	fake.pread = fake_pread;
	fail_open_err = eintr_reads_left = read_calls = close_calls = 0;
	open_calls = pread_calls = pread_err = 0;
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

struct lines_seen {
	int n, stop_at;
	size_t longest;
	char last[64];
};

static bool see_line(char *text, void *ctx)
{
	struct lines_seen *l = ctx;

	l->n++;
	if (strlen(text) > l->longest)
		l->longest = strlen(text);
	snprintf(l->last, sizeof(l->last), "%s", text);
	return l->n != l->stop_at;
}

/*
 * A file read line by line through a buffer far smaller than it (a cgroup.procs of a fork
 * bomb's group, a container host's mountinfo): every line, a long one cut and counted, the
 * last without its newline, EINTR retried, an early stop.
 */
static void test_read_lines(void **state)
{
	char path[] = "/tmp/oomguard-test-lines-XXXXXX", buf[16];
	struct lines_seen l = {0};
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (int i = 1; i <= 30000; i++)
		fprintf(f, "%d\n", i);
	fprintf(f, "%s\n", "a line of forty bytes, cut at fifteen..");
	fprintf(f, "last");
	fclose(f);
	eintr_reads_left = SYS_EINTR_RETRIES - 1;
	assert_int_equal(sys_read_lines(NULL, path, buf, sizeof(buf), see_line, &l), 1);
	assert_int_equal(l.n, 30002);
	assert_int_equal(l.longest, sizeof(buf) - 1);
	assert_string_equal(l.last, "last");
	assert_int_equal(close_calls, 1);
	memset(&l, 0, sizeof(l));
	l.stop_at = 2;
	assert_int_equal(sys_read_lines(NULL, path, buf, sizeof(buf), see_line, &l), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.last, "2");
	assert_int_equal(sys_read_lines(NULL, "/nonexistent", buf, sizeof(buf), see_line, &l),
			 -ENOENT);
	unlink(path);
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

/* A kept file: opened once; a file read whole takes one pread; records read until empty. */
/* sys_read_kept() of the 4.4 fixture's buddyinfo through *@fd. */
static ssize_t kept(int *fd, char *buf, size_t size, enum sys_read_mode mode)
{
	return sys_read_kept(fd, "tests/fixtures/k4.4", "/proc/buddyinfo", buf, size, mode);
}

static void test_read_kept(void **state)
{
	char buf[4096], small[64];
	int fd = -1;
	ssize_t n, len;

	(void)state;
	len = kept(&fd, buf, sizeof(buf), SYS_READ_WHOLE);
	assert_true(len > 0 && fd >= 0);
	assert_int_equal(strncmp(buf, "Node 0, zone      DMA", 21), 0);
	assert_int_equal(open_calls, 1);
	assert_int_equal(pread_calls, 1);
	n = kept(&fd, buf, sizeof(buf), SYS_READ_WHOLE);
	assert_int_equal(n, len);
	assert_int_equal(open_calls, 1); /* not opened again */
	assert_int_equal(pread_calls, 2);
	n = kept(&fd, buf, sizeof(buf), SYS_READ_RECORDS);
	assert_int_equal(n, len);
	assert_int_equal(pread_calls, 4); /* the content, then the empty read that ends it */
	/* A read filling the buffer exactly may not be the whole file: read the long way. */
	n = kept(&fd, buf, (size_t)len + 1, SYS_READ_WHOLE);
	assert_int_equal(n, len);
	assert_true(pread_calls > 5);
	/* The head: one read, of what fits, never an error for a file longer than the buffer. */
	pread_calls = 0;
	n = kept(&fd, small, sizeof(small), SYS_READ_HEAD);
	assert_int_equal(n, sizeof(small) - 1);
	assert_int_equal(pread_calls, 1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(strncmp(small, buf, sizeof(small) - 1), 0);
	assert_true(fd >= 0);
	/* Too small, or a failed read: an error, and the file is closed. */
	n = kept(&fd, small, sizeof(small), SYS_READ_WHOLE);
	assert_int_equal(n, -E2BIG);
	assert_int_equal(fd, -1);
	assert_int_equal(close_calls, 1);
	assert_true(kept(&fd, buf, sizeof(buf), SYS_READ_WHOLE) > 0);
	assert_int_equal(open_calls, 2);
	pread_err = -EIO;
	assert_int_equal(kept(&fd, buf, sizeof(buf), SYS_READ_WHOLE), -EIO);
	assert_int_equal(fd, -1);
	assert_int_equal(close_calls, 2);
}

static void test_pidfd_exited(void **state)
{
	int p[2], pidfd;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_true(pid > 0);
	pidfd = sys->pidfd_open(pid, 0);
	assert_true(pidfd >= 0);
	assert_false(sys_pidfd_exited(pidfd, 0)); /* still waiting on the pipe */
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_true(sys_pidfd_exited(pidfd, 5000));
	assert_true(sys_pidfd_exited(pidfd, 0)); /* a zombie counts as exited */
	waitpid(pid, NULL, 0);
	sys->close(pidfd);
	close(p[0]);
	close(p[1]);
}

static void test_errno_name(void **state)
{
	(void)state;
	assert_string_equal(sys_errno_name(ESRCH), "ESRCH");
	assert_string_equal(sys_errno_name(-EAGAIN), "EAGAIN");
	assert_string_equal(sys_errno_name(ENOSYS), "ENOSYS");
	assert_string_equal(sys_errno_name(9999), "E?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_read_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_file_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pidfd_exited, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_errno_name, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
