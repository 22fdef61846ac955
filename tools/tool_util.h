/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by the workload programs in tools/: size parsing, clocks, RSS, the ready
 * signal and a stop flag set from signal handlers. Header-only: each tool is one program. */
#ifndef OOMGUARD_TOOL_UTIL_H
#define OOMGUARD_TOOL_UTIL_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TOOL_PAGE_SIZE   4096UL
#define TOOL_KIB_PER_MIB 1024ULL

/* Set by the handlers of SIGTERM, SIGINT, SIGUSR1: the tool finishes its step and exits. */
static volatile sig_atomic_t tool_stop;

static inline void tool_on_signal(int sig)
{
	(void)sig;
	tool_stop = 1;
}

/**
 * tool_install_stop_handlers() - make SIGTERM, SIGINT and SIGUSR1 set tool_stop instead of killing.
 * Return: 0 or -errno.
 */
static inline int tool_install_stop_handlers(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGUSR1};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tool_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}

/**
 * tool_parse_size_kib() - parse "64", "64M", "2G", "512K" into KiB; a bare number means MiB.
 * @s: the text.
 * @ret_kib: the size in KiB, written only on success.
 * Return: 0, or -EINVAL for anything else (empty, junk, zero, overflow).
 */
static inline int tool_parse_size_kib(const char *s, uint64_t *ret_kib)
{
	char *end = NULL;
	unsigned long long v, mult;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0':
	case 'M':
	case 'm':
		mult = TOOL_KIB_PER_MIB;
		break;
	case 'K':
	case 'k':
		mult = 1;
		break;
	case 'G':
	case 'g':
		mult = TOOL_KIB_PER_MIB * 1024;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (v == 0 || v > UINT64_MAX / mult)
		return -EINVAL;
	*ret_kib = v * mult;
	return 0;
}

/* Monotonic time in microseconds. */
static inline uint64_t tool_now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

/* Sleep for @msec milliseconds; returns early when a signal arrives. */
static inline void tool_sleep_msec(unsigned int msec)
{
	struct timespec ts = {.tv_sec = msec / 1000, .tv_nsec = (long)(msec % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/**
 * tool_rss_kib() - this process's resident set (VmRSS of /proc/self/status).
 * Return: KiB, or 0 when it cannot be read.
 */
static inline uint64_t tool_rss_kib(void)
{
	char line[256];
	unsigned long long kib = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/**
 * tool_signal_ready() - write one byte to @fd (when >= 0) and close it, so a waiting parent knows
 * the tool reached its steady state.
 * Return: 0 or -errno.
 */
static inline int tool_signal_ready(int fd)
{
	ssize_t n;

	if (fd < 0)
		return 0;
	do {
		n = write(fd, "r", 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

/* Parse a non-negative decimal option value; exits with a usage error on junk. */
static inline unsigned long tool_parse_ulong(const char *prog, const char *opt, const char *s)
{
	char *end = NULL;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "%s: %s: not a number: '%s'\n", prog, opt, s);
		exit(2);
	}
	return v;
}

#endif
