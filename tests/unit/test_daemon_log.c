// SPDX-License-Identifier: GPL-2.0-only
/* The log never blocks: with stderr a pipe, a stream socket (journald) or a pty that nobody reads,
 * a line returns at once and is counted as dropped, and once the reader drains, the next line
 * comes after "log: N lines dropped (stderr would block)"; fd 2's shared description is left
 * blocking. EAGAIN, EINTR, EPIPE and short writes through a fake writer; two threads at once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/log.h"

/* A log call that takes longer than this has waited on its reader. */
#define LOG_CALL_MAX_USEC 100000
/* A blocking write (the bug) is cut off after this, so that the test fails rather than hangs. */
#define HANG_GUARD_USEC 500000

#include "../lib/malloc_count.h"

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void notice(char *buf, size_t size, int journal, unsigned long n, const char *reason)
{
	snprintf(buf, size, "%slog: %lu lines dropped (%s)\n",
		 journal ? "<4>" : "oomguard: warning: ", n, reason);
}

/* ---- a fake writer: a script of results, one per call ---- */

#define ALL             INT_MAX /* the call takes every byte */
#define FAKE_SCRIPT_LEN 6

struct fake_case {
	const char *name;
	int journal;
	const char *lines; /* one line per character, logged at info: "ab" logs "a" then "b" */
	int script[FAKE_SCRIPT_LEN]; /* each call's result: -errno, a byte count or ALL; 0 ends
					(then ALL) */
	int want_calls;
	const char *want; /* what stderr got */
};

#define A          "oomguard: info: a\n"
#define B          "oomguard: info: b\n"
#define C          "oomguard: info: c\n"
#define DROPPED(n) "oomguard: warning: log: " #n " lines dropped (stderr would block)\n"
#define J_DROPPED  "<4>log: 1 lines dropped (stderr would block)\n"
#define EPIPE_1    "oomguard: warning: log: 1 lines dropped (stderr: Broken pipe)\n"

/* name, journal, lines logged, the writes' results, writes wanted, what stderr gets */
static const struct fake_case fake_cases[] = {
    {"lines as they were", 0, "ab", {0}, 2, A B},
    {"journal prefix as it was", 1, "a", {0}, 1, "<6>a\n"},
    {"blocked twice: notice, next line: one write", 0, "abc", {-EAGAIN, -EAGAIN}, 3, DROPPED(2) C},
    {"the count starts again after the notice", 0, "abc", {-EAGAIN}, 3, DROPPED(1) B C},
    {"journal: the notice at warning", 1, "ab", {-EAGAIN}, 2, J_DROPPED "<6>b\n"},
    {"short write: its rest first, lines stay whole", 0, "ab", {5}, 3, A B},
    {"short write, rest blocked: next line dropped", 0, "abc", {5, -EAGAIN}, 4, A DROPPED(1) C},
    {"short write of notice and line: rest first", 0, "abc", {-EAGAIN, 10}, 4, DROPPED(1) B C},
    {"EINTR is retried", 0, "a", {-EINTR, -EINTR}, 3, A},
    {"reader gone: the notice names the error", 0, "ab", {-EPIPE}, 2, EPIPE_1 B},
};

static const int *fake_script;
static int fake_calls;
static char fake_got[4096]; /* NUL-terminated */
static size_t fake_got_len;

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	int r = fake_calls < FAKE_SCRIPT_LEN ? fake_script[fake_calls] : ALL;

	(void)fd;
	fake_calls++;
	if (r < 0)
		return r;
	if (r > 0 && r != ALL && (size_t)r < len)
		len = (size_t)r;
	if (len > sizeof(fake_got) - 1 - fake_got_len)
		len = sizeof(fake_got) - 1 - fake_got_len;
	memcpy(fake_got + fake_got_len, buf, len);
	fake_got_len += len;
	return (ssize_t)len;
}

