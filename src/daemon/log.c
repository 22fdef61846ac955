// SPDX-License-Identifier: GPL-2.0-only
/* Logging: fixed buffer, one write(2) per line so that lines from two threads never mix. */
#include "daemon/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int log_max_prio = LOG_PRIO_INFO;
static int log_journal;

void log_init(void)
{
	log_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_set_journal(int journal)
{
	log_journal = journal;
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

static void log_v(int prio, int err, const char *fmt, va_list ap)
{
	char line[1024];
	size_t len;
	int n;

	if (prio > log_max_prio)
		return;
	if (log_journal)
		n = snprintf(line, sizeof(line), "<%d>", prio);
	else
		n = snprintf(line, sizeof(line), "oomguard: %s: ", prio_name(prio));
	len = n > 0 ? (size_t)n : 0;
	n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	if (n > 0)
		len += (size_t)n;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	if (err) {
		/* Known errors are static strings in glibc and musl: no allocation. */
		n = snprintf(line + len, sizeof(line) - len, ": %s", strerror(err));
		if (n > 0)
			len += (size_t)n;
		if (len > sizeof(line) - 2)
			len = sizeof(line) - 2;
	}
	line[len++] = '\n';
	if (write(STDERR_FILENO, line, len) < 0)
		return;
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
