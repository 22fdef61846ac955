// SPDX-License-Identifier: GPL-2.0-only
// mb_sample: the machine bench's memory sampler. Every 200 ms reads /proc/meminfo,
// /proc/pressure/memory and /proc/vmstat and prints "MS MemAvailable_kib SwapFree_kib
// some_total_us full_total_us oom_kill refaults" (MS: CLOCK_REALTIME; refaults: pages,
// workingset_refault_file + _anon, or workingset_refault before 5.9). Its memory is locked and
// it does no file I/O but those reads and its output (a tmpfs file), so a machine that stalls
// everything else still gets its samples.
// With -g FILE DIR...: every sample also prints to FILE, for each cgroup directly under each DIR,
// "MS PATH some_total_us full_total_us io_some_us cpu_some_us refault_file refault_anon
// cpu_usage_usec memory_current": its memory.pressure, the `some` totals of its io.pressure and
// cpu.pressure, the workingset_refault_file and _anon of its memory.stat, the usage_usec of its
// cpu.stat and its memory.current in bytes (-1 where a file or key is missing): who stalls, on
// what (the offender's unit, or the others too; a bystander waiting for memory, for its own
// reads or writes, or for a CPU), who reads its pages back, and who takes the CPUs and the
// memory (a contender's own service among them). A line for PATH /proc/pressure comes first: the
// machine's memory some and full, io and cpu some (kswapd's stall is only there), the rest -1.
// Stops on SIGTERM. Usage: mb_sample [-g FILE DIR...]
#include <dirent.h>
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

/* some_total() - the `some` total of the pressure file @dir/@name, or -1. */
static long long some_total(const char *dir, const char *name, char *buf, size_t len)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -1;
	return read_file(path, buf, len) > 0 ? field(buf, "total=") : -1;
}

/* groups() - one line per cgroup under each of @dirs (NULL-ended) to @out, at @ms. */
static void groups(FILE *out, char **dirs, long long ms, char *buf, size_t len)
{
	char path[4096];
	long long msome = -1, mfull = -1;
	const char *f;

	/* the machine's own line first: its memory, io and cpu `some` (memory `full` too) */
	if (read_file("/proc/pressure/memory", buf, len) > 0) {
		msome = field(buf, "total=");
		f = strstr(buf, "full");
		mfull = f ? field(f, "total=") : -1;
	}
	fprintf(out, "%lld /proc/pressure %lld %lld %lld %lld -1 -1 -1 -1\n", ms, msome, mfull,
		some_total("/proc/pressure", "io", buf, len),
		some_total("/proc/pressure", "cpu", buf, len));
	for (; *dirs; dirs++) {
		DIR *d = opendir(*dirs);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			long long some, full, io, cpu, rf = -1, ra = -1, use = -1, cur = -1;

			if (e->d_type != DT_DIR || e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/memory.pressure", *dirs, e->d_name);
			if (read_file(path, buf, len) <= 0)
				continue;
			f = strstr(buf, "full");
			some = field(buf, "total=");
			full = f ? field(f, "total=") : -1;
			snprintf(path, sizeof(path), "%s/%s", *dirs, e->d_name);
			io = some_total(path, "io.pressure", buf, len);
			cpu = some_total(path, "cpu.pressure", buf, len);
			snprintf(path, sizeof(path), "%s/%s/memory.stat", *dirs, e->d_name);
			if (read_file(path, buf, len) > 0) {
				rf = field(buf, "\nworkingset_refault_file ");
				ra = field(buf, "\nworkingset_refault_anon ");
			}
			snprintf(path, sizeof(path), "%s/%s/cpu.stat", *dirs, e->d_name);
			if (read_file(path, buf, len) > 0)
				use = field(buf, "usage_usec ");
			snprintf(path, sizeof(path), "%s/%s/memory.current", *dirs, e->d_name);
			if (read_file(path, buf, len) > 0)
				cur = strtoll(buf, NULL, 10);
			fprintf(out, "%lld %s/%s %lld %lld %lld %lld %lld %lld %lld %lld\n", ms, *dirs,
				e->d_name, some, full, io, cpu, rf, ra, use, cur);
		}
		closedir(d);
	}
	fflush(out);
}

int main(int argc, char **argv)
{
	static char buf[8192];
	FILE *gout = NULL;
	struct sigaction sa = {.sa_handler = on_signal};
	struct timespec next;

	if (argc >= 3 && !strcmp(argv[1], "-g")) {
		gout = fopen(argv[2], "we");
		if (!gout) {
			perror(argv[2]);
			return 1;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: mb_sample [-g FILE DIR...]\n");
		return 2;
	}
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
		if (gout)
			groups(gout, argv + 3, (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000,
			       buf, sizeof(buf));
		next.tv_nsec += 200000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
