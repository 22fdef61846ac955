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

/* Set by the handlers of SIGTERM, SIGINT, SIGUSR1 to the signal's number: the tool finishes its
 * step and exits. */
static volatile sig_atomic_t tool_stop;

static inline void tool_on_signal(int sig)
{
	tool_stop = sig;
}

/* At exit: "stopped signal=N" on stdout when a signal stopped the tool. Its exit status is then
 * 0, as at an end of its own; this line is how a harness tells a kill by SIGTERM (a daemon's
 * first signal) from that (bench/thrash-grid.sh). */
static inline void tool_report_stop(void)
{
	if (tool_stop) {
		printf("stopped signal=%d\n", (int)tool_stop);
		fflush(stdout);
	}
}

/**
 * tool_install_stop_handlers() - make SIGTERM, SIGINT and SIGUSR1 set tool_stop instead of killing,
 * and say so at exit (tool_report_stop()).
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
	if (atexit(tool_report_stop) != 0)
		return -ENOMEM;
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

/* tool_fill()'s random bytes: a pool drawn once, copied from a place that moves with the page. */
#define TOOL_FILL_POOL (64 * 1024)

/*
 * tool_fill() - write the pages of the fresh private mapping @map whose first byte lies in
 * [@from, @from + @len), each whole (a mapping is whole pages), so that each is a page of this
 * task (not the shared zero page) which a zram device compresses about @ratio to 1: its first
 * TOOL_PAGE_SIZE / @ratio bytes random (its page number, then bytes of a pool drawn once from
 * @state), the rest left zero. @ratio 1: the whole page random (incompressible); 0: one nonzero
 * byte, a page that compresses to almost nothing. Calls over consecutive ranges write each
 * page once, as one call over the whole would. Memory as programs hold it compresses 2-4 to 1
 * (zstd on desktop pages); a page with one byte set, about 85 to 1.
 */
static inline void tool_fill(unsigned char *map, size_t from, size_t len, unsigned long ratio,
			     uint64_t *state)
{
	static unsigned char pool[TOOL_FILL_POOL];
	static int drawn;
	size_t head = ratio ? TOOL_PAGE_SIZE / ratio : 0;
	size_t first = (from + TOOL_PAGE_SIZE - 1) / TOOL_PAGE_SIZE;

	for (size_t i = 0; head && !drawn && i < sizeof(pool); i += 8) {
		uint64_t x = *state;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		*state = x;
		memcpy(pool + i, &x, 8);
	}
	drawn = drawn || head;
	for (size_t page = first; page * TOOL_PAGE_SIZE < from + len; page++) {
		unsigned char *p = map + page * TOOL_PAGE_SIZE;
		uint64_t id = page;

		p[0] = (unsigned char)(1 + page % 251);
		if (head < sizeof(id))
			continue;
		memcpy(p + sizeof(id), pool + (page * 4099) % (sizeof(pool) - TOOL_PAGE_SIZE),
		       head - sizeof(id));
		memcpy(p, &id, sizeof(id));
	}
}

/* tool_fill_seed() - a nonzero state for tool_fill(), different in each process. */
static inline uint64_t tool_fill_seed(void)
{
	return UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)getpid();
}

/* tool_parse_ratio() - the -z option: a compression ratio 0 (one byte a page) to 64. */
static inline unsigned long tool_parse_ratio(const char *prog, const char *s)
{
	unsigned long v = tool_parse_ulong(prog, "-z", s);

	if (v > 64) {
		fprintf(stderr, "%s: -z: ratio %lu out of range (0 to 64)\n", prog, v);
		exit(2);
	}
	return v;
}

#endif
