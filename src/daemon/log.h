/* SPDX-License-Identifier: GPL-2.0-only */
/* One log line per event on stderr. Under journald (JOURNAL_STREAM names stderr) each line starts
 * with the journal's <N> priority prefix; otherwise with a UTC timestamp and the level's name.
 * Identical lines repeated within 10 s are counted, not written. Never allocates, never blocks:
 * a line stderr cannot take now is dropped and counted (log.c says how). */
#ifndef OOMGUARD_DAEMON_LOG_H
#define OOMGUARD_DAEMON_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* syslog priorities, as the journal reads them from "<N>". */
enum log_prio {
	LOG_PRIO_ERR = 3,
	LOG_PRIO_WARNING = 4,
	LOG_PRIO_NOTICE = 5,
	LOG_PRIO_INFO = 6,
	LOG_PRIO_DEBUG = 7
};

/* The most verbose priority written; a global as the style allows. */
extern int log_max_prio;

/*
 * log_init() - choose the prefix style (journal when JOURNAL_STREAM names stderr's device and
 * inode; else a timestamp) and how to write to stderr without blocking (by what stderr is). At
 * start-up; the first line does the second part if log_init() was not called. Calling it again
 * (tests, after pointing stderr elsewhere) forgets what was dropped, left unsent or held back
 * as a repeat on the old stderr.
 */
void log_init(void);
/* log_set_journal() - force the prefix style (tests). */
void log_set_journal(int journal);
/* log_set_stamp() - force timestamps on or off outside the journal (tests). */
void log_set_stamp(int stamp);
/* The window in which identical lines are held back: 10 s, a summary every 10 s at most. */
#define LOG_REPEAT_WINDOW_USEC 10000000ull
/* log_set_repeat_window() - that window (tests; 0: hold nothing back). */
void log_set_repeat_window(uint64_t usec);

/*
 * log_journal_stream_matches() - @value, JOURNAL_STREAM's "DEVICE:INODE" (decimal), names the
 * file open on @fd: false for anything else (unset, malformed, another file).
 */
bool log_journal_stream_matches(const char *value, int fd);

/*
 * log_tick() - say, once their 10 s window is over, how many identical lines were held back
 * ("log: N more identical lines in the last S s: TEXT", at the held line's level). Any line
 * does this first; the loop calls it once a round so that a count is said when no other line
 * comes.
 */
void log_tick(void);

/*
 * The one call through which a line reaches stderr, as an entry of struct sys_ops: bytes
 * written (possibly fewer than @len) or -errno. log_set_write() replaces it (tests inject
 * EAGAIN, EINTR, EPIPE and short writes); NULL restores the real one.
 */
typedef ssize_t (*log_write_fn)(int fd, const void *buf, size_t len);
void log_set_write(log_write_fn fn);

/*
 * log_msg() - one line at @prio, if @prio <= log_max_prio. When lines were dropped since the
 * last one that went through, the same write carries first, at warning,
 * "log: N lines dropped (stderr would block)" (or "(stderr: ERROR)" for another error).
 */
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* log_errno() - as log_msg() at LOG_PRIO_ERR with ": strerror(-err)" appended. */
void log_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * escape_comm() - a process name made safe for one log line: printable ASCII other than '\\',
 * '"' and ' ' is kept, everything else becomes \xHH. Always NUL-terminates @out.
 * Return: the length written.
 */
size_t escape_comm(const char *in, char *out, size_t size);

/* Output of escape_comm() for a 16-byte comm: each byte may take 4. */
#define ESCAPED_COMM_LEN (16 * 4 + 1)

#endif
