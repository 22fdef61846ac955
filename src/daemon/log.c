// SPDX-License-Identifier: GPL-2.0-only
/* Logging: fixed buffers, one write per line so that lines from two threads never mix, and no
 * write that can block: a line stderr cannot take now is dropped and counted. */
#include "daemon/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/sys.h"

/*
 * Why the log never blocks, and how.
 *
 * The loop runs SCHED_FIFO and logs on stderr. Whatever reads stderr (journald's stream socket,
 * a supervisor's pipe, a terminal) may stop reading when memory is short, the moment the loop
 * is there for: a blocking write would stop the loop. So each line goes in one non-blocking
 * call; a line stderr cannot take now is dropped and counted, and the next line that goes
 * through carries before it, in the same call, "log: N lines dropped (stderr would block)".
 *
 * O_NONBLOCK is a flag of the open file description, which fd 2 shares with our parent and
 * siblings (a supervisor's pipe, a shell's terminal): set on fd 2, their blocking writes would
 * fail with EAGAIN, and a shell reading the same terminal would see EAGAIN. So, by what stderr is:
 *  1. A socket (journald's stream, JOURNAL_STREAM): send() with MSG_DONTWAIT, a flag of the
 *     call, not of the description; MSG_NOSIGNAL: journald gone is EPIPE, not a SIGPIPE death.
 *  2. A pipe, FIFO or character device (a terminal): open /proc/self/fd/2 again with O_NONBLOCK,
 *     a description of the same pipe or terminal that only this process holds. A write of at
 *     most PIPE_BUF bytes to a pipe is then all or nothing (EAGAIN). When it cannot be reopened
 *     (no /proc; EACCES, a pipe of another user; ENXIO, no reader), a pipe gets O_NONBLOCK on fd
 *     2 itself (the loop must not stop; a process sharing a daemon's stderr pipe is rare), a
 *     terminal stays blocking (a shell shares it and would break; a terminal stalls only on flow
 *     control, in front of its user).
 *  3. A regular file or block device: write() as before. O_NONBLOCK means nothing there; such a
 *     write waits for the page cache or the disk, slow under pressure but not stopped for good
 *     by a reader that stopped.
 * A short write (a socket or terminal short of room, a full disk) leaves the rest of its line in
 * a preallocated tail, written before any later line so that lines stay whole; while the tail
 * cannot go, new lines are dropped and counted. Nothing is allocated: buffers are on the stack
 * or static.
 *
 * Two threads log: the loop and the reaper. A lock serialises the write and the counts; it is
 * held only across non-blocking calls, and inherits priority, so that a reaper left at normal
 * priority (no CAP_SYS_NICE) that holds it runs at the loop's priority until it lets go.
 */

/* The longest line, as before; the notice comes on top, in its own room. */
#define LOG_LINE_MAX 1024
/* Room for the notice: "oomguard: warning: log: " + a 20-digit count + the longest reason. */
#define LOG_NOTICE_MAX 160
/* A non-blocking call is not expected to see EINTR; a bound all the same. */
#define LOG_EINTR_RETRIES 8

enum log_how {
	LOG_HOW_WRITE, /* write(2): a reopened non-blocking pipe or terminal, or a file */
	LOG_HOW_SEND   /* send(2) with MSG_DONTWAIT: a socket */
};

/* struct log_sink - where lines go, and what did not get there. Under log_lock. */
struct log_sink {
	bool ready;  /* fd and how chosen, by log_init() or by the first line */
	int fd;      /* STDERR_FILENO, or our own non-blocking description of it */
	bool own_fd; /* fd is ours to close */
	enum log_how how;
	unsigned long dropped;     /* lines dropped since the last line that went through */
	int drop_err;              /* errno of the last drop */
	size_t tail_off, tail_len; /* the unwritten end of a short write */
	char tail[LOG_NOTICE_MAX + LOG_LINE_MAX]; /* touched only by a short write */
};

/*
 * Repeated lines. A line whose text (after the prefix) is the same as one written less than
 * LOG_REPEAT_WINDOW_USEC ago is not written but counted; once that window is over, one line
 * says how many were held back ("log: N more identical lines in the last 10 s: TEXT"), and the
 * next such line is written again. Only identical text is held back: lines that differ in any
 * field (a kill's pid, a count) all go out. LOG_REPEAT_SLOTS distinct lines are followed at
 * once; a new one takes the oldest slot (whose count is said first).
 */
#define LOG_REPEAT_SLOTS 8
/* What a summary quotes of the held line: enough to recognise it. */
#define LOG_REPEAT_HEAD 120

