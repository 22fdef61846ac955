// SPDX-License-Identifier: GPL-2.0-only
// bench_listing: the wall time of one listing of a scope's candidates (tasks_acquire() and the
// verdict's select_bad_process()) as the number of processes grows past the task table
// (TASKS_MAX): N sleeping processes started in a v1 memory cgroup (oomguard-test-bench-listing-*,
// 4 GiB limit, removed at exit with them), listed as that group and as the whole machine, a few
// times each (the first opens every process's files, the next ones re-read what they kept).
// Prints, per N and scope, the first listing and the median of the others, with how many were
// kept in the table and how many left out by rank.
// Usage: bench_listing [N ...]   (root and cgroup v1 memory needed; default 1000 4000 8000 16000)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/scope.h"
#include "daemon/tasks.h"
#include "linux/cgroupfs.h"
#include "policy/badness.h"

#define MEMCG      "/sys/fs/cgroup/memory"
#define REPEATS    5
#define MAX_CHILDS 30000

static char group[128];
static pid_t childs[MAX_CHILDS];
static size_t nr_childs;
static struct task_list tl;
static char scratch[SCOPE_SCRATCH_SIZE];

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

static void stop_childs(void)
{
	for (size_t i = 0; i < nr_childs; i++)
		kill(childs[i], SIGKILL);
	for (size_t i = 0; i < nr_childs; i++)
		waitpid(childs[i], NULL, 0);
	nr_childs = 0;
}

static void cleanup(void)
{
	stop_childs();
	if (group[0])
		rmdir(group);
}

/* Starts children in the group until @n live there. Return: 0, or -1. */
static int grow_to(size_t n)
{
	char procs[160];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", group);
	while (nr_childs < n) {
		pid_t pid = fork();

		if (pid == 0) {
			/* dies with the bench, however it ends: its group can then be removed */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || write_file(procs, "0") < 0)
				_exit(1);
			for (;;)
				pause();
		}
		if (pid < 0) {
			fprintf(stderr, "bench_listing: fork after %zu: %s\n", nr_childs,
				strerror(errno));
			return -1;
		}
		childs[nr_childs++] = pid;
	}
	sleep(1); /* each has moved itself into the group */
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Lists @s REPEATS times; prints the first and the median of the rest. */
static void measure(const char *label, size_t n, struct scope *s)
{
	struct victim_table vt;
	struct config c;
	uint64_t t[REPEATS];
	size_t idx = 0;
	long points = 0;
	int r = 0;

	memset(&vt, 0, sizeof(vt));
	config_defaults(&c);
	for (int i = 0; i < REPEATS; i++) {
		uint64_t t0 = mono_usec();

		r = tasks_acquire(&tl, s, &c, &vt, getpid(), scratch, sizeof(scratch));
		if (r == 0)
			select_bad_process(tl.tasks, tl.nr, 1u << 20, &idx, &points);
		t[i] = mono_usec() - t0;
	}
	qsort(t + 1, REPEATS - 1, sizeof(t[0]), cmp_u64);
	printf("processes=%zu scope=%s listing_first_usec=%llu listing_median_usec=%llu "
	       "in_table=%zu ranked_out=%zu kept_files=%zu rc=%d\n",
	       n, label, (unsigned long long)t[0], (unsigned long long)t[1 + (REPEATS - 1) / 2],
	       tl.nr, tl.take.ranked_out, tl.nr_fds, r);
	tasks_close(&tl);
}

int main(int argc, char **argv)
{
	size_t sizes[16] = {1000, 4000, 8000, 16000};
	size_t nr_sizes = 4;
	struct cgroup_mounts m;
	char err[256] = "";

	if (argc > 1) {
		nr_sizes = 0;
		for (int i = 1; i < argc && nr_sizes < 16; i++) {
			sizes[nr_sizes] = strtoul(argv[i], NULL, 10);
			if (!sizes[nr_sizes] || sizes[nr_sizes] > MAX_CHILDS) {
				fprintf(stderr, "bench_listing: '%s': a count of 1 to %d\n", argv[i],
					MAX_CHILDS);
				return 2;
			}
			nr_sizes++;
		}
	}
	snprintf(group, sizeof(group), MEMCG "/oomguard-test-bench-listing-%d", getpid());
	if (mkdir(group, 0755) < 0) {
		fprintf(stderr, "bench_listing: mkdir %s: %s\n", group, strerror(errno));
		return 1;
	}
	atexit(cleanup);
	{
		char path[160];

		snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", group);
		if (write_file(path, "4294967296") < 0) {
			fprintf(stderr, "bench_listing: cannot limit %s\n", group);
			return 1;
		}
	}
	if (read_mountinfo("", scratch, sizeof(scratch), &m) < 0) {
		fprintf(stderr, "bench_listing: mountinfo unreadable\n");
		return 1;
	}
	printf("# bench_listing: TASKS_MAX=%d TASKS_KEEP_CUT=%d TASKS_FD_MAX=%d, %d listings each\n",
	       TASKS_MAX, TASKS_KEEP_CUT, TASKS_FD_MAX, REPEATS);
	for (size_t i = 0; i < nr_sizes; i++) {
		struct scope gs, ms;

		if (sizes[i] < nr_childs)
			stop_childs();
		if (grow_to(sizes[i]) < 0)
			return 1;
		if (scope_init_cgroup(&gs, "", group, &m, 12, scratch, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_listing: %s\n", err);
			return 1;
		}
		gs.cur.limit_bytes = 1ull << 32;
		measure("group", sizes[i], &gs);
		scope_close(&gs);
		if (scope_init_machine(&ms, "", 12, scratch) < 0) {
			fprintf(stderr, "bench_listing: machine scope\n");
			return 1;
		}
		ms.cur.limit_bytes = 1ull << 32;
		measure("machine", sizes[i], &ms);
		scope_close(&ms);
	}
	return 0;
}
