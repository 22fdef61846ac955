// SPDX-License-Identifier: GPL-2.0-only
// bench_monitor: samples one v1 memory cgroup (and optionally a v2 group's memory.pressure) at a
// fixed interval and logs each sample, each task that appears and each task that disappears, so
// that the bench can tell what the cgroup looked like just before every kill.
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS      4096 /* far above the bench's largest scenario (100 eaters + helpers) */
#define COMM_LEN       16
#define DEFAULT_MSEC   50 /* fine enough to see the state between two kills of a flood */
#define READ_BUF_BYTES 8192

struct task {
	int pid;
	char comm[COMM_LEN];
};

struct sample {
	uint64_t usage_kib, limit_kib, failcnt, under_oom, oom_kill;
	uint64_t cache_kib, rss_kib, dirty_kib, writeback_kib, inactive_file_kib, active_file_kib;
	uint64_t some_usec, full_usec;
	size_t nr_tasks;
	struct task tasks[MAX_TASKS];
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_realtime_msec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000ULL + (uint64_t)ts.tv_nsec / 1000000ULL;
}

/* Read a whole small file into @buf (NUL-terminated). Return: bytes read or -errno. */
static ssize_t read_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (ssize_t)n;
}

/* The value after "@key " on a line of @buf, or 0 when absent. */
static uint64_t keyed_value(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p = buf;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ' ')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* "total=N" on the line of a PSI file that starts with @kind ("some" or "full"). */
static uint64_t psi_total_usec(const char *buf, const char *kind)
{
	const char *line = strstr(buf, kind);
	const char *total = line ? strstr(line, "total=") : NULL;

	return total ? strtoull(total + 6, NULL, 10) : 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/**
 * read_sample() - fill @s from the memory group @memcg and, when set, the v2 group @psi.
 * Task names are copied from @prev for known pids and read from /proc for new ones.
 * Return: 0, or -errno when the memory group is gone.
 */
static int read_sample(const char *memcg, const char *psi, const struct sample *prev,
		       struct sample *s)
{
	static char buf[READ_BUF_BYTES];
	char *p, *end;

	if (read_file(memcg, "memory.usage_in_bytes", buf, sizeof(buf)) < 0)
		return -ENOENT;
	s->usage_kib = strtoull(buf, NULL, 10) / 1024;
	s->limit_kib = read_file(memcg, "memory.limit_in_bytes", buf, sizeof(buf)) > 0
			   ? strtoull(buf, NULL, 10) / 1024
			   : 0;
	s->failcnt =
	    read_file(memcg, "memory.failcnt", buf, sizeof(buf)) > 0 ? strtoull(buf, NULL, 10) : 0;
	if (read_file(memcg, "memory.oom_control", buf, sizeof(buf)) > 0) {
		s->under_oom = keyed_value(buf, "under_oom");
		s->oom_kill = keyed_value(buf, "oom_kill");
	}
	if (read_file(memcg, "memory.stat", buf, sizeof(buf)) > 0) {
		s->cache_kib = keyed_value(buf, "cache") / 1024;
		s->rss_kib = keyed_value(buf, "rss") / 1024;
		s->dirty_kib = keyed_value(buf, "dirty") / 1024;
		s->writeback_kib = keyed_value(buf, "writeback") / 1024;
		s->inactive_file_kib = keyed_value(buf, "inactive_file") / 1024;
		s->active_file_kib = keyed_value(buf, "active_file") / 1024;
	}
	s->some_usec = s->full_usec = 0;
	if (psi && read_file(psi, "memory.pressure", buf, sizeof(buf)) > 0) {
		s->some_usec = psi_total_usec(buf, "some");
		s->full_usec = psi_total_usec(buf, "full");
	}
	s->nr_tasks = 0;
	if (read_file(memcg, "cgroup.procs", buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (p = buf; *p && s->nr_tasks < MAX_TASKS; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		s->tasks[s->nr_tasks].pid = (int)pid;
		s->tasks[s->nr_tasks].comm[0] = '\0';
		s->nr_tasks++;
	}
	qsort(s->tasks, s->nr_tasks, sizeof(s->tasks[0]), cmp_task);
	for (size_t i = 0, j = 0; i < s->nr_tasks; i++) {
		while (j < prev->nr_tasks && prev->tasks[j].pid < s->tasks[i].pid)
			j++;
		if (j < prev->nr_tasks && prev->tasks[j].pid == s->tasks[i].pid) {
			memcpy(s->tasks[i].comm, prev->tasks[j].comm, COMM_LEN);
		} else {
			char dir[64], comm[64];

			snprintf(dir, sizeof(dir), "/proc/%d", s->tasks[i].pid);
			if (read_file(dir, "comm", comm, sizeof(comm)) > 0)
				comm[strcspn(comm, "\n")] = '\0';
			else
				strcpy(comm, "?");
			snprintf(s->tasks[i].comm, COMM_LEN, "%s", comm);
		}
	}
	return 0;
}

static void print_sample(FILE *out, uint64_t t_msec, const struct sample *s)
{
	fprintf(out,
		"S %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %zu %" PRIu64
		" %" PRIu64 "\n",
		t_msec, s->usage_kib, s->limit_kib, s->failcnt, s->under_oom, s->oom_kill,
		s->cache_kib, s->rss_kib, s->dirty_kib, s->writeback_kib, s->inactive_file_kib,
		s->active_file_kib, s->nr_tasks, s->some_usec, s->full_usec);
}

/* Log tasks of @cur missing from @prev ("N") and tasks of @prev missing from @cur ("G"). */
static void print_changes(FILE *out, uint64_t t_msec, const struct sample *prev,
			  const struct sample *cur)
{
	size_t i = 0, j = 0;

	while (i < prev->nr_tasks || j < cur->nr_tasks) {
		if (j >= cur->nr_tasks ||
		    (i < prev->nr_tasks && prev->tasks[i].pid < cur->tasks[j].pid)) {
			fprintf(out, "G %" PRIu64 " %d %s\n", t_msec, prev->tasks[i].pid,
				prev->tasks[i].comm);
			i++;
		} else if (i >= prev->nr_tasks || cur->tasks[j].pid < prev->tasks[i].pid) {
			fprintf(out, "N %" PRIu64 " %d %s\n", t_msec, cur->tasks[j].pid,
				cur->tasks[j].comm);
			j++;
		} else {
			i++;
			j++;
		}
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench_monitor -m MEMCG_DIR [-p V2_DIR] [-i MSEC] [-o FILE]\n"
		"Logs until SIGTERM/SIGINT or until the memory group is removed:\n"
		"  S t_ms usage_kib limit_kib failcnt under_oom oom_kill cache_kib rss_kib\n"
		"    dirty_kib writeback_kib inactive_file_kib active_file_kib nr_tasks\n"
		"    psi_some_usec psi_full_usec\n"
		"  N t_ms pid comm      a task appeared\n"
		"  G t_ms pid comm      a task disappeared (the S line before is its last view)\n");
}

int main(int argc, char **argv)
{
	const char *memcg = NULL, *psi = NULL, *out_path = NULL;
	unsigned long interval_msec = DEFAULT_MSEC;
	struct sample *samples;
	struct sigaction sa;
	FILE *out = stdout;
	int opt, cur = 0;

	while ((opt = getopt(argc, argv, "m:p:i:o:h")) != -1) {
		switch (opt) {
		case 'm':
			memcg = optarg;
			break;
		case 'p':
			psi = optarg;
			break;
		case 'i':
			interval_msec = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!memcg || interval_msec == 0 || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (out_path) {
		out = fopen(out_path, "we");
		if (!out) {
			perror("bench_monitor: output");
			return 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	samples = calloc(2, sizeof(*samples));
	if (!samples) {
		perror("bench_monitor: calloc");
		return 1;
	}
	while (!stop_requested) {
		uint64_t t = now_realtime_msec();
		struct timespec ts = {.tv_sec = (time_t)(interval_msec / 1000),
				      .tv_nsec = (long)(interval_msec % 1000) * 1000000L};

		if (read_sample(memcg, psi, &samples[!cur], &samples[cur]) < 0)
			break;
		print_changes(out, t, &samples[!cur], &samples[cur]);
		print_sample(out, t, &samples[cur]);
		fflush(out);
		cur = !cur;
		nanosleep(&ts, NULL);
	}
	free(samples);
	if (out != stdout)
		fclose(out);
	return 0;
}