struct log_repeat {
	uint64_t hash;       /* FNV-1a of the text; 0: free */
	uint64_t first_usec; /* when it was written */
	unsigned long held;  /* identical lines held back since */
	int prio;
	char head[LOG_REPEAT_HEAD];
};

int log_max_prio = LOG_PRIO_INFO;
static int log_journal;
static int log_stamp;
static struct log_repeat repeats[LOG_REPEAT_SLOTS];
static uint64_t repeat_window_usec = LOG_REPEAT_WINDOW_USEC;
static struct log_sink sink = {.fd = STDERR_FILENO};
static log_write_fn log_write_hook;
static pthread_mutex_t log_lock;
static pthread_once_t log_lock_once = PTHREAD_ONCE_INIT;

static void log_lock_init(void)
{
	pthread_mutexattr_t attr;
	bool inited = false;

	if (!pthread_mutexattr_init(&attr)) {
		/* Where priority inheritance is not supported, a plain mutex. */
		if (!pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT))
			inited = !pthread_mutex_init(&log_lock, &attr);
		pthread_mutexattr_destroy(&attr);
	}
	if (!inited)
		pthread_mutex_init(&log_lock, NULL);
}

static void log_lock_take(void)
{
	pthread_once(&log_lock_once, log_lock_init);
	pthread_mutex_lock(&log_lock);
}

/* Rule 2 of the comment above: a pipe, FIFO or character device. */
static void sink_open_nonblocking(const struct stat *st)
{
	struct stat st_new;
	int fd, flags;

	fd = sys->openat(AT_FDCWD, "/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd >= 0) {
		/* The same pipe or terminal, not something else under that name. */
		if (!fstat(fd, &st_new) && st_new.st_dev == st->st_dev &&
		    st_new.st_ino == st->st_ino && st_new.st_rdev == st->st_rdev) {
			sink.fd = fd;
			sink.own_fd = true;
			return;
		}
		sys->close(fd);
	}
	if (!S_ISFIFO(st->st_mode))
		return;
	flags = sys->fcntl(STDERR_FILENO, F_GETFL, 0);
	if (flags >= 0 && !(flags & O_NONBLOCK))
		sys->fcntl(STDERR_FILENO, F_SETFL, flags | O_NONBLOCK);
}

/* Choose how to write to stderr (the comment above) and start with nothing owed. */
static void sink_open(void)
{
	struct stat st;

	if (sink.own_fd)
		sys->close(sink.fd);
	sink.fd = STDERR_FILENO;
	sink.own_fd = false;
	sink.how = LOG_HOW_WRITE;
	sink.dropped = 0;
	sink.drop_err = 0;
	sink.tail_off = sink.tail_len = 0;
	sink.ready = true;
	if (fstat(STDERR_FILENO, &st) < 0)
		return; /* no stderr: each line fails (EBADF), dropped and counted */
	if (S_ISSOCK(st.st_mode))
		sink.how = LOG_HOW_SEND;
	else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		sink_open_nonblocking(&st);
}

