// SPDX-License-Identifier: GPL-2.0-only
// bench_daemon_reap: kill-to-freed for a 1 GiB victim, running and frozen (v1 freezer), through
// the daemon's own act path: pidfd_open, pidfd_send_signal(SIGKILL), then the reaper's reap_one()
// (process_mrelease, 10 tries 100 ms apart). Groups are oomguard-test-bench-reap-*, removed.
// Usage: bench_daemon_reap [RUNS]   (root, cgroup v1 memory and freezer needed)
// BENCH_RAW=1 times the bare process_mrelease call instead of reap_one(), for comparison.
// The reaping thread runs SCHED_FIFO as the daemon's reaper does (BENCH_NORMAL_PRIORITY=1: not),
// with the daemon's team of caller threads (one per CPU; BENCH_HELPERS=N sets N + 1).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/reaper.h"
#include "daemon/scope.h"
#include "linux/sys.h"

#define MEMCG        "/sys/fs/cgroup/memory"
#define FREEZER      "/sys/fs/cgroup/freezer"
#define VICTIM_BYTES (1ul << 30)

static char mem_dir[128], frz_dir[128];
static char scratch[SCOPE_SCRATCH_SIZE];
static struct reap_callers callers;

static int put(const char *dir, const char *file, const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return sys_write_file(NULL, path, value);
}

static void cleanup(void)
{
	put(frz_dir, "freezer.state", "THAWED");
	rmdir(frz_dir);
	rmdir(mem_dir);
}

static pid_t spawn_victim(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char me[32];
		unsigned char *m;

		snprintf(me, sizeof(me), "%d", getpid());
		if (put(mem_dir, "cgroup.procs", me) < 0 || put(frz_dir, "cgroup.procs", me) < 0)
			_exit(1);
		m = mmap(NULL, VICTIM_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (m == MAP_FAILED)
			_exit(1);
		for (size_t off = 0; off < VICTIM_BYTES; off += 4096)
			m[off] = 1;
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int one(struct scope *s, bool frozen, uint64_t *ret_usec, uint64_t *ret_freed,
	       enum reap_result *ret_result)
{
	struct reap_request req;
	struct reap_report rep;
	char state[32];
	pid_t pid = spawn_victim();

	if (pid <= 0)
		return -1;
	if (frozen) {
		put(frz_dir, "freezer.state", "FROZEN");
		for (int i = 0; i < 100; i++) {
			char path[160];

			snprintf(path, sizeof(path), "%s/freezer.state", frz_dir);
			if (sys_read_file(NULL, path, state, sizeof(state)) > 0 &&
			    !strncmp(state, "FROZEN", 6))
				break;
			usleep(10000);
		}
	}
	memset(&req, 0, sizeof(req));
	req.pid = pid;
	req.scope = s;
	req.pidfd = sys->pidfd_open(pid, 0);
	scope_usage_bytes(s, scratch, sizeof(scratch), &req.usage_before_bytes);
	sys->pidfd_send_signal(req.pidfd, SIGKILL, NULL, 0);
	req.kill_usec = now_usec();
	if (getenv("BENCH_RAW")) { /* the bare syscall, for comparison */
		memset(&rep, 0, sizeof(rep));
		rep.result = sys->process_mrelease(req.pidfd, 0) == 0 ? REAP_RELEASED : REAP_EXITED;
		rep.kill_to_freed_usec = now_usec() - req.kill_usec;
		scope_usage_bytes(s, scratch, sizeof(scratch), &rep.freed_bytes);
		rep.freed_bytes = req.usage_before_bytes - rep.freed_bytes;
		sys->close(req.pidfd);
	} else {
		reap_one(&req, true, &callers, scratch, sizeof(scratch), &rep); /* closes it */
	}
	put(frz_dir, "freezer.state", "THAWED");
	waitpid(pid, NULL, 0);
	if (getenv("BENCH_VERBOSE"))
		fprintf(stderr, "result=%d tries=%d err=%d usec=%llu freed=%llu\n", rep.result,
			rep.tries, rep.err, (unsigned long long)rep.kill_to_freed_usec,
			(unsigned long long)rep.freed_bytes);
	*ret_usec = rep.kill_to_freed_usec;
	*ret_freed = rep.freed_bytes;
	*ret_result = rep.result;
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	struct cgroup_mounts m = {.v1_memory = MEMCG};
	struct scope s;
	char err[256];

	if (geteuid() != 0 || access(MEMCG "/memory.limit_in_bytes", F_OK) ||
	    access(FREEZER, F_OK)) {
		printf("SKIP: needs root and cgroup v1 memory and freezer\n");
		return 0;
	}
	if (runs < 1 || runs > 50)
		runs = 5;
	snprintf(mem_dir, sizeof(mem_dir), MEMCG "/oomguard-test-bench-reap-%d", getpid());
	snprintf(frz_dir, sizeof(frz_dir), FREEZER "/oomguard-test-bench-reap-%d", getpid());
	if (mkdir(mem_dir, 0755) < 0 || mkdir(frz_dir, 0755) < 0) {
		perror("mkdir");
		cleanup();
		return 1;
	}
	atexit(cleanup);
	put(mem_dir, "memory.limit_in_bytes", "1610612736");
	if (scope_init_cgroup(&s, NULL, mem_dir, &m, sys_page_shift(), scratch, err, sizeof(err)) <
	    0) {
		fprintf(stderr, "bench_daemon_reap: %s\n", err);
		return 1;
	}
	/* The daemon's reaper thread runs SCHED_FIFO; the bench reaps from its own thread. */
	if (!getenv("BENCH_NORMAL_PRIORITY") && reaper_raise_priority() < 0)
		fprintf(stderr, "bench_daemon_reap: cannot raise priority\n");
	{
		const char *n = getenv("BENCH_HELPERS");

		unsigned int team = n ? 1 + (unsigned int)atoi(n) : reap_callers_wanted();

		reap_callers_start(&callers, team, team);
	}
	for (int frozen = 0; frozen < 2; frozen++) {
		uint64_t usec[50], freed_min = UINT64_MAX;
		int released = 0;

		for (int i = 0; i < runs; i++) {
			uint64_t freed;
			enum reap_result res;

			if (one(&s, frozen, &usec[i], &freed, &res) < 0)
				return 1;
			if (freed < freed_min)
				freed_min = freed;
			released += res == REAP_RELEASED;
		}
		qsort(usec, (size_t)runs, sizeof(usec[0]), cmp_u64);
		printf("%svictim=1GiB %s runs=%d callers=%u kill_to_freed_ms median=%.1f max=%.1f "
		       "(target <= 50) freed_min_mib=%llu released_by_mrelease=%d\n",
		       getenv("BENCH_RAW") ? "bare process_mrelease: " : "",
		       frozen ? "frozen " : "running", runs, getenv("BENCH_RAW") ? 1 : callers.team,
		       (double)usec[runs / 2] / 1000.0, (double)usec[runs - 1] / 1000.0,
		       (unsigned long long)(freed_min >> 20), released);
	}
	reap_callers_stop(&callers);
	scope_close(&s);
	return 0;
}