static void test_fake_writer(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fake_cases) / sizeof(fake_cases[0]); i++) {
		const struct fake_case *c = &fake_cases[i];

		log_init();
		log_set_stamp(0);
		log_set_journal(c->journal);
		log_set_write(fake_write);
		fake_script = c->script;
		fake_calls = 0;
		fake_got_len = 0;
		mallocs = 0;
		counting = 1;
		for (const char *l = c->lines; *l; l++)
			log_msg(LOG_PRIO_INFO, "%c", *l);
		counting = 0;
		log_set_write(NULL);
		log_set_journal(0);
		fake_got[fake_got_len] = '\0';
		if (strcmp(fake_got, c->want))
			fail_msg("%s: got\n%s\nwant\n%s", c->name, fake_got, c->want);
		if (fake_calls != c->want_calls)
			fail_msg("%s: %d write calls, want %d", c->name, fake_calls, c->want_calls);
		if (mallocs)
			fail_msg("%s: %lu mallocs", c->name, mallocs);
	}
}

static void test_log_errno_line(void **state)
{
	int saved = errno;

	(void)state;
	log_init();
	log_set_stamp(0);
	log_set_write(fake_write);
	fake_script = (const int[FAKE_SCRIPT_LEN]){0};
	fake_calls = 0;
	fake_got_len = 0;
	errno = ENOENT;
	log_errno(-EPIPE, "x pid=%d", 7);
	assert_int_equal(errno, ENOENT); /* the caller's errno survives */
	errno = saved;
	log_set_write(NULL);
	fake_got[fake_got_len] = '\0';
	assert_string_equal(fake_got, "oomguard: error: x pid=7: Broken pipe\n");
}

/* ---- the real thing: stderr a pipe, a socket or a terminal whose reader stops ---- */

enum chan {
	CHAN_PIPE,   /* a supervisor's pipe */
	CHAN_STREAM, /* journald's stream socket */
	CHAN_PTY     /* a terminal whose user stopped reading */
};

struct stall_case {
	const char *name;
	enum chan chan;
	int journal;
	int blocked; /* lines logged while the reader does not read */
};

static const struct stall_case stall_cases[] = {
    {"pipe", CHAN_PIPE, 0, 3},
    {"pipe, one line", CHAN_PIPE, 0, 1},
    {"pipe, journal prefix", CHAN_PIPE, 1, 40},
    {"stream socket (journald)", CHAN_STREAM, 1, 5},
    {"stream socket, plain prefix", CHAN_STREAM, 0, 1},
    {"terminal (pty)", CHAN_PTY, 0, 4},
};

/* What happened while stderr was redirected; checked once stderr is back. */
struct stall_result {
	const char *err; /* a set-up step that failed */
	uint64_t max_call_usec;
	int calls;
	size_t filled, drained;
	int fd2_nonblock; /* O_NONBLOCK on fd 2's (shared) description after the calls */
	unsigned long mallocs;
	char after[512]; /* what the reader got for the first line after draining */
	char again[512]; /* and for the next */
};

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Fill @fd without blocking: through O_NONBLOCK on the test's own description (cleared after,
 * so that a blocking log would block). A pty moves what it holds to its reader's side from a
 * kernel worker: filled again after that settled.
 */
static size_t fill(int fd, enum chan chan)
{
	static const size_t chunks[] = {65536, 4096, 256, 1};
	static char junk[65536];
	int flags = fcntl(fd, F_GETFL);
	size_t total = 0;
	ssize_t n;

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	for (int round = 0; round < (chan == CHAN_PTY ? 3 : 1); round++) {
		if (round)
			usleep(50000);
		for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
			do {
				n = write(fd, junk, chunks[i]);
				if (n > 0)
					total += (size_t)n;
			} while (n > 0);
		}
	}
	fcntl(fd, F_SETFL, flags);
	return total;
}

/*
 * Read what there is (@rd is non-blocking): until nothing comes for @idle_msec (a pty's data
 * arrives from a kernel worker). Return: bytes read; the first @size - 1 in @buf, if any.
 */
static size_t drain(int rd, char *buf, size_t size, int idle_msec)
{
	struct pollfd pfd = {.fd = rd, .events = POLLIN};
	char junk[65536];
	size_t total = 0;
	ssize_t n;

	while (poll(&pfd, 1, idle_msec) > 0 && (n = read(rd, junk, sizeof(junk))) > 0) {
		if (buf && total + (size_t)n < size)
			memcpy(buf + total, junk, (size_t)n);
		total += (size_t)n;
	}
	if (buf)
		buf[total < size ? total : size - 1] = '\0';
	return total;
}