bool log_journal_stream_matches(const char *value, int fd)
{
	unsigned long long dev, ino;
	struct stat st;
	char *end;

	if (!value || *value < '0' || *value > '9')
		return false;
	errno = 0;
	dev = strtoull(value, &end, 10);
	if (errno || *end != ':' || end[1] < '0' || end[1] > '9')
		return false;
	ino = strtoull(end + 1, &end, 10);
	if (errno || *end)
		return false;
	return !fstat(fd, &st) && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(void)
{
	/* JOURNAL_STREAM names the stream journald gave the service as its stderr; inherited by
	 * a process whose stderr is something else (a shell started from the unit, a redirect),
	 * it does not apply (systemd's own rule, sd-daemon). */
	log_journal = log_journal_stream_matches(getenv("JOURNAL_STREAM"), STDERR_FILENO);
	log_stamp = !log_journal; /* the journal stamps each line itself */
	log_lock_take();
	sink_open();
	memset(repeats, 0, sizeof(repeats));
	pthread_mutex_unlock(&log_lock);
}

void log_set_journal(int journal)
{
	log_journal = journal;
}

void log_set_stamp(int stamp)
{
	log_stamp = stamp;
}

void log_set_repeat_window(uint64_t usec)
{
	repeat_window_usec = usec;
}

void log_set_write(log_write_fn fn)
{
	log_lock_take();
	log_write_hook = fn;
	pthread_mutex_unlock(&log_lock);
}

static ssize_t log_write_real(int fd, const void *buf, size_t len)
{
	if (sink.how == LOG_HOW_SEND)
		return sys->send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	return sys->write(fd, buf, len);
}

/* One call (EINTR retried, a bounded number of times). Return: bytes written or -errno. */
static ssize_t sink_put(const char *buf, size_t len)
{
	log_write_fn fn = log_write_hook ? log_write_hook : log_write_real;
	ssize_t n;
	int tries = 0;

	do
		n = fn(sink.fd, buf, len);
	while (n == -EINTR && ++tries < LOG_EINTR_RETRIES);
	return n;
}

/* Write what is left of a short write. Return: true when nothing is left. */
static bool sink_flush_tail(void)
{
	ssize_t n;

	if (!sink.tail_len)
		return true;
	n = sink_put(sink.tail + sink.tail_off, sink.tail_len);
	if (n < 0) {
		sink.drop_err = (int)-n;
		return false;
	}
	sink.tail_off += (size_t)n;
	sink.tail_len -= (size_t)n;
	if (sink.tail_len)
		sink.drop_err = EAGAIN;
	return !sink.tail_len;
}

static const char *prio_name(int prio)
{
	switch (prio) {
	case LOG_PRIO_ERR:
		return "error";
	case LOG_PRIO_WARNING:
		return "warning";
	case LOG_PRIO_NOTICE:
		return "notice";
	case LOG_PRIO_INFO:
		return "info";
	default:
		return "debug";
	}
}

/* "2026-12-03T10:00:00.123456Z ": UTC, so that no time zone file is read (gmtime_r is pure
 * arithmetic; localtime_r may open /etc/localtime). Return: its length, 0 when unavailable. */
static size_t log_timestamp(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	int n;

	if (clock_gettime(CLOCK_REALTIME, &ts) || !gmtime_r(&ts.tv_sec, &tm))
		return 0;
	n = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     ts.tv_nsec / 1000);
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* A line's prefix: "<N>" for the journal, else "[TIMESTAMP ]oomguard: LEVEL: ". Return: its
 * length. */
static size_t log_prefix(char *buf, size_t size, int prio)
{
	size_t len = 0;
	int n;

	if (log_journal) {
		n = snprintf(buf, size, "<%d>", prio);
	} else {
		if (log_stamp)
			len = log_timestamp(buf, size);
		n = snprintf(buf + len, size - len, "oomguard: %s: ", prio_name(prio));
	}
	return n > 0 ? len + (size_t)n : 0;
}

/* The dropped-lines notice, newline included, in at most LOG_NOTICE_MAX bytes. */
static size_t sink_notice(char *buf)
{
	char reason[64];
	size_t len = log_prefix(buf, LOG_NOTICE_MAX, LOG_PRIO_WARNING);
	int n;

	if (sink.drop_err == EAGAIN)
		snprintf(reason, sizeof(reason), "stderr would block");
	else
		snprintf(reason, sizeof(reason), "stderr: %s", strerror(sink.drop_err));
	n = snprintf(buf + len, LOG_NOTICE_MAX - len, "log: %lu lines dropped (%s)", sink.dropped,
		     reason);
	if (n > 0)
		len += (size_t)n;
	if (len > LOG_NOTICE_MAX - 1)
		len = LOG_NOTICE_MAX - 1;
	buf[len++] = '\n';
	return len;
}

/*
 * sink_emit() - write one line, after what a short write left and the notice of dropped lines.
 * @line: the line, newline included, with LOG_NOTICE_MAX bytes of room before it (the notice
 *        goes there, so that notice and line are one write)
 */
static void sink_emit(char *line, size_t len)
{
	char notice[LOG_NOTICE_MAX];
	ssize_t n;

	log_lock_take();
	if (!sink.ready)
		sink_open();
	if (!sink_flush_tail()) {
		sink.dropped++;
		goto unlock;
	}
	if (sink.dropped) {
		size_t k = sink_notice(notice);

		line -= k;
		memcpy(line, notice, k);
		len += k;
	}
	n = sink_put(line, len);
	if (n < 0) {
		sink.dropped++;
		sink.drop_err = (int)-n;
		goto unlock;
	}
	sink.dropped = 0;
	if ((size_t)n < len) {
		sink.tail_off = 0;
		sink.tail_len = len - (size_t)n;
		memcpy(sink.tail, line + n, sink.tail_len);
	}
unlock:
	pthread_mutex_unlock(&log_lock);
}

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* 64-bit FNV-1a: its published offset basis and prime. Never 0 (a free slot). */
static uint64_t text_hash(const char *text, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
	return h ? h : 1;
}

/* Slots whose window is over: their counts to @out, the slots freed. Under log_lock. */
static size_t repeats_expire(uint64_t now, struct log_repeat *out)
{
	size_t n = 0;

	for (size_t i = 0; i < LOG_REPEAT_SLOTS; i++) {
		struct log_repeat *r = &repeats[i];

		if (!r->hash || now - r->first_usec < repeat_window_usec)
			continue;
		if (r->held)
			out[n++] = *r;
		r->hash = 0;
	}
	return n;
}

/*
 * Whether the line @text is held back (true), else remembered in a slot; a slot taken from
 * another line with a count goes to @evicted (its held count is 0 otherwise). Under log_lock.
 */
static bool repeats_hold(int prio, const char *text, size_t len, uint64_t now,
			 struct log_repeat *evicted)
{
	uint64_t h = text_hash(text, len);
	struct log_repeat *slot = &repeats[0];

	evicted->held = 0;
	if (!repeat_window_usec)
		return false;
	for (size_t i = 0; i < LOG_REPEAT_SLOTS; i++) {
		if (repeats[i].hash == h) {
			repeats[i].held++;
			return true;
		}
		if (slot->hash && (!repeats[i].hash || repeats[i].first_usec < slot->first_usec))
			slot = &repeats[i]; /* the first free slot, else the oldest line's */
	}
	if (slot->hash && slot->held)
		*evicted = *slot;
	slot->hash = h;
	slot->first_usec = now;
	slot->held = 0;
	slot->prio = prio;
	if (len >= LOG_REPEAT_HEAD)
		len = LOG_REPEAT_HEAD - 1;
	memcpy(slot->head, text, len);
	slot->head[len] = '\0';
	return false;
}

/* "log: N more identical lines in the last S s: TEXT" for a slot whose count is due. */
static void repeat_summary(const struct log_repeat *r, uint64_t now)
{
	char buf[LOG_NOTICE_MAX + LOG_LINE_MAX];
	char *line = buf + LOG_NOTICE_MAX;
	size_t len = log_prefix(line, LOG_LINE_MAX, r->prio);
	int n;

	n = snprintf(line + len, LOG_LINE_MAX - len,
		     "log: %lu more identical lines in the last %llu s: %s", r->held,
		     (unsigned long long)((now - r->first_usec + 999999) / 1000000), r->head);
	if (n > 0)
		len += (size_t)n;
	if (len > LOG_LINE_MAX - 2)
		len = LOG_LINE_MAX - 2;
	line[len++] = '\n';
	sink_emit(line, len);
}

void log_tick(void)
{
	struct log_repeat due[LOG_REPEAT_SLOTS];
	uint64_t now = mono_usec();
	size_t n;

	log_lock_take();
	n = repeats_expire(now, due);
	pthread_mutex_unlock(&log_lock);
	for (size_t i = 0; i < n; i++)
		repeat_summary(&due[i], now);
}

static void log_v(int prio, int err, const char *fmt, va_list ap)
{
	char buf[LOG_NOTICE_MAX + LOG_LINE_MAX];
	char *line = buf + LOG_NOTICE_MAX;
	struct log_repeat evicted;
	int saved_errno = errno;
	size_t len, prefix_len;
	bool held;
	int n;

	if (prio > log_max_prio)
		return;
	log_tick();
	len = prefix_len = log_prefix(line, LOG_LINE_MAX, prio);
	n = vsnprintf(line + len, LOG_LINE_MAX - len, fmt, ap);
	if (n > 0)
		len += (size_t)n;
	if (len > LOG_LINE_MAX - 2)
		len = LOG_LINE_MAX - 2;
	if (err) {
		/* Known errors are static strings in glibc and musl: no allocation. */
		n = snprintf(line + len, LOG_LINE_MAX - len, ": %s", strerror(err));
		if (n > 0)
			len += (size_t)n;
		if (len > LOG_LINE_MAX - 2)
			len = LOG_LINE_MAX - 2;
	}
	log_lock_take();
	held = repeats_hold(prio, line + prefix_len, len - prefix_len, mono_usec(), &evicted);
	pthread_mutex_unlock(&log_lock);
	if (evicted.held)
		repeat_summary(&evicted, mono_usec());
	if (!held) {
		line[len++] = '\n';
		sink_emit(line, len);
	}
	errno = saved_errno;
}

void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, 0, fmt, ap);
	va_end(ap);
}

void log_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(LOG_PRIO_ERR, err < 0 ? -err : err, fmt, ap);
	va_end(ap);
}

size_t escape_comm(const char *in, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0;

	if (!size)
		return 0;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;

		if (c > 0x20 && c < 0x7f && c != '\\' && c != '"') {
			if (len + 1 >= size)
				break;
			out[len++] = (char)c;
		} else {
			if (len + 4 >= size)
				break;
			out[len++] = '\\';
			out[len++] = 'x';
			out[len++] = hex[c >> 4];
			out[len++] = hex[c & 15];
		}
	}
	out[len] = '\0';
	return len;
}
