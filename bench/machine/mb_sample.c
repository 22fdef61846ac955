// SPDX-License-Identifier: GPL-2.0-only
// mb_sample: the machine bench's memory sampler. Every 200 ms reads /proc/meminfo,
// /proc/pressure/memory and /proc/vmstat and prints "MS MemAvailable_kib SwapFree_kib
// some_total_us full_total_us oom_kill refaults" (MS: CLOCK_REALTIME; refaults: pages,
// workingset_refault_file + _anon, or workingset_refault before 5.9). Its memory is locked and
// it does no file I/O but those reads and its output (a tmpfs file), so a machine that stalls
// everything else still gets its samples.
// Stops on SIGTERM. Usage: mb_sample
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* read_file() - the start of @path into @buf (NUL-terminated). Return: bytes read or -1. */
static long read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (long)n;
}

/* field() - the number after @key in @text, or -1. */
static long long field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

int main(void)
{
	static char buf[8192];
	struct sigaction sa = {.sa_handler = on_signal};
	struct timespec next;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		perror("mb_sample: mlockall");
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		long long avail = -1, swapfree = -1, some = -1, full = -1, oom = -1, refault = -1;
		struct timespec now;
		const char *f;

		if (read_file("/proc/meminfo", buf, sizeof(buf)) > 0) {
			avail = field(buf, "\nMemAvailable:");
			swapfree = field(buf, "\nSwapFree:");
		}
		if (read_file("/proc/pressure/memory", buf, sizeof(buf)) > 0) {
			some = field(buf, "total=");
			f = strstr(buf, "full");
			full = f ? field(f, "total=") : -1;
		}
		if (read_file("/proc/vmstat", buf, sizeof(buf)) > 0) {
			long long file = field(buf, "\nworkingset_refault_file ");
			long long anon = field(buf, "\nworkingset_refault_anon ");

			oom = field(buf, "\noom_kill ");
			refault = file >= 0 ? file + (anon > 0 ? anon : 0)
					    : field(buf, "\nworkingset_refault ");
		}
		clock_gettime(CLOCK_REALTIME, &now);
		printf("%lld %lld %lld %lld %lld %lld %lld\n",
		       (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000, avail, swapfree, some, full,
		       oom, refault);
		fflush(stdout);
		next.tv_nsec += 200000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