static void stall_run(const struct stall_case *c, int rd, struct stall_result *r)
{
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART: a blocked write ends */
	struct sigaction old_sa;
	struct itimerval guard = {.it_value = {0, HANG_GUARD_USEC}}, off = {{0, 0}, {0, 0}};
	int idle_msec = c->chan == CHAN_PTY ? 100 : 0;

	r->filled = fill(STDERR_FILENO, c->chan);
	log_init();
	log_set_stamp(0);
	log_set_journal(c->journal);
	sigaction(SIGALRM, &sa, &old_sa);
	setitimer(ITIMER_REAL, &guard, NULL);
	mallocs = 0;
	counting = 1;
	for (r->calls = 0; r->calls < c->blocked; r->calls++) {
		uint64_t t0 = now_usec(), took;

		log_msg(LOG_PRIO_WARNING, "kill scope=/ pid=%d comm=eater", 100 + r->calls);
		took = now_usec() - t0;
		if (took > r->max_call_usec)
			r->max_call_usec = took;
		if (took >= LOG_CALL_MAX_USEC) {
			r->calls++;
			break; /* it blocked: the guard cut it off; do not wait again */
		}
	}
	counting = 0;
	r->mallocs = mallocs;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	r->fd2_nonblock = !!(fcntl(STDERR_FILENO, F_GETFL) & O_NONBLOCK);
	r->drained = drain(rd, NULL, 0, idle_msec);
	log_msg(LOG_PRIO_NOTICE, "after");
	drain(rd, r->after, sizeof(r->after), idle_msec);
	log_msg(LOG_PRIO_NOTICE, "again");
	drain(rd, r->again, sizeof(r->again), idle_msec);
}

/* A pty in raw mode (no CR added): fds[0] the reader's side (master), fds[1] the terminal. */
static int open_pty(int fds[2])
{
	struct termios tio;
	const char *name;

	fds[0] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fds[0] < 0)
		return -1;
	if (grantpt(fds[0]) || unlockpt(fds[0]) || !(name = ptsname(fds[0])) ||
	    (fds[1] = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		close(fds[0]);
		return -1;
	}
	tcgetattr(fds[1], &tio);
	cfmakeraw(&tio);
	tcsetattr(fds[1], TCSANOW, &tio);
	return 0;
}

static int open_chan(enum chan chan, int fds[2])
{
	switch (chan) {
	case CHAN_PIPE:
		return pipe2(fds, O_CLOEXEC);
	case CHAN_STREAM:
		return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
	default:
		return open_pty(fds);
	}
}

static void stall(const struct stall_case *c, struct stall_result *r)
{
	int fds[2], saved;

	memset(r, 0, sizeof(*r));
	if (open_chan(c->chan, fds)) {
		r->err = "cannot open the channel";
		return;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	saved = dup(STDERR_FILENO);
	if (saved < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
		r->err = "dup";
	} else {
		stall_run(c, fds[0], r);
		dup2(saved, STDERR_FILENO); /* stderr back, before anything can fail */
	}
	log_init();
	log_set_stamp(0);
	log_set_journal(0);
	if (saved >= 0)
		close(saved);
	close(fds[0]);
	close(fds[1]);
}

/* Every case is run and each failure printed: one stalled write must not hide the others. */
#define CASE_FAIL(...)                                                                             \
	do {                                                                                       \
		print_error(__VA_ARGS__);                                                          \
		failures++;                                                                        \
	} while (0)

static void test_stalled_reader(void **state)
{
	int failures = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(stall_cases) / sizeof(stall_cases[0]); i++) {
		const struct stall_case *c = &stall_cases[i];
		const char *pfx = c->journal ? "<5>" : "oomguard: notice: ";
		struct stall_result r;
		char want[512];
		size_t len;

		stall(c, &r);
		if (r.err) {
			CASE_FAIL("%s: %s: %s\n", c->name, r.err, strerror(errno));
			continue;
		}
		if (r.max_call_usec >= LOG_CALL_MAX_USEC)
			CASE_FAIL("%s: a log call took %llu us with its reader stalled (line %d)\n",
				  c->name, (unsigned long long)r.max_call_usec, r.calls);
		if (r.filled == 0 || r.drained != r.filled)
			CASE_FAIL("%s: filled %zu bytes, drained %zu: a dropped line got in\n",
				  c->name, r.filled, r.drained);
		if (r.fd2_nonblock)
			CASE_FAIL("%s: O_NONBLOCK set on fd 2's shared description\n", c->name);
		if (r.mallocs)
			CASE_FAIL("%s: %lu mallocs while logging\n", c->name, r.mallocs);
		notice(want, sizeof(want), c->journal, (unsigned long)c->blocked,
		       "stderr would block");
		len = strlen(want);
		snprintf(want + len, sizeof(want) - len, "%safter\n", pfx);
		if (strcmp(r.after, want))
			CASE_FAIL("%s: after draining got\n%swant\n%s", c->name, r.after, want);
		snprintf(want, sizeof(want), "%sagain\n", pfx);
		if (strcmp(r.again, want))
			CASE_FAIL("%s: next line got\n%swant\n%s", c->name, r.again, want);
	}
	assert_int_equal(failures, 0);
}

/* ---- two threads (the loop and the reaper) on a slow pipe ---- */

#define THREAD_LINES 2000

static volatile int writers_done;

static void *writer(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < THREAD_LINES; i++)
		log_msg(LOG_PRIO_INFO, "t%d n%d", id, i);
	__atomic_add_fetch(&writers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Every line whole: a writer's line or a notice; lines seen + lines dropped = lines logged. */
static const char *count_lines(char *text, unsigned long *ret_seen, unsigned long *ret_dropped)
{
	int next[2] = {0, 0};
	char *save = NULL;

	*ret_seen = *ret_dropped = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long n;
		int id, i, end = 0;

		if (sscanf(l, "oomguard: info: t%d n%d%n", &id, &i, &end) == 2 && !l[end] &&
		    (id == 0 || id == 1) && i >= next[id]) {
			next[id] = i + 1;
			++*ret_seen;
		} else if (sscanf(l,
				  "oomguard: warning: log: %lu lines dropped (stderr would "
				  "block)%n",
				  &n, &end) == 1 &&
			   !l[end]) {
			*ret_dropped += n;
		} else if (!strcmp(l, "oomguard: info: end")) {
			++*ret_seen;
		} else {
			return l;
		}
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	static char text[1 << 20];
	int fds[2], saved;
	pthread_t t[2];
	size_t len = 0;
	unsigned long seen, dropped;
	const char *bad;

	(void)state;
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	fcntl(fds[1], F_SETPIPE_SZ, 4096); /* small: the readers below fall behind */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	dup2(fds[1], STDERR_FILENO);
	log_init();
	log_set_stamp(0);
	writers_done = 0;
	pthread_create(&t[0], NULL, writer, (void *)0);
	pthread_create(&t[1], NULL, writer, (void *)1);
	while (__atomic_load_n(&writers_done, __ATOMIC_SEQ_CST) < 2) {
		ssize_t n = read(fds[0], text + len, 512);

		if (n > 0 && len + (size_t)n < sizeof(text) - 1)
			len += (size_t)n;
		usleep(100);
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	len += drain(fds[0], text + len, sizeof(text) - len, 0);
	log_msg(LOG_PRIO_INFO, "end");
	len += drain(fds[0], text + len, sizeof(text) - len, 0);
	dup2(saved, STDERR_FILENO);
	close(saved);
	log_init();
	log_set_stamp(0);
	close(fds[0]);
	close(fds[1]);

	text[len] = '\0';
	bad = count_lines(text, &seen, &dropped);
	if (bad)
		fail_msg("a line not whole, or out of order: \"%s\"", bad);
	if (seen + dropped != 2 * THREAD_LINES + 1)
		fail_msg("%lu lines seen + %lu dropped, want %d", seen, dropped,
			 2 * THREAD_LINES + 1);
}

/* ---- timestamps, JOURNAL_STREAM, repeated lines ---- */

/* Outside the journal each line starts with a UTC timestamp; under it, with <N> alone. */
static void test_timestamp(void **state)
{
	int y, mo, d, h, mi, sec, usec, end = 0;

	(void)state;
	log_init();
	log_set_journal(0);
	log_set_stamp(1);
	log_set_write(fake_write);
	fake_script = (const int[FAKE_SCRIPT_LEN]){0};
	fake_calls = 0;
	fake_got_len = 0;
	log_msg(LOG_PRIO_NOTICE, "stamped");
	log_set_journal(1);
	log_msg(LOG_PRIO_NOTICE, "journal");
	log_set_journal(0);
	log_set_stamp(0);
	log_set_write(NULL);
	fake_got[fake_got_len] = '\0';
	assert_int_equal(sscanf(fake_got, "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ oomguard: notice: stamped\n%n",
				&y, &mo, &d, &h, &mi, &sec, &usec, &end),
			 7);
	assert_true(end > 0);
	assert_true(y >= 2024 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31);
	assert_string_equal(fake_got + end, "<5>journal\n");
}

/* JOURNAL_STREAM counts only when it names the very file on stderr (device and inode). */
static void test_journal_stream(void **state)
{
	char good[64], other[64];
	struct stat st;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(good, sizeof(good), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	snprintf(other, sizeof(other), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	assert_true(log_journal_stream_matches(good, fd));
	assert_false(log_journal_stream_matches(other, fd));
	assert_false(log_journal_stream_matches("1:1", fd));
	assert_false(log_journal_stream_matches(NULL, fd));
	assert_false(log_journal_stream_matches("", fd));
	assert_false(log_journal_stream_matches("12", fd));
	assert_false(log_journal_stream_matches("x:1", fd));
	strcat(good, "x");
	assert_false(log_journal_stream_matches(good, fd));
	close(fd);
}

/*
 * The same line 50 times: written once, then one count when its window is over; a line that
 * differs (another pid) is always written; after the window the line is written again.
 */
static void test_repeats(void **state)
{
	(void)state;
	log_init();
	log_set_stamp(0);
	log_set_repeat_window(200000);
	log_set_write(fake_write);
	fake_script = (const int[FAKE_SCRIPT_LEN]){0};
	fake_calls = 0;
	fake_got_len = 0;
	mallocs = 0;
	counting = 1;
	for (int i = 0; i < 50; i++) {
		log_errno(-ENOMEM, "cannot list tasks of scope=%s", "machine");
		log_msg(LOG_PRIO_WARNING, "kill pid=%d", 100 + i % 2 + (i >= 10 ? 2 : 0));
	}
	counting = 0;
	usleep(250000);
	log_tick();
	log_errno(-ENOMEM, "cannot list tasks of scope=%s", "machine");
	log_tick(); /* nothing held: nothing said */
	log_set_write(NULL);
	log_set_repeat_window(LOG_REPEAT_WINDOW_USEC);
	fake_got[fake_got_len] = '\0';
	assert_string_equal(
	    fake_got,
	    "oomguard: error: cannot list tasks of scope=machine: Cannot allocate memory\n"
	    "oomguard: warning: kill pid=100\n"
	    "oomguard: warning: kill pid=101\n"
	    "oomguard: warning: kill pid=102\n"
	    "oomguard: warning: kill pid=103\n"
	    "oomguard: error: log: 49 more identical lines in the last 1 s: cannot list tasks of "
	    "scope=machine: Cannot allocate memory\n"
	    "oomguard: warning: log: 4 more identical lines in the last 1 s: kill pid=100\n"
	    "oomguard: warning: log: 4 more identical lines in the last 1 s: kill pid=101\n"
	    "oomguard: warning: log: 19 more identical lines in the last 1 s: kill pid=102\n"
	    "oomguard: warning: log: 19 more identical lines in the last 1 s: kill pid=103\n"
	    "oomguard: error: cannot list tasks of scope=machine: Cannot allocate memory\n");
	assert_int_equal(mallocs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fake_writer),
	    cmocka_unit_test(test_log_errno_line),
	    cmocka_unit_test(test_stalled_reader),
	    cmocka_unit_test(test_two_threads),
	    cmocka_unit_test(test_timestamp),
	    cmocka_unit_test(test_journal_stream),
	    cmocka_unit_test(test_repeats),
	};

	malloc_count_install();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
